// Your exercise file. Generated from solutions/day01/vector_add.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: 2e637acefb12556f
// Day 1, exercise 1: vector addition, one thread per element.
//
//   c[i] = a[i] + b[i]   for 0 <= i < n          (float32; n is an int64_t)
//
// The grader launches blocks of 256 threads and rounds the grid up: ceil(n / 256) blocks. The last
// block therefore has threads past the end of the arrays. It tests n from 1 to just past 2^24, sizes
// that are not multiples of 256, and compares with a float64 reference.
#include <course/common.cuh>

extern "C" __global__ void vector_add(const float* __restrict__ a, const float* __restrict__ b,
                                      float* __restrict__ c, int64_t n) {
  // TODO: your code here.
  //   Hint: Which element should a thread own so that the threads of one block cover a contiguous run,
  //   Hint: and the blocks follow one another? And what must the threads of the last block do?
}
