// Your exercise file. Generated from solutions/day10/gemm_tiled.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: e0ce3481a6cdaf53
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
    // TODO: your code here.
    //   Hint: Each K step, the 256 threads bring a 64 x 16 piece of A and a 16 x 64 piece of B into shared memory
    //   Hint: once, then each thread reuses them for a 4 x 4 micro-tile. Why store A's piece transposed, and what
    //   Hint: protects the pieces from being overwritten too early?
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
