// Your exercise file. Generated from solutions/day05/compact.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: 3f477f32ceff12c2
// Day 5, exercise 4: stream compaction with warp votes: keep the elements with x[i] > threshold.
//
//   out[0 .. count)      the kept values, in their input order (the compaction is STABLE)
//   out_idx[0 .. count)  their indices in x, increasing
//
// Two launches of 256-thread blocks; block b owns the 256 elements [256 b, 256 b + 256), one per thread.
//   1. compact_count:   counts[b] = how many of block b's elements are kept.
//   2. (the host)       offsets = the exclusive prefix sum of counts: where block b's first kept
//                       element goes; count = offsets[last] + counts[last].
//   3. compact_scatter: each kept element goes to offsets[b] + (kept in earlier warps of the block)
//                       + (kept in lower lanes of its warp).
// Within a warp, __ballot_sync gives all 32 predicates as one word: its popcount is the warp's count,
// and the popcount of the bits below a lane (course::lanemask_lt) is that lane's rank. Blocks, warps
// and lanes are all taken in index order, so the output keeps the input's order. (A single pass that
// reserves space with atomicAdd is simpler but unstable: blocks finish in any order.)
// The grader launches grid = (ceil(n / 256),), block = (256,) for both kernels.
#include <course/warp.cuh>

namespace {

constexpr int BLOCK = 256;
constexpr int NUM_WARPS = BLOCK / course::WARP_SIZE;

}  // namespace

extern "C" __global__ void __launch_bounds__(BLOCK)
compact_count(const float* __restrict__ x, int n, float threshold, int* __restrict__ counts) {
  __shared__ int warp_counts[NUM_WARPS];
  // TODO: your code here.
  //   Hint: this thread's element i, whether it is kept (threads past n vote "no" but still vote), its lane
  //   Hint: and its warp in the block.
  // TODO: your code here.
  //   Hint: votes = __ballot_sync(0xffffffff, keep); the warp's count is __popc(votes).
  //   Hint: lane 0 of each warp writes it to warp_counts[warp]; __syncthreads(); then thread 0 adds
  //   Hint: the NUM_WARPS counts and writes counts[blockIdx.x].
}

extern "C" __global__ void __launch_bounds__(BLOCK)
compact_scatter(const float* __restrict__ x, int n, float threshold, const int* __restrict__ offsets,
                float* __restrict__ out, int* __restrict__ out_idx) {
  __shared__ int warp_counts[NUM_WARPS];
  // TODO: your code here.
  //   Hint: this thread's element i, whether it is kept (threads past n vote "no" but still vote), its lane
  //   Hint: and its warp in the block.
  // TODO: your code here.
  //   Hint: votes = __ballot_sync(0xffffffff, keep); rank = __popc(votes & course::lanemask_lt())
  //   Hint: (kept lanes below this one); the warp's count = __popc(votes) goes to warp_counts[warp].
  //   Hint: __syncthreads(); then pos = offsets[blockIdx.x] + the counts of warps 0 .. warp - 1 + rank.
  //   Hint: If keep: out[pos] = x[i], out_idx[pos] = i. (course::warp_rank does the ballot part.)
}
