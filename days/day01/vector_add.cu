// Your exercise file. Generated from solutions/day01/vector_add.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: 51a2baee408dc3c5
// Day 1, exercise 1: vector addition, one thread per element.
//
//   c[i] = a[i] + b[i]   for 0 <= i < n
//
// The grader launches blocks of 256 threads and rounds the grid up: ceil(n / 256) blocks. The last
// block therefore has threads past the end of the arrays.
#include <course/common.cuh>

extern "C" __global__ void vector_add(const float* __restrict__ a, const float* __restrict__ b,
                                      float* __restrict__ c, int64_t n) {
  // TODO: your code here.
  //   Hint: this thread's element is blockIdx.x * blockDim.x + threadIdx.x; threads past n do nothing.
}
