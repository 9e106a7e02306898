// Your exercise file. Generated from solutions/day08/block_scan.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: 567a7b0d07955a81
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
  // TODO: your code here.
  //   Hint: log2(32) = 5 steps; in the step of distance d every lane adds the value of the lane d below
  //   Hint: it, which __shfl_up_sync hands over; lanes below d have no such lane and keep theirs.
}

// Turn items (thread t holds items t * ITEMS .. t * ITEMS + ITEMS - 1 of the tile) into their
// exclusive sums over the whole block; returns the block's total (in every thread).
// warp_totals: WARPS ints of shared memory.
COURSE_INLINE int block_exclusive_sum(int (&items)[ITEMS], int* warp_totals) {
  // TODO: your code here.
  //   Hint: three levels: a serial exclusive scan of the thread's own items (their sum left over), the
  //   Hint: warp scan of the threads' sums, then the warps' totals through shared memory. A thread's
  //   Hint: offset = (totals of earlier warps) + (its warp-inclusive sum - its own sum).
}

}  // namespace

extern "C" __global__ void __launch_bounds__(BLOCK)
warp_inclusive_sum_i32(const int* __restrict__ in, int* __restrict__ out, int64_t n) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * BLOCK + threadIdx.x;
  // TODO: your code here.
  //   Hint: every lane scans, also the ones past n (with 0): the shuffles need the whole warp.
}

extern "C" __global__ void __launch_bounds__(BLOCK)
block_exclusive_sum_i32(const int* __restrict__ in, int* __restrict__ out, int* __restrict__ tile_sums,
                        int64_t n) {
  __shared__ int warp_totals[WARPS];
  const int64_t base = static_cast<int64_t>(blockIdx.x) * TILE + threadIdx.x * ITEMS;  // my first item
  int items[ITEMS];
  // TODO: your code here.
  //   Hint: load the thread's ITEMS items (0 past n), block_exclusive_sum, store them (only below n);
  //   Hint: thread 0 writes the tile's total to tile_sums[blockIdx.x].
}
