// Your exercise file. Generated from solutions/day08/compact.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: d194a655705d5620
// Day 8, exercise 2: stream compaction, the elements above a threshold packed in order.
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
  const int64_t base = tile * TILE;
  const int valid = n - base < TILE ? static_cast<int>(n - base) : TILE;  // items in this tile
  float x[ITEMS];
  BlockLoad(temp.load).Load(in + base, x, valid);  // items past the end are left undefined
  __syncthreads();  // the scan reuses temp
  // After BlockLoad, thread t holds items t * ITEMS .. t * ITEMS + ITEMS - 1 of the tile ("blocked").
  int place[ITEMS];
  // TODO: your code here.
  //   Hint: 1. flags: place[j] = 1 when item j exists (t * ITEMS + j < valid) and x[j] > threshold.
  //   Hint: 2. Lookback prefix(tile_status, tile, warp_temp);
  //   Hint:    BlockScan(temp.scan).ExclusiveSum(place, place, prefix): each flag becomes its element's
  //   Hint:    place in `out`, counted from the start of the whole array.
  //   Hint: 3. write the kept ones: out[place[j]] = x[j]. The thread holding the array's last element
  //   Hint:    (base + t * ITEMS + j == n - 1) writes *count = place[j] + its flag (keep the flags).
}
