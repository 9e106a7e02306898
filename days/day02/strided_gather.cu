// Your exercise file. Generated from solutions/day02/strided_gather.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: 1a398515a79932df
// Day 2, exercise 1: a strided read, to measure what coalescing is worth.
//
//   out[i] = in[i * stride]   for 0 <= i < n_out          (float32; n_out and stride are int64_t)
//
// Writes are contiguous; reads skip `stride` floats. A warp's 32 reads then touch up to 32 different
// 32-byte sectors instead of 4: the sweep in the notebook shows useful bandwidth falling with stride.
// The grader launches 1-D blocks with the grid rounded up (n_out is not a multiple of the block) and
// compares exactly; in holds n_out * stride floats, which can pass 2^31.
#include <course/common.cuh>

extern "C" __global__ void strided_gather(const float* __restrict__ in, float* __restrict__ out,
                                          int64_t n_out, int64_t stride) {
  // TODO: your code here.
  //   Hint: The same shape as day 1's vector add; the only new thing is where each thread reads from.
  //   Hint: How large can that input position get?
}
