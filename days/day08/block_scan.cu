// Your exercise file. Generated from solutions/day08/block_scan.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: b7164c944e5b971e
// Day 8, exercise 1: prefix sums inside a warp and inside a block, by hand (no CUB yet).
//
//   warp_inclusive_sum_i32   grid = (ceil(n / 256),), block = (256,):
//       out[i] = the inclusive sum of in over i's warp up to i (each warp scans its 32 elements)
//   block_exclusive_sum_i32  grid = (ceil(n / TILE),), block = (256,), TILE = 256 * 4:
//       out[i] = the exclusive sum of in over i's tile up to i, tile_sums[b] = the sum of tile b
//   Elements past n count as 0 and are not written.
//
// A warp scans with shuffles, as in day 5's warp_scan.cu. A block scans its tile the way
// cub::BlockScan (BLOCK_SCAN_WARP_SCANS) does, which the next exercises use: each thread holds ITEMS
// consecutive items (the "blocked" arrangement), and the warp scan and shared memory do the rest.
// The test: n from 1 to 2^20 + 5 (partial warps and tiles), compared exactly. The SASS must show
// SHFL.UP and no register spills; CUB is refused here.
#include <course/common.cuh>

namespace {

constexpr int BLOCK = 256;  // the grader launches exactly this many threads per block
constexpr int ITEMS = 4;    // items per thread in block_exclusive_sum_i32
constexpr int TILE = BLOCK * ITEMS;
constexpr int WARPS = BLOCK / 32;

// The inclusive sum of v over lanes 0 .. this lane of the warp (all 32 lanes call it).
COURSE_INLINE int warp_inclusive_sum(int v) {
  // TODO: your code here.
  //   Hint: Day 5's Hillis-Steele scan again: how many steps for 32 lanes, and which lanes have no partner
  //   Hint: in the step of distance d?
}

// Turn items (thread t holds items t * ITEMS .. t * ITEMS + ITEMS - 1 of the tile) into their
// exclusive sums over the whole block; returns the block's total (in every thread).
// warp_totals: WARPS ints of shared memory.
COURSE_INLINE int block_exclusive_sum(int (&items)[ITEMS], int* warp_totals) {
  // TODO: your code here.
  //   Hint: An item's exclusive sum over the tile = the items before it in its own thread + the items of
  //   Hint: earlier threads of its warp + the items of earlier warps. Which scan gives each of the three?
}

}  // namespace

extern "C" __global__ void __launch_bounds__(BLOCK)
warp_inclusive_sum_i32(const int* __restrict__ in, int* __restrict__ out, int64_t n) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * BLOCK + threadIdx.x;
  // TODO: your code here.
  //   Hint: Which lanes must take part in the warp scan, also when the last warp runs past n?
}

extern "C" __global__ void __launch_bounds__(BLOCK)
block_exclusive_sum_i32(const int* __restrict__ in, int* __restrict__ out, int* __restrict__ tile_sums,
                        int64_t n) {
  __shared__ int warp_totals[WARPS];
  const int64_t base = static_cast<int64_t>(blockIdx.x) * TILE + threadIdx.x * ITEMS;  // my first item
  int items[ITEMS];
  // TODO: your code here.
  //   Hint: Load, scan, store: which items does this thread hold, what stands in for items past n, and
  //   Hint: who writes the tile's total?
}
