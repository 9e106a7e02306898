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
  // HINT: this thread's element: blockIdx.x * blockDim.x + threadIdx.x (course::global_thread_id()).
  // HINT: the grid is rounded up, so threads past n must do nothing.
  const int64_t i = course::global_thread_id();
  if (i < n) c[i] = a[i] + b[i];
  // END EXERCISE
}
