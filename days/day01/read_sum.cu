// Your exercise file. Generated from solutions/day01/read_sum.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: cc0ba2295efc84ce
// Day 1, exercise 5: read a working set again and again (the kernel behind the memory-hierarchy plot).
//
//   partial[t] = reps x the sum of x[j].x + x[j].y + x[j].z + x[j].w over j = t, t + T, t + 2T, ... < n4
//
// t is this thread's global index, T the number of threads in the grid: a grid-stride loop over the
// n4 float4 elements, run `reps` times. One float4 is 16 bytes: one load instruction per element.
// When the 16 n4 bytes fit in L2 (50 MB on an H100), every pass after the first reads L2, not HBM,
// and the bandwidth it reaches shows it. The grader launches a fixed grid; the lesson times it.
#include <course/common.cuh>

extern "C" __global__ void read_sum(const float4* __restrict__ x, int64_t n4, int reps,
                                    float* __restrict__ partial) {
  // TODO: your code here.
  //   Hint: one accumulator per thread; reps passes of a grid-stride loop; one store at the end.
}
