// Day 10, exercise 2: shared-memory tiling on the CUDA cores, the second point of the progression.
//
//   A: [M, K] row-major   B: [K, N] row-major   C: [M, N] row-major, fp16, accumulated in float
//
// A block of 256 threads computes a 64x64 tile of C: grid = (ceil(N / 64), ceil(M / 64)),
// block = (256,). Each K step stages a 64x16 piece of A and a 16x64 piece of B in shared memory (as
// float, zeros past the edges); each thread then computes a 4x4 micro-tile of C from registers:
// 8 shared loads for 16 fused multiply-adds, where the naive kernel needed 2 global loads per one.
#include <course/vec_dtypes.cuh>

namespace {
constexpr int TILE = 64, BK = 16, THREADS = 256, MICRO = 4;  // 16 x 16 threads of 4 x 4 outputs
}

extern "C" __global__ void __launch_bounds__(THREADS)
gemm_tiled_f16(const half* __restrict__ A, const half* __restrict__ B, half* __restrict__ C,
               int M, int N, int K) {
  __shared__ float sa[BK][TILE + 4];  // A stored transposed: sa[k][m], so a thread's 4 rows are adjacent
  __shared__ float sb[BK][TILE + 4];
  const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
  const int m0 = blockIdx.y * TILE, n0 = blockIdx.x * TILE;
  float acc[MICRO][MICRO] = {};
  for (int k0 = 0; k0 < K; k0 += BK) {
    // BEGIN EXERCISE
    // HINT: Each K step, the 256 threads bring a 64 x 16 piece of A and a 16 x 64 piece of B into shared memory
    // HINT: once, then each thread reuses them for a 4 x 4 micro-tile. Why store A's piece transposed, and what
    // HINT: protects the pieces from being overwritten too early?
    // HINT2: Per K step: each thread copies 4 elements of A and 4 of B (consecutive threads on consecutive global
    // HINT2: addresses, as float, zeros past the edges), a barrier; then for each k of the step, its 4 values of
    // HINT2: A and 4 of B into registers and 16 FMAs; a barrier.
    // HINT3: Stored as sa[k][m], a thread's 4 rows of A at one k are 4 consecutive floats, like its 4 columns of
    // HINT3: B: both come out of shared memory as 16-byte vectors. In the copy, element i of A's piece is row
    // HINT3: i / 16, column i % 16 (16 columns a row), so a warp reads whole row segments of A.
#pragma unroll
    for (int j = 0; j < TILE * BK / THREADS; ++j) {
      const int i = tid + j * THREADS;
      const int ar = i / BK, ak = i % BK;  // A: 64 rows of 16
      sa[ak][ar] = (m0 + ar < M && k0 + ak < K) ? course::to_float(A[int64_t(m0 + ar) * K + k0 + ak]) : 0.f;
      const int bk = i / TILE, bc = i % TILE;  // B: 16 rows of 64
      sb[bk][bc] = (k0 + bk < K && n0 + bc < N) ? course::to_float(B[int64_t(k0 + bk) * N + n0 + bc]) : 0.f;
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      float a[MICRO], b[MICRO];
#pragma unroll
      for (int i = 0; i < MICRO; ++i) a[i] = sa[k][ty * MICRO + i];
#pragma unroll
      for (int j = 0; j < MICRO; ++j) b[j] = sb[k][tx * MICRO + j];
#pragma unroll
      for (int i = 0; i < MICRO; ++i) {
#pragma unroll
        for (int j = 0; j < MICRO; ++j) acc[i][j] += a[i] * b[j];
      }
    }
    __syncthreads();
    // END EXERCISE
  }
#pragma unroll MICRO
  for (int r = 0; r < MICRO; ++r) {
    const int row = m0 + ty * MICRO + r;
#pragma unroll MICRO
    for (int j = 0; j < MICRO; ++j) {
      const int col = n0 + tx * MICRO + j;
      if (row < M && col < N) C[int64_t(row) * N + col] = course::from_float<half>(acc[r][j]);
    }
  }
}
