// Day 1, exercise 1: vector addition, one thread per element.
//
//   c[i] = a[i] + b[i]   for 0 <= i < n
//
// The grader launches blocks of 256 threads and rounds the grid up: ceil(n / 256) blocks. The last
// block therefore has threads past the end of the arrays.
#include <course/common.cuh>

extern "C" __global__ void vector_add(const float* __restrict__ a, const float* __restrict__ b,
                                      float* __restrict__ c, int64_t n) {
  // BEGIN EXERCISE
  // HINT: this thread's element is blockIdx.x * blockDim.x + threadIdx.x; threads past n do nothing.
  // HINT2: two lines: compute the index i (64-bit: n can exceed 2^31), then `if (i < n) c[i] = ...;`.
  // HINT3: const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  // HINT3: (blockIdx.x * blockDim.x alone multiplies two 32-bit unsigned values and can wrap.)
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
  // END EXERCISE
}
