// Day 10, exercise 4: one step from day 9's block tile to a fast GEMM: cp.async into swizzled shared
// memory, ldmatrix, mma.sync, and an fp16 epilogue. C = A * B, fp32 accumulate, fp16 out.
//
//   A: [M, K] row-major   B: [K, N] row-major, row stride ldb (>= N, a multiple of 8)   C: [M, N]
//   K must be a multiple of 8 (16-byte rows for cp.async); M and N are arbitrary.
//
// One block of 4 warps computes a 64x64 tile of C: grid = (ceil(N / 64), ceil(M / 64)), block = (128,).
// The warps form a 2x2 grid of 32x32 warp tiles (2 m16 x 4 n8 mma tiles each), as on day 9. Each K
// step of BK = 32: the block copies the A tile [64, 32] and the B tile [32, 64] with 16-byte cp.async
// copies (2 of each per thread; zeros past the edges, nothing read there) into swizzled shared
// memory, waits for them, and each warp reads its fragments with ldmatrix at the swizzled offsets.
// One stage, no overlap yet: gemm.cu pipelines the same steps.
#include <course/cp_async.cuh>
#include <course/mma.cuh>

namespace {

constexpr int BM = 64, BN = 64, BK = 32;         // block tile and K step
constexpr int WM = 32, WN = 32;                  // warp tile
constexpr int MT = WM / 16, NT = WN / 8;         // mma tiles per warp: 2 x 4
constexpr int THREADS = 128, CHUNK = 8;          // CHUNK: halves in 16 bytes

// Your swizzle of exercise 3: where element (row, col) of a [ROWS, COLS] tile is stored.
template <int CHUNKS>
__device__ __forceinline__ constexpr int swizzle_chunk(int row, int chunk) {
  // BEGIN EXERCISE
  // HINT: as in swizzle.cu.
  // STUB: return chunk + 0 * row;
  constexpr int period = CHUNKS < 8 ? CHUNKS : 8;
  return chunk ^ ((row / (8 / period)) % period);
  // END EXERCISE
}

template <int COLS>
__device__ __forceinline__ int tile_offset(int row, int col) {
  // BEGIN EXERCISE
  // HINT: as in swizzle.cu (always swizzled here).
  // STUB: (void)row; (void)col; return 0;
  return row * COLS + swizzle_chunk<COLS / CHUNK>(row, col / CHUNK) * CHUNK + col % CHUNK;
  // END EXERCISE
}

}  // namespace

extern "C" __global__ void __launch_bounds__(THREADS)
gemm_mma_f16(const half* __restrict__ A, const half* __restrict__ B, half* __restrict__ C, int M, int N,
             int K, int ldb) {
  __shared__ alignas(128) half sa[BM * BK];
  __shared__ alignas(128) half sb[BK * BN];
  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  const int wm = warp / 2, wn = warp % 2;  // this warp's tile within the block
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  float acc[MT][NT][4] = {};

  // BEGIN EXERCISE
  // HINT: Day 9's block tile with its loads replaced by 16-byte cp.async copies into swizzled shared memory.
  // HINT: How many chunks does each thread copy per K step for A and for B, where does each go, and what must
  // HINT: the copies have completed before a warp reads fragments?
  // HINT2: Per K step: each thread's chunks of the A tile and of the B tile copied with load_128b to their
  // HINT2: swizzled places, zero-filled outside (K % 8 == 0: a chunk is all in or all out); commit, wait, a
  // HINT2: barrier; per k16 step day 9's fragment loads at swizzled offsets and MT x NT mma; a barrier before
  // HINT2: the next step overwrites the tiles.
  // HINT3: A false predicate reads nothing, but the source address must still be valid: select the matrix's
  // HINT3: base pointer for a chunk outside it. B's rows are ldb elements apart, not N. Every column you pass to
  // HINT3: tile_offset is a multiple of 8, so the swizzle never splits a chunk.
  // STUB: (void)tid; (void)lane; (void)wm; (void)wn; (void)m0; (void)n0; (void)sa; (void)sb; (void)ldb;
  for (int k0 = 0; k0 < K; k0 += BK) {
#pragma unroll
    for (int i = 0; i < BM * BK / CHUNK / THREADS; ++i) {
      const int c = tid + i * THREADS, r = c / (BK / CHUNK), col = c % (BK / CHUNK) * CHUNK;
      const bool inside = m0 + r < M && k0 + col < K;
      course::cp_async::load_128b(sa + tile_offset<BK>(r, col), inside ? A + int64_t(m0 + r) * K + k0 + col : A,
                                  inside);
    }
#pragma unroll
    for (int i = 0; i < BK * BN / CHUNK / THREADS; ++i) {
      const int c = tid + i * THREADS, r = c / (BN / CHUNK), col = c % (BN / CHUNK) * CHUNK;
      const bool inside = k0 + r < K && n0 + col < N;
      course::cp_async::load_128b(sb + tile_offset<BN>(r, col),
                                  inside ? B + int64_t(k0 + r) * ldb + n0 + col : B, inside);
    }
    course::cp_async::commit_group();
    course::cp_async::wait_group<0>();
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < BK / 16; ++kk) {
      uint32_t af[MT][4], bf[NT / 2][4];
#pragma unroll
      for (int mt = 0; mt < MT; ++mt) {
        const int row = wm * WM + mt * 16 + lane % 16, col = kk * 16 + 8 * (lane / 16);
        course::mma::ldmatrix_m8n8x4(af[mt], sa + tile_offset<BK>(row, col));
      }
#pragma unroll
      for (int np = 0; np < NT / 2; ++np) {
        const int row = kk * 16 + lane % 16, col = wn * WN + np * 16 + 8 * (lane / 16);
        course::mma::ldmatrix_m8n8x4_trans(bf[np], sb + tile_offset<BN>(row, col));
      }
#pragma unroll
      for (int mt = 0; mt < MT; ++mt) {
#pragma unroll
        for (int nt = 0; nt < NT; ++nt) {
          course::mma::mma_sync_m16n8k16_row_col_f32<half>(acc[mt][nt], af[mt], &bf[nt / 2][2 * (nt % 2)]);
        }
      }
    }
    __syncthreads();
  }
  // END EXERCISE

  // BEGIN EXERCISE
  // HINT: Each accumulator pair is two adjacent columns of one row: how do you store it with one instruction, and
  // HINT: when is that 4-byte store not allowed?
  // HINT2: Loops over mt, nt and the two row halves: the pair's row and columns from the C layout, rounded into
  // HINT2: one __half2; a 4-byte store when both columns are inside and the offset is even, else half by half;
  // HINT2: rows >= M skipped.
  // HINT3: col is always even, but row * N + col is even for every row only when N is: with an odd N the __half2
  // HINT3: store would be misaligned on odd rows (a misaligned-address fault).
#pragma unroll
  for (int mt = 0; mt < MT; ++mt) {
#pragma unroll
    for (int nt = 0; nt < NT; ++nt) {
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int row = m0 + wm * WM + mt * 16 + lane / 4 + 8 * h, col = n0 + wn * WN + nt * 8 + 2 * (lane % 4);
        if (row >= M || col >= N) continue;
        const __half2 v = __floats2half2_rn(acc[mt][nt][2 * h], acc[mt][nt][2 * h + 1]);
        half* dst = C + int64_t(row) * N + col;
        if (col + 1 < N && N % 2 == 0) {
          *reinterpret_cast<__half2*>(dst) = v;
        } else {
          dst[0] = __low2half(v);
          if (col + 1 < N) dst[1] = __high2half(v);
        }
      }
    }
  }
  // END EXERCISE
}
