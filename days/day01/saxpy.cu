// Your exercise file. Generated from solutions/day01/saxpy.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: 7657d69abb58df60
// Day 1, exercise 2: SAXPY with a grid-stride loop.
//
//   out[i] = alpha * x[i] + y[i]   for 0 <= i < n
//
// The grader launches a FIXED grid (a few blocks per SM), whatever n is, so each thread must handle
// several elements: start at its global index and step by the total number of threads in the grid.
#include <course/common.cuh>

extern "C" __global__ void saxpy(int64_t n, float alpha, const float* __restrict__ x,
                                 const float* __restrict__ y, float* __restrict__ out) {
  // TODO: your code here.
  //   Hint: start at your global index and step by the number of threads in the grid until i >= n.
  //   Hint: consecutive threads must touch consecutive elements in each step (coalescing, day 2).
}
