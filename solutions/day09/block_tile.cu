// Day 9, exercise 3: a block tile built from warp tiles: C = A * B with ldmatrix and mma.sync.
//
//   a: [M, K] row-major   b: [K, N] row-major   c: [M, N] float (written, never read)
//   T = half or __nv_bfloat16, accumulated in float. Any M, N, K >= 1.
//
// One block of 4 warps computes a 64x64 tile of C: grid = (ceil(N / 64), ceil(M / 64)), block = (128,).
// The warps form a 2x2 grid, each owning a 32x32 warp tile = 2 (m16) x 4 (n8) mma tiles, so each
// lane keeps 2 * 4 * 4 = 32 float accumulators. The K loop walks 32 columns of A and rows of B at a
// time through shared memory (loaded element by element with zeros past the edges: simple, not fast;
// day 10 makes it fast), and each warp reads its fragments with ldmatrix (course/mma.cuh's wrappers
// of the instructions you wrote in exercises 1 and 2):
//   A, one m16 x k16 piece:       ldmatrix_m8n8x4 (4 registers: the whole A fragment)
//   B, one k16 x n16 piece:       ldmatrix_m8n8x4_trans (the B fragments of two n8 tiles)
// The test: C against float64 within the fp32 accumulation tolerance for K, any M, N, K (1 x 1 x 1 up);
// the technique: HMMA, LDSM.16.M88 and LDSM.16.MT88 in the SASS, no spills.
#include <course/mma.cuh>
#include <course/vec_dtypes.cuh>

namespace {

constexpr int BM = 64, BN = 64, BK = 32;         // block tile and K step
constexpr int WM = 32, WN = 32;                  // warp tile
constexpr int MT = WM / 16, NT = WN / 8;         // mma tiles per warp: 2 x 4
constexpr int THREADS = 128;
constexpr int A_ROW = BK + 8, B_ROW = BN + 8;    // padded shared rows (80 and 144 bytes: 16-byte aligned)

template <typename T>
__device__ void block_tile(const T* __restrict__ a, const T* __restrict__ b, float* __restrict__ c,
                           int M, int N, int K) {
  __shared__ alignas(16) T sa[BM * A_ROW];
  __shared__ alignas(16) T sb[BK * B_ROW];
  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  const int wm = warp / 2, wn = warp % 2;  // this warp's tile within the block
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  float acc[MT][NT][4] = {};
  const T zero = course::from_float<T>(0.f);

  // BEGIN EXERCISE
  // HINT: The block computes a 64 x 64 tile of C in steps of 32 along K. What must be in shared memory before
  // HINT: any warp reads fragments, what fills the parts outside the matrix, and when may the next step
  // HINT: overwrite it?
  // HINT2: Per K step: all threads copy the A and B pieces into the padded shared arrays (consecutive threads
  // HINT2: on consecutive global addresses, zeros past the edges), a barrier; per k16 step, this warp's A
  // HINT2: fragments (one ldmatrix .x4 each) and B fragments (one transposing .x4 per two n8 tiles), then
  // HINT2: MT x NT mma into the accumulators; a barrier before the next K step.
  // HINT3: A lane addresses row lane % 16 and column half lane / 16 of a 16 x 16 piece, for A (plain) and B
  // HINT3: (.trans) alike. The transposed B .x4 gives registers 0-1 for n8 tile 2 np and 2-3 for tile 2 np + 1.
  // HINT3: Global indices in int64_t: M * K passes 2^31 for large matrices.
  // STUB: (void)tid; (void)zero; (void)wm; (void)wn; (void)m0; (void)n0;
  for (int k0 = 0; k0 < K; k0 += BK) {
    for (int i = tid; i < BM * BK; i += THREADS) {
      const int r = i / BK, k = i % BK;
      sa[r * A_ROW + k] = (m0 + r < M && k0 + k < K) ? a[int64_t(m0 + r) * K + k0 + k] : zero;
    }
    for (int i = tid; i < BK * BN; i += THREADS) {
      const int k = i / BN, n = i % BN;
      sb[k * B_ROW + n] = (k0 + k < K && n0 + n < N) ? b[int64_t(k0 + k) * N + n0 + n] : zero;
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < BK / 16; ++kk) {
      uint32_t af[MT][4], bf[NT / 2][4];
#pragma unroll
      for (int mt = 0; mt < MT; ++mt) {
        course::mma::ldmatrix_m8n8x4(af[mt], &sa[(wm * WM + mt * 16 + lane % 16) * A_ROW + kk * 16 + 8 * (lane / 16)]);
      }
#pragma unroll
      for (int np = 0; np < NT / 2; ++np) {
        course::mma::ldmatrix_m8n8x4_trans(bf[np], &sb[(kk * 16 + lane % 16) * B_ROW + wn * WN + np * 16 + 8 * (lane / 16)]);
      }
#pragma unroll
      for (int mt = 0; mt < MT; ++mt) {
#pragma unroll
        for (int nt = 0; nt < NT; ++nt) {
          course::mma::mma_sync_m16n8k16_row_col_f32<T>(acc[mt][nt], af[mt], &bf[nt / 2][2 * (nt % 2)]);
        }
      }
    }
    __syncthreads();  // everyone is done with this K step's tiles before they are overwritten
  }
  // END EXERCISE
  // BEGIN EXERCISE
  // HINT: Where in C does accumulator i of mma tile (mt, nt) of this warp belong, and which of them lie outside
  // HINT: [M, N]?
  // HINT2: Three loops (mt, nt, i): the block's origin, plus the warp's, plus the mma tile's, plus the C layout
  // HINT2: of the fragment; a guarded store.
  // HINT3: if (row < M && col < N) c[int64_t(row) * N + col] = acc[mt][nt][i];
#pragma unroll
  for (int mt = 0; mt < MT; ++mt) {
#pragma unroll
    for (int nt = 0; nt < NT; ++nt) {
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        const int row = m0 + wm * WM + mt * 16 + course::mma::frag_c_row(lane, i);
        const int col = n0 + wn * WN + nt * 8 + course::mma::frag_c_col(lane, i);
        if (row < M && col < N) c[int64_t(row) * N + col] = acc[mt][nt][i];
      }
    }
  }
  // END EXERCISE
}

}  // namespace

extern "C" __global__ void __launch_bounds__(THREADS)
block_tile_f16(const half* a, const half* b, float* c, int M, int N, int K) {
  block_tile(a, b, c, M, N, K);
}
extern "C" __global__ void __launch_bounds__(THREADS)
block_tile_bf16(const __nv_bfloat16* a, const __nv_bfloat16* b, float* c, int M, int N, int K) {
  block_tile(a, b, c, M, N, K);
}
