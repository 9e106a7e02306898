// Your exercise file. Generated from solutions/day08/scan.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: 454dc4b859778735
// Day 8, exercise 2: a single-pass exclusive prefix sum of int32, with CUB's block primitives and a
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
// that callback here, with the publication of the tile states it reads; course/scan.cuh holds the
// finished one (LookbackPrefix) for the next exercise, refused here.
//
//   lookback_i32  grid = (number of probed tiles,), block = (32,): the grader's probe of your
//                 look-back alone: block b runs it for tile tiles[b] with aggregate aggregates[b],
//                 against tile states the grader published beforehand in a random mix of aggregates
//                 and inclusive prefixes, as blocks finishing in any order leave them.
//
// The test: n from 1 to 2^24 + 5, compared exactly, and the probe. The SASS of exclusive_sum_i32 must
// show an atomic add (ATOMG.E.ADD), a warp vote (VOTE.ANY), a 64-bit release store and acquire load at
// GPU scope (STG.E.64.STRONG.GPU, LDG.E.64.STRONG.GPU) and no spills; the source inline PTX
// st.release.gpu.global and ld.acquire.gpu.global. The benchmark expects 70% of the copy bandwidth.
#include <cub/block/block_load.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_store.cuh>
#include <cub/warp/warp_reduce.cuh>

#include <course/scan.cuh>  // course::TileFlag

namespace {

constexpr int BLOCK = 256;  // the grader launches exactly this many threads per block
constexpr int ITEMS = 16;   // items per thread
constexpr int TILE = BLOCK * ITEMS;

using BlockLoad = cub::BlockLoad<int, BLOCK, ITEMS, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
using BlockStore = cub::BlockStore<int, BLOCK, ITEMS, cub::BLOCK_STORE_WARP_TRANSPOSE>;
using BlockScan = cub::BlockScan<int, BLOCK, cub::BLOCK_SCAN_WARP_SCANS>;
using WarpReduce = cub::WarpReduce<int>;

// A tile's state is one 64-bit word, so that its flag and value are published together: the flag
// (course::TileFlag: TILE_EMPTY = 0, TILE_AGGREGATE = 1, TILE_PREFIX = 2) in the high 32 bits, the
// value in the low 32. Another block reads it while it changes, so the accesses are the memory
// model's: a release store (everything this thread wrote before it is visible to whoever reads the
// word) and an acquire load (what this thread reads after it is at least that new), at GPU scope.
COURSE_INLINE void publish(unsigned long long* status, int64_t tile, course::TileFlag flag, int value) {
  // TODO: your code here.
  //   Hint: Another block may read the state while you write it: how do you make sure it never sees a new
  //   Hint: flag with an old value? Which PTX store also makes your earlier writes visible first?
}

COURSE_INLINE unsigned long long read_state(const unsigned long long* status, int64_t tile) {
  // TODO: your code here.
  //   Hint: The look-back reads the same word again and again until another block changes it: what must
  //   Hint: the load be so that it is never a cached or hoisted copy, and sees what the publisher released?
  return 0;
}

// This block's tile, in the order blocks START: thread 0 takes the next number from the counter
// (zeroed before the launch) and shares it. Call once per block, from every thread.
COURSE_INLINE int64_t claim_tile(unsigned* counter) {
  __shared__ int64_t tile;
  // TODO: your code here.
  //   Hint: A tile numbered by blockIdx.x may wait on a block that has not started and, on a full GPU,
  //   Hint: cannot start until the waiting one ends: a deadlock. How can tiles be numbered in the order
  //   Hint: blocks start instead?
  return 0;
}

// The prefix callback: BlockScan calls it from warp 0 (all 32 lanes) with the tile's aggregate (the
// sum of its items), and adds what lane 0 returns to every output of the tile.
// Status words: publish(status, tile, flag, value) and read_state(status, tile) above; the flag
// (word >> 32) is TILE_EMPTY, TILE_AGGREGATE or TILE_PREFIX, the value (the low 32 bits) the tile's
// own sum or its inclusive prefix.
struct Lookback {
  unsigned long long* status;
  int64_t tile;
  WarpReduce::TempStorage& warp_temp;

  __device__ int operator()(int aggregate) {
    const int lane = threadIdx.x % 32;
    // TODO: your code here.
    //   Hint: Your tile needs the sum of every earlier tile, but they finish in any order, some having
    //   Hint: published only their own sum, some their inclusive prefix. How far back must you read, and
    //   Hint: what should you publish, and when, so that later tiles wait as little as possible?
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
  int items[ITEMS];
  // TODO: your code here.
  //   Hint: Claim, load, scan with your look-back as BlockScan's prefix callback, store. What must the
  //   Hint: last, partial tile do differently?
}

// The grader's probe of the look-back alone (given; not part of the exercise).
extern "C" __global__ void __launch_bounds__(BLOCK)
lookback_i32(unsigned long long* tile_status, const long long* __restrict__ tiles,
             const int* __restrict__ aggregates, int* __restrict__ exclusive) {
  __shared__ WarpReduce::TempStorage warp_temp;
  Lookback lookback{tile_status, tiles[blockIdx.x], warp_temp};
  const int prefix = lookback(aggregates[blockIdx.x]);
  if (threadIdx.x == 0) exclusive[blockIdx.x] = prefix;
}
