// Your exercise file. Generated from solutions/day06/block_sum.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: 2328df91bb8853c5
// Day 6, exercise 1: the sum of a whole float32 array, in two launches of one kernel.
//
//   launch 1: grid = (min(ceil(n / 256), 1024),), block = (256,):  partial[b] = sum of block b's slice
//   launch 2: grid = (1,),                        block = (256,):  out[0]     = sum of the partials
//
// Block b's slice: the elements a grid-stride loop gives its threads (day 1). Each block combines its
// 256 threads' values in two levels that you write yourself: register exchanges inside each warp
// (warp_sum), then the warps' results through shared memory (block_sum_of). The second launch runs the
// same kernel over the partials. No atomics and no CUB (the technique check wants SHFL, BAR, STS and LDS
// and refuses atomics, CUB and course/reduce.cuh): this is the reduction those are built from (day 8
// compares it with cub::BlockReduce). n from 1 to 2^24 + 3; integer inputs must sum exactly, normal
// floats within a bound on float32 rounding of the summation tree.
#include <course/common.cuh>

namespace {

constexpr int BLOCK = 256;                         // the grader launches exactly this many threads
constexpr int WARP_SIZE = 32;
constexpr int NUM_WARPS = BLOCK / WARP_SIZE;
constexpr unsigned FULL_MASK = 0xffffffffu;        // all 32 lanes take part in every shuffle

// Level 1: the sum of `v` over the 32 lanes of a warp, returned to EVERY lane.
COURSE_INLINE float warp_sum(float v) {
  // TODO: your code here.
  //   Hint: Day 3's butterfly, now with __shfl_xor_sync: after how many exchange-and-add steps does every
  //   Hint: lane hold the sum of all 32?
  return v;  // this thread's own value only: wrong
}

// Level 2: the sum of `v` over the block, valid in thread 0 (or in every thread, if you like).
COURSE_INLINE float block_sum_of(float v, float* smem) {
  // TODO: your code here.
  //   Hint: Each warp can sum its own 32 values. Where do the 8 warp sums meet, and which warp adds them up
  //   Hint: (with which function)?
  return v;  // this thread's own value only: wrong
}

}  // namespace

extern "C" __global__ void __launch_bounds__(BLOCK)
block_sum(const float* __restrict__ in, float* __restrict__ out, int64_t n) {
  __shared__ float smem[NUM_WARPS];
  // TODO: your code here.
  //   Hint: Before any cooperation, each thread sums its own elements in a register. Which elements, when
  //   Hint: the grid may be much smaller than n?
  // TODO: your code here.
  //   Hint: Who must call block_sum_of (it holds a barrier), and who writes the block's result where?
}
