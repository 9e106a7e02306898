// Your exercise file. Generated from solutions/day01/saxpy.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: b6fe41f22a3685c7
// Day 1, exercise 2: SAXPY with a grid-stride loop.
//
//   out[i] = alpha * x[i] + y[i]   for 0 <= i < n     (float32; n is an int64_t)
//
// The grader launches a FIXED grid of 4 blocks of 128 threads, whatever n is (up to 2^22 + 1), so each
// thread must handle several elements. Every element is written exactly once; the result is compared
// with a float64 reference.
#include <course/common.cuh>

extern "C" __global__ void saxpy(int64_t n, float alpha, const float* __restrict__ x,
                                 const float* __restrict__ y, float* __restrict__ out) {
  // TODO: your code here.
  //   Hint: 512 threads, four million elements: which elements should one thread take so that, at every
  //   Hint: step, neighbouring threads touch neighbouring elements (coalescing, day 2)?
}
