// Day 8, exercise 3: stream compaction, the elements above a threshold packed in order.
//
//   out[0 .. count) = [x for x in in if x > threshold] (in their order), count[0] = how many
//   in: [n] float32, out: [n] float32, count: [1] int32
//   grid = (ceil(n / TILE),), block = (256,), TILE = 256 * 8 items
//   tile_status: [grid] uint64, tile_counter: [1] uint32, both zeroed by the grader before each launch
//
// An element's place in `out` is the number of kept elements before it: the EXCLUSIVE prefix sum of
// the flags (1 = keep, 0 = drop). One block per tile, as in scan.cu: the block's exclusive scan of
// its flags (cub::BlockScan) gives places within the tile, and the look-back across tiles
// (course::LookbackPrefix, course/scan.cuh) adds the kept elements of all earlier tiles.
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
  // HINT: the exclusive scan of the keep-flags, with the look-back adding the kept elements of
  // HINT: earlier tiles, is each kept element's place in `out`.
  // HINT2: 0. base = tile * TILE, valid = the items of this tile that exist; float x[ITEMS];
  // HINT2:    BlockLoad(temp.load).Load(in + base, x, valid) (thread t gets items t * ITEMS ..
  // HINT2:    t * ITEMS + ITEMS - 1: "blocked"; those past the end are left undefined);
  // HINT2:    __syncthreads() (the scan reuses temp).
  // HINT2: 1. flags: place[j] = 1 when item j exists (t * ITEMS + j < valid) and x[j] > threshold.
  // HINT2: 2. Lookback prefix(tile_status, tile, warp_temp);
  // HINT2:    BlockScan(temp.scan).ExclusiveSum(place, place, prefix): each flag becomes its element's
  // HINT2:    place in `out`, counted from the start of the whole array.
  // HINT2: 3. write the kept ones: out[place[j]] = x[j]. The thread holding the array's last element
  // HINT2:    (base + t * ITEMS + j == n - 1) writes *count = place[j] + its flag (keep the flags).
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
