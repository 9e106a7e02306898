// Day 8, exercise 3: stream compaction, the elements above a threshold packed in order.
//
//   out[0 .. count) = [x for x in in if x > threshold] (in their order), count[0] = how many
//   in: [n] float32, out: [n] float32, count: [1] int32
//   grid = (ceil(n / TILE),), block = (256,), TILE = 256 * 8 items
//   tile_status: [grid] uint64, tile_counter: [1] uint32, both zeroed by the grader before each launch
//
// One block per tile, as in scan.cu, with the tile claimed in start order (course::claim_tile, given)
// and the look-back across tiles (course::LookbackPrefix, course/scan.cuh: a prefix callback for
// cub::BlockScan; your own from exercise 2's scan.cuh until the course's version is released). The test: n from 1 to 2^24 + 3, thresholds keeping none, some or all
// of the elements; count and out[:count] compared exactly.
#include <cub/block/block_load.cuh>
#include <cub/block/block_scan.cuh>

#include <course/scan.cuh>

namespace {

constexpr int BLOCK = 256;  // the grader launches exactly this many threads per block
constexpr int ITEMS = 8;    // items per thread
constexpr int TILE = BLOCK * ITEMS;

using BlockLoad = cub::BlockLoad<float, BLOCK, ITEMS, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
using BlockScan = cub::BlockScan<int, BLOCK, cub::BLOCK_SCAN_WARP_SCANS>;
using Lookback = course::LookbackPrefix<int>;

}  // namespace

extern "C" __global__ void __launch_bounds__(BLOCK)
compact_f32(const float* __restrict__ in, float* __restrict__ out, int* __restrict__ count, int64_t n,
            float threshold, unsigned long long* tile_status, unsigned* tile_counter) {
  __shared__ union {
    BlockLoad::TempStorage load;
    BlockScan::TempStorage scan;
  } temp;
  __shared__ Lookback::WarpReduce::TempStorage warp_temp;
  const int64_t tile = course::claim_tile(tile_counter);
  int place[ITEMS];
  // BEGIN EXERCISE
  // HINT: Where does a kept element go in out? Count the kept elements before it: which prefix sum is
  // HINT: that, and over which values?
  // HINT2: Load the tile (blocked, guarded by how many items exist; a barrier since the scan reuses
  // HINT2: temp); a flag per item (exists and is above the threshold); the block's exclusive scan of the
  // HINT2: flags with the look-back as its prefix callback; kept items write themselves to their place;
  // HINT2: the thread holding the array's last element writes count.
  // HINT3: Keep a copy of the flags: the scan overwrites them with places. The last element's place plus
  // HINT3: its flag is the total kept count; an item that does not exist (past the end) must get flag 0,
  // HINT3: since BlockLoad leaves it undefined.
  const int64_t base = tile * TILE;
  const int valid = n - base < TILE ? static_cast<int>(n - base) : TILE;  // items in this tile
  float x[ITEMS];
  BlockLoad(temp.load).Load(in + base, x, valid);  // items past the end are left undefined
  __syncthreads();  // the scan reuses temp
  int keep[ITEMS];
#pragma unroll
  for (int j = 0; j < ITEMS; ++j) {
    keep[j] = (threadIdx.x * ITEMS + j < valid) && x[j] > threshold;
    place[j] = keep[j];
  }
  Lookback prefix(tile_status, tile, warp_temp);
  BlockScan(temp.scan).ExclusiveSum(place, place, prefix);
#pragma unroll
  for (int j = 0; j < ITEMS; ++j) {
    if (keep[j]) out[place[j]] = x[j];
    if (base + threadIdx.x * ITEMS + j == n - 1) *count = place[j] + keep[j];
  }
  // END EXERCISE
}
