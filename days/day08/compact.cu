// Your exercise file. Generated from solutions/day08/compact.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: fff529fde8bc4e82
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
  // TODO: your code here.
  //   Hint: Where does a kept element go in out? Count the kept elements before it: which prefix sum is
  //   Hint: that, and over which values?
}
