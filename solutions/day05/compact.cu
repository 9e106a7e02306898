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
  // BEGIN EXERCISE
  // HINT: Which element is this thread's, and does it keep it? A thread past n has no element: what
  // HINT: should its vote be (it must still vote)?
  // HINT2: Four facts per thread: its element index, its keep flag (false past n), its lane, its warp.
  const int i = blockIdx.x * BLOCK + threadIdx.x;
  const bool keep = i < n && x[i] > threshold;  // threads past n vote "no" but still vote
  const int lane = course::lane_id(), warp = threadIdx.x / course::WARP_SIZE;
  // END EXERCISE
  // BEGIN EXERCISE
  // HINT: One instruction gives a warp all 32 keep flags as one word. How do you count a word's set bits,
  // HINT: and how do the 8 warps' counts become the block's?
  // HINT2: Each warp counts its kept elements; one lane per warp puts the count in shared memory; a
  // HINT2: barrier; one thread adds the warps' counts and writes the block's.
  // HINT3: Every lane must vote, also threads past n (their flag is false): the ballot's mask names all
  // HINT3: 32 lanes. The barrier comes after the shared writes and is reached by every thread.
  const int warp_count = __popc(__ballot_sync(course::FULL_MASK, keep));
  if (lane == 0) warp_counts[warp] = warp_count;
  __syncthreads();
  if (threadIdx.x == 0) {
    int total = 0;
#pragma unroll
    for (int w = 0; w < NUM_WARPS; ++w) total += warp_counts[w];
    counts[blockIdx.x] = total;
  }
  // END EXERCISE
}

extern "C" __global__ void __launch_bounds__(BLOCK)
compact_scatter(const float* __restrict__ x, int n, float threshold, const int* __restrict__ offsets,
                float* __restrict__ out, int* __restrict__ out_idx) {
  __shared__ int warp_counts[NUM_WARPS];
  // BEGIN EXERCISE
  // HINT: The same four facts as in compact_count.
  const int i = blockIdx.x * BLOCK + threadIdx.x;
  const bool keep = i < n && x[i] > threshold;
  const int lane = course::lane_id(), warp = threadIdx.x / course::WARP_SIZE;
  // END EXERCISE
  // BEGIN EXERCISE
  // HINT: A kept element's position = its block's offset + kept elements in earlier warps of its block +
  // HINT: kept elements in lower lanes of its warp. Which bits of the warp's ballot word count the last
  // HINT: term?
  // HINT2: Each lane's rank in its warp and the warp's count (from one ballot); the warps' counts through
  // HINT2: shared memory and a barrier; the position as the sum of the three terms; kept elements write
  // HINT2: their value and index.
  // HINT3: The rank is the popcount of the ballot masked to the lanes below this one (course::lanemask_lt;
  // HINT3: course::warp_rank does both). The barrier must come before any thread reads the warps' counts,
  // HINT3: and every thread reaches it, kept or not.
  const course::WarpRank r = course::warp_rank(keep);
  if (lane == 0) warp_counts[warp] = r.count;
  __syncthreads();
  int pos = offsets[blockIdx.x] + r.rank;
  for (int w = 0; w < warp; ++w) pos += warp_counts[w];
  if (keep) {
    out[pos] = x[i];
    out_idx[pos] = i;
  }
  // END EXERCISE
}
