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
  // BEGIN EXERCISE
  // HINT: One thread owns one element of C: which row of A and which column of B does it need, and what must a
  // HINT: thread outside C do?
  // HINT2: A guard, a float accumulator over k, one store converted to half (course::to_float / from_float).
  // HINT3: index with int64_t, M * K can pass 2^31: A[int64_t(row) * K + k], B[int64_t(k) * N + col].
  if (row >= M || col >= N) return;
  float sum = 0.f;
  const half* a = A + int64_t(row) * K;
  for (int k = 0; k < K; ++k) sum += course::to_float(a[k]) * course::to_float(B[int64_t(k) * N + col]);
  C[int64_t(row) * N + col] = course::from_float<half>(sum);
  // END EXERCISE
}
