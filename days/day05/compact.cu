// Your exercise file. Generated from solutions/day05/compact.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: 7c0376398b342def
// Day 5, exercise 4: stream compaction with warp votes: keep the elements with x[i] > threshold.
//
//   out[0 .. count)      the kept values, in their input order (the compaction is STABLE)
//   out_idx[0 .. count)  their indices in x, increasing
//
// Two launches of 256-thread blocks; block b owns the 256 elements [256 b, 256 b + 256), one per thread.
//   1. compact_count:   counts[b] = how many of block b's elements are kept.
//   2. (the host)       offsets = the exclusive prefix sum of counts: where block b's first kept
//                       element goes; count = offsets[last] + counts[last].
//   3. compact_scatter: each kept element goes to offsets[b] + the number of kept elements before it
//                       in its block, so blocks, warps and lanes all keep the input's order.
// Use warp votes (__ballot_sync, __popc; course/warp.cuh has lanemask_lt and warp_rank) and shared
// memory for the block's per-warp counts. (A single pass that reserves space with atomicAdd is simpler
// but unstable: blocks finish in any order.) The grader launches grid = (ceil(n / 256),),
// block = (256,) for both kernels; n from 1 to 2^20 + 3 (the last block partial), densities 0, 0.1,
// 0.5 and 1; values and indices are compared exactly.
#include <course/warp.cuh>

namespace {

constexpr int BLOCK = 256;
constexpr int NUM_WARPS = BLOCK / course::WARP_SIZE;

}  // namespace

extern "C" __global__ void __launch_bounds__(BLOCK)
compact_count(const float* __restrict__ x, int n, float threshold, int* __restrict__ counts) {
  __shared__ int warp_counts[NUM_WARPS];
  // TODO: your code here.
  //   Hint: Which element is this thread's, and does it keep it? A thread past n has no element: what
  //   Hint: should its vote be (it must still vote)?
  // TODO: your code here.
  //   Hint: One instruction gives a warp all 32 keep flags as one word. How do you count a word's set bits,
  //   Hint: and how do the 8 warps' counts become the block's?
}

extern "C" __global__ void __launch_bounds__(BLOCK)
compact_scatter(const float* __restrict__ x, int n, float threshold, const int* __restrict__ offsets,
                float* __restrict__ out, int* __restrict__ out_idx) {
  __shared__ int warp_counts[NUM_WARPS];
  // TODO: your code here.
  //   Hint: The same four facts as in compact_count.
  // TODO: your code here.
  //   Hint: A kept element's position = its block's offset + kept elements in earlier warps of its block +
  //   Hint: kept elements in lower lanes of its warp. Which bits of the warp's ballot word count the last
  //   Hint: term?
}
