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
  // BEGIN EXERCISE
  // HINT: Day 5's Hillis-Steele scan again: how many steps for 32 lanes, and which lanes have no partner
  // HINT: in the step of distance d?
  // HINT2: Five steps, the distance doubling from 1; each step hands every lane the value d lanes below
  // HINT2: and adds it where such a lane exists.
  // HINT3: The shuffle stays outside the condition: every lane of the mask must execute it, also the
  // HINT3: lanes that do not use what they receive.
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
  // HINT: An item's exclusive sum over the tile = the items before it in its own thread + the items of
  // HINT: earlier threads of its warp + the items of earlier warps. Which scan gives each of the three?
  // HINT2: Three levels: a serial exclusive scan of the thread's own items (keeping their total); the warp
  // HINT2: scan of the threads' totals; the warps' totals through shared memory and a barrier, from which
  // HINT2: each thread takes the sum of the earlier warps and the block's total. Then add the thread's
  // HINT2: offset to its items.
  // HINT3: The warp scan is inclusive: the thread's offset within its warp is its inclusive result minus
  // HINT3: its own total, and the last lane's inclusive result is the warp's total (the value to share).
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
  // HINT: Which lanes must take part in the warp scan, also when the last warp runs past n?
  // HINT2: Scan this thread's element (0 past n) and store the result only below n.
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
  // HINT: Load, scan, store: which items does this thread hold, what stands in for items past n, and
  // HINT: who writes the tile's total?
  // HINT2: Load the thread's ITEMS consecutive items (0 past n), block_exclusive_sum, store them below n;
  // HINT2: one thread writes the tile's total.
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
