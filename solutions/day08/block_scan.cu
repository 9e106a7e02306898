// Day 8, exercise 1: prefix sums inside a warp and inside a block, by hand (no CUB yet).
//
//   warp_inclusive_sum_i32   grid = (ceil(n / 256),), block = (256,):
//       out[i] = the inclusive sum of in over i's warp up to i (each warp scans its 32 elements)
//   block_exclusive_sum_i32  grid = (ceil(n / TILE),), block = (256,), TILE = 256 * 4:
//       out[i] = the exclusive sum of in over i's tile up to i, tile_sums[b] = the sum of tile b
//   Elements past n count as 0 and are not written.
//
// A warp scans with shuffles, as in day 5's warp_scan.cu: after the step with distance d, lane l holds
// the sum of lanes l - 2d + 1 .. l (Hillis-Steele: 5 steps for 32 lanes). A block scans in three levels, the way
// cub::BlockScan (BLOCK_SCAN_WARP_SCANS) does, which the next exercises use:
//   1. each thread scans its ITEMS consecutive items serially (the thread's "blocked" items);
//   2. the warps scan the threads' totals with the warp scan;
//   3. the warps' totals go through shared memory, and each thread adds the totals of earlier warps.
#include <course/common.cuh>

namespace {

constexpr int BLOCK = 256;  // the grader launches exactly this many threads per block
constexpr int ITEMS = 4;    // items per thread in block_exclusive_sum_i32
constexpr int TILE = BLOCK * ITEMS;
constexpr int WARPS = BLOCK / 32;

// The inclusive sum of v over lanes 0 .. this lane of the warp (all 32 lanes call it).
COURSE_INLINE int warp_inclusive_sum(int v) {
  // BEGIN EXERCISE
  // HINT: log2(32) = 5 steps; in the step of distance d every lane adds the value of the lane d below
  // HINT: it, which __shfl_up_sync hands over; lanes below d have no such lane and keep theirs.
  // HINT2: lane = threadIdx.x % 32; for (d = 1; d < 32; d *= 2) { up = __shfl_up_sync(0xffffffffu, v, d);
  // HINT2: if (lane >= d) v += up; } return v;
  // HINT3: the shuffle stays outside the `if`: every lane of the mask must execute it, also the lanes
  // HINT3: that do not use what they receive.
  const int lane = threadIdx.x % 32;
#pragma unroll
  for (int d = 1; d < 32; d *= 2) {
    const int up = __shfl_up_sync(0xffffffffu, v, d);
    if (lane >= d) v += up;
  }
  return v;
  // END EXERCISE
}

// Turn items (thread t holds items t * ITEMS .. t * ITEMS + ITEMS - 1 of the tile) into their
// exclusive sums over the whole block; returns the block's total (in every thread).
// warp_totals: WARPS ints of shared memory.
COURSE_INLINE int block_exclusive_sum(int (&items)[ITEMS], int* warp_totals) {
  // BEGIN EXERCISE
  // HINT: three levels: a serial exclusive scan of the thread's own items (their sum left over), the
  // HINT: warp scan of the threads' sums, then the warps' totals through shared memory. A thread's
  // HINT: offset = (totals of earlier warps) + (its warp-inclusive sum - its own sum).
  // HINT2: 1. sum = 0; for j: { x = items[j]; items[j] = sum; sum += x; }
  // HINT2: 2. inclusive = warp_inclusive_sum(sum); lane 31 writes warp_totals[warp] = inclusive;
  // HINT2:    __syncthreads();
  // HINT2: 3. for w = 0 .. WARPS - 1: total += warp_totals[w], and before += it too when w < warp;
  // HINT2:    then items[j] += before + inclusive - sum; return total.
  // HINT3: lane 31 holds the warp's total because the warp scan is inclusive.
  int sum = 0;
#pragma unroll
  for (int j = 0; j < ITEMS; ++j) {
    const int x = items[j];
    items[j] = sum;
    sum += x;
  }
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int inclusive = warp_inclusive_sum(sum);
  if (lane == 31) warp_totals[warp] = inclusive;
  __syncthreads();
  int before = 0, total = 0;
#pragma unroll
  for (int w = 0; w < WARPS; ++w) {
    const int t = warp_totals[w];
    before += w < warp ? t : 0;
    total += t;
  }
  const int offset = before + inclusive - sum;
#pragma unroll
  for (int j = 0; j < ITEMS; ++j) items[j] += offset;
  return total;
  // END EXERCISE
}

}  // namespace

extern "C" __global__ void __launch_bounds__(BLOCK)
warp_inclusive_sum_i32(const int* __restrict__ in, int* __restrict__ out, int64_t n) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * BLOCK + threadIdx.x;
  // BEGIN EXERCISE
  // HINT: every lane scans, also the ones past n (with 0): the shuffles need the whole warp.
  // HINT2: v = warp_inclusive_sum(i < n ? in[i] : 0); if (i < n) out[i] = v;
  const int v = warp_inclusive_sum(i < n ? in[i] : 0);
  if (i < n) out[i] = v;
  // END EXERCISE
}

extern "C" __global__ void __launch_bounds__(BLOCK)
block_exclusive_sum_i32(const int* __restrict__ in, int* __restrict__ out, int* __restrict__ tile_sums,
                        int64_t n) {
  __shared__ int warp_totals[WARPS];
  const int64_t base = static_cast<int64_t>(blockIdx.x) * TILE + threadIdx.x * ITEMS;  // my first item
  int items[ITEMS];
  // BEGIN EXERCISE
  // HINT: load the thread's ITEMS items (0 past n), block_exclusive_sum, store them (only below n);
  // HINT: thread 0 writes the tile's total to tile_sums[blockIdx.x].
  // HINT2: for j: items[j] = base + j < n ? in[base + j] : 0;  total = block_exclusive_sum(items, warp_totals);
  // HINT2: for j: if (base + j < n) out[base + j] = items[j];
#pragma unroll
  for (int j = 0; j < ITEMS; ++j) items[j] = base + j < n ? in[base + j] : 0;
  const int total = block_exclusive_sum(items, warp_totals);
#pragma unroll
  for (int j = 0; j < ITEMS; ++j) {
    if (base + j < n) out[base + j] = items[j];
  }
  if (threadIdx.x == 0) tile_sums[blockIdx.x] = total;
  // END EXERCISE
}
