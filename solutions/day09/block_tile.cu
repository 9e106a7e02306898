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
  // HINT: the K loop, k0 += BK. Stage each K step, sa = A[m0 .. m0 + BM, k0 .. k0 + BK] and
  // HINT: sb = B[k0 .. k0 + BK, n0 .. n0 + BN], zeros past the edges (a zero adds nothing to the
  // HINT: sums), rows padded to A_ROW / B_ROW elements; __syncthreads(); then, for each k16 step of the BK = 32 columns,
  // HINT: this warp's A fragments (MT) and B fragments (NT / 2 ldmatrix.x4.trans, two n8 tiles each)
  // HINT: with course::mma's ldmatrix wrappers, and MT x NT mma into acc[mt][nt]; __syncthreads()
  // HINT: before the next K step overwrites the tiles.
  // HINT2: loads: for (int i = tid; i < BM * BK; i += THREADS), element i is r = i / BK, k = i % BK,
  // HINT2: and the same over BK * BN for sb (k = i / BN, n = i % BN): consecutive threads read
  // HINT2: consecutive global addresses. Index global memory with int64_t.
  // HINT2: for kk < BK / 16 (unrolled): uint32_t af[MT][4], bf[NT / 2][4];
  // HINT2:   af[mt]: ldmatrix_m8n8x4 at row wm * WM + mt * 16 + lane % 16, column kk * 16 + 8 * (lane / 16)
  // HINT2:   of sa (row stride A_ROW);
  // HINT2:   bf[np]: ldmatrix_m8n8x4_trans at row kk * 16 + lane % 16, column wn * WN + np * 16 +
  // HINT2:   8 * (lane / 16) of sb (row stride B_ROW): registers 0, 1 serve n8 tile 2 * np,
  // HINT2:   registers 2, 3 tile 2 * np + 1;
  // HINT2:   course::mma::mma_sync_m16n8k16_row_col_f32<T>(acc[mt][nt], af[mt], B fragment of nt).
  // HINT3: sa[r * A_ROW + k] = (m0 + r < M && k0 + k < K) ? a[int64_t(m0 + r) * K + k0 + k] : zero;
  // HINT3: the B fragment of n8 tile nt is &bf[nt / 2][2 * (nt % 2)].
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
  // HINT: write each accumulator to C where it belongs, skipping rows and columns outside [M, N].
  // HINT2: acc[mt][nt][i] is row m0 + wm * WM + mt * 16 + course::mma::frag_c_row(lane, i),
  // HINT2: column n0 + wn * WN + nt * 8 + course::mma::frag_c_col(lane, i).
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
