// Your exercise file. Generated from solutions/day10/gemm_naive.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: 8e637e23f7ed7389
// Day 10, exercise 1: the naive GEMM, the first point of the progression: C = A * B.
//
//   A: [M, K] row-major   B: [K, N] row-major   C: [M, N] row-major, fp16, accumulated in float
//
// One thread per element of C: grid = (ceil(N / 16), ceil(M / 16)), block = (16, 16); x runs along N
// so that a warp's 16 + 16 threads read consecutive elements of B and write consecutive ones of C.
// Every thread reads a whole row of A and column of B from global memory (caches help a little):
// 2 K loads per 2 K flops, far below what the tensor cores could do.
#include <course/vec_dtypes.cuh>

extern "C" __global__ void gemm_naive_f16(const half* __restrict__ A, const half* __restrict__ B,
                                          half* __restrict__ C, int M, int N, int K) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  // TODO: your code here.
  //   Hint: One thread owns one element of C: which row of A and which column of B does it need, and what must a
  //   Hint: thread outside C do?
}
