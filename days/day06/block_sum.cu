// Your exercise file. Generated from solutions/day06/block_sum.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: 05ad1401e7201abb
// Day 6, exercise 1: the sum of a whole float32 array, in two launches of one kernel.
//
//   launch 1: grid = (min(ceil(n / 256), 1024),), block = (256,):  partial[b] = sum of block b's slice
//   launch 2: grid = (1,),                        block = (256,):  out[0]     = sum of the partials
//
// Each thread first adds up its own grid-stride slice in a register; then the block combines its
// 256 values in two levels that you write yourself: a butterfly of __shfl_xor_sync inside each warp
// (5 shuffles), then, across the 8 warps, shared memory and a second butterfly. Thread 0 writes the
// block's result. The second launch runs the same kernel over the partials. No atomics and no CUB:
// this is the reduction those are built from (day 8 compares it with cub::BlockReduce).
#include <course/common.cuh>

namespace {

constexpr int BLOCK = 256;                         // the grader launches exactly this many threads
constexpr int WARP_SIZE = 32;
constexpr int NUM_WARPS = BLOCK / WARP_SIZE;
constexpr unsigned FULL_MASK = 0xffffffffu;        // all 32 lanes take part in every shuffle

// Level 1: the sum of `v` over the 32 lanes of a warp, returned to EVERY lane.
COURSE_INLINE float warp_sum(float v) {
  // TODO: your code here.
  //   Hint: a butterfly: lane i adds the value of lane i ^ offset, for offset = 16, 8, 4, 2, 1. After
  //   Hint: the step with offset o, each lane holds the sum of 32 / o lanes; after 5 steps, of all 32.
  return v;  // this thread's own value only: wrong
}

// Level 2: the sum of `v` over the block, valid in thread 0 (or in every thread, if you like).
COURSE_INLINE float block_sum_of(float v, float* smem) {
  // TODO: your code here.
  //   Hint: each warp reduces its own 32 values (warp_sum); the 8 warp sums meet in shared memory; one
  //   Hint: more warp_sum over those 8 gives the block's sum.
  return v;  // this thread's own value only: wrong
}

}  // namespace

extern "C" __global__ void __launch_bounds__(BLOCK)
block_sum(const float* __restrict__ in, float* __restrict__ out, int64_t n) {
  __shared__ float smem[NUM_WARPS];
  // TODO: your code here.
  //   Hint: float acc = 0.f, then a grid-stride loop: i = course::global_thread_id(); i < n; i += course::grid_threads(),
  //   Hint: adding in[i] to acc. Threads past n keep acc = 0 but must still reach the block reduction.
  // TODO: your code here.
  //   Hint: every thread calls block_sum_of (it has a barrier); thread 0 writes the block's sum to out[blockIdx.x].
}
