// Your exercise file. Generated from solutions/day08/scan.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: 467531a6393c1c43
// Day 8, exercise 1: a single-pass exclusive prefix sum of int32, with CUB's block primitives and a
// decoupled look-back between blocks.
//
//   out[i] = in[0] + ... + in[i - 1]   (out[0] = 0),  in, out: [n] int32
//   grid = (ceil(n / TILE),), block = (256,), TILE = 256 * 16 items
//   tile_status: [grid] uint64, tile_counter: [1] uint32, both zeroed by the grader before each launch
//
// One block scans one tile: cub::BlockLoad brings 16 consecutive items into each thread's registers
// (coalesced, through shared memory: BLOCK_LOAD_WARP_TRANSPOSE), cub::BlockScan computes the tile's
// exclusive sums, cub::BlockStore writes them back. What the tile must add is the sum of all earlier
// tiles: BlockScan asks for it through a prefix callback, the decoupled look-back below. You write
// that callback here; course/scan.cuh holds the finished one (LookbackPrefix) for the next exercise.
#include <cub/block/block_load.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_store.cuh>
#include <cub/warp/warp_reduce.cuh>

#include <course/scan.cuh>

namespace {

constexpr int BLOCK = 256;  // the grader launches exactly this many threads per block
constexpr int ITEMS = 16;   // items per thread
constexpr int TILE = BLOCK * ITEMS;

using BlockLoad = cub::BlockLoad<int, BLOCK, ITEMS, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
using BlockStore = cub::BlockStore<int, BLOCK, ITEMS, cub::BLOCK_STORE_WARP_TRANSPOSE>;
using BlockScan = cub::BlockScan<int, BLOCK, cub::BLOCK_SCAN_WARP_SCANS>;
using WarpReduce = cub::WarpReduce<int>;

// The prefix callback: BlockScan calls it from warp 0 (all 32 lanes) with the tile's aggregate (the
// sum of its items), and adds what lane 0 returns to every output of the tile.
// Status words (course/scan.cuh): course::publish_tile(status, tile, flag, value) and
// course::read_tile(status, tile); flag (word >> 32) is TILE_EMPTY, TILE_AGGREGATE or TILE_PREFIX and
// value (the low 32 bits) the tile's own sum or its inclusive prefix.
struct Lookback {
  unsigned long long* status;
  int64_t tile;
  WarpReduce::TempStorage& warp_temp;

  __device__ int operator()(int aggregate) {
    const int lane = threadIdx.x % 32;
    // TODO: your code here.
    //   Hint: tile 0: lane 0 publishes TILE_PREFIX with its aggregate; return 0.
    //   Hint: other tiles: lane 0 publishes TILE_AGGREGATE at once (the tiles after it need it), then
    //   Hint: the warp looks back in windows of 32 predecessors: lane l reads tile (window - l), starting
    //   Hint: at window = tile - 1 (a negative index counts as TILE_PREFIX with value 0: don't read it).
    //   Hint:   spin until no lane sees TILE_EMPTY (__any_sync);
    //   Hint:   p = __ballot_sync(0xffffffff, flag == TILE_PREFIX); the nearest prefix is lane __ffs(p) - 1;
    //   Hint:   add up the values of lanes 0 .. that lane (all 32 if p == 0) with
    //   Hint:   WarpReduce(warp_temp).Sum(v) (the sum is valid in lane 0), then __syncwarp();
    //   Hint:   stop if p != 0, else window -= 32.
    //   Hint: Finally lane 0 publishes TILE_PREFIX with exclusive + aggregate, and returns exclusive.
    return 0;
  }
};

}  // namespace

extern "C" __global__ void __launch_bounds__(BLOCK)
exclusive_sum_i32(const int* __restrict__ in, int* __restrict__ out, int64_t n,
                  unsigned long long* tile_status, unsigned* tile_counter) {
  __shared__ union {
    BlockLoad::TempStorage load;
    BlockScan::TempStorage scan;
    BlockStore::TempStorage store;
  } temp;
  __shared__ WarpReduce::TempStorage warp_temp;
  const int64_t tile = course::claim_tile(tile_counter);  // in the order blocks start (course/scan.cuh)
  const int64_t base = tile * TILE;
  const int valid = n - base < TILE ? static_cast<int>(n - base) : TILE;  // items in this tile
  int items[ITEMS];
  // TODO: your code here.
  //   Hint: 1. A full tile: BlockLoad(temp.load).Load(in + base, items); the last one:
  //   Hint:    .Load(in + base, items, valid, 0) (0 past the end, so the tile's sum is right).
  //   Hint: 2. __syncthreads() (temp is shared by load, scan and store), then
  //   Hint:    Lookback prefix{tile_status, tile, warp_temp};
  //   Hint:    BlockScan(temp.scan).ExclusiveSum(items, items, prefix);
  //   Hint: 3. __syncthreads(), then BlockStore(temp.store).Store(out + base, items[, valid]).
}
