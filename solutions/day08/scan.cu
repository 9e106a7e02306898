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
  // BEGIN EXERCISE
  // HINT: Another block may read the state while you write it: how do you make sure it never sees a new
  // HINT: flag with an old value? Which PTX store also makes your earlier writes visible first?
  // HINT2: Pack the flag into the high half and the value into the low half of one 64-bit word, then one
  // HINT2: 64-bit release store at GPU scope in inline PTX (with a "memory" clobber).
  // HINT3: Convert the value through an unsigned 32-bit type before widening: a negative int would
  // HINT3: otherwise sign-extend over the flag.
  const unsigned long long word = (static_cast<unsigned long long>(flag) << 32) | static_cast<uint32_t>(value);
  asm volatile("st.release.gpu.global.u64 [%0], %1;\n" ::"l"(status + tile), "l"(word) : "memory");
  // END EXERCISE
}

COURSE_INLINE unsigned long long read_state(const unsigned long long* status, int64_t tile) {
  // BEGIN EXERCISE
  // HINT: The look-back reads the same word again and again until another block changes it: what must
  // HINT: the load be so that it is never a cached or hoisted copy, and sees what the publisher released?
  // HINT2: One 64-bit acquire load at GPU scope in inline PTX: a 64-bit output, the address as input, a
  // HINT2: "memory" clobber.
  // STUB: return 0;
  unsigned long long word;
  asm volatile("ld.acquire.gpu.global.u64 %0, [%1];\n" : "=l"(word) : "l"(status + tile) : "memory");
  return word;
  // END EXERCISE
}

// This block's tile, in the order blocks START: thread 0 takes the next number from the counter
// (zeroed before the launch) and shares it. Call once per block, from every thread.
COURSE_INLINE int64_t claim_tile(unsigned* counter) {
  __shared__ int64_t tile;
  // BEGIN EXERCISE
  // HINT: A tile numbered by blockIdx.x may wait on a block that has not started and, on a full GPU,
  // HINT: cannot start until the waiting one ends: a deadlock. How can tiles be numbered in the order
  // HINT: blocks start instead?
  // HINT2: One thread takes the next number from the counter atomically and shares it with the block
  // HINT2: through shared memory; a barrier before everyone reads it.
  // STUB: return 0;
  if (threadIdx.x == 0) tile = atomicAdd(counter, 1u);
  __syncthreads();
  return tile;
  // END EXERCISE
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
    // BEGIN EXERCISE
    // HINT: Your tile needs the sum of every earlier tile, but they finish in any order, some having
    // HINT: published only their own sum, some their inclusive prefix. How far back must you read, and
    // HINT: what should you publish, and when, so that later tiles wait as little as possible?
    // HINT2: Tile 0 publishes its prefix at once and returns 0. Any other tile: publish its aggregate first;
    // HINT2: then walk back over the predecessors a window of 32 at a time, one per lane: wait until no
    // HINT2: lane sees an empty state, find the nearest predecessor holding a prefix, add up the values from
    // HINT2: the tile just before yours back to it (or the whole window, if none), and stop once a prefix
    // HINT2: was found. Finally publish your inclusive prefix and return the exclusive one.
    // HINT3: The wait re-reads the whole window until all 32 lanes see a non-empty state (a warp vote on
    // HINT3: "some lane still empty"), so every lane stays in the loop together. Lane l reads tile
    // HINT3: window - l: lane 0 is the nearest, so the lowest set bit of the ballot of "holds a prefix" is
    // HINT3: the nearest prefix; lanes past it must add 0. A predecessor index below 0 must not be read:
    // HINT3: treat it as a prefix of value 0. The warp sum reuses shared storage: __syncwarp before the
    // HINT3: next window.
    // STUB: return 0;
    int exclusive = 0;  // tile 0 has nothing before it
    if (tile > 0 && lane == 0) {
      publish(status, tile, course::TILE_AGGREGATE, aggregate);
    }
    for (int64_t window = tile - 1; window >= 0; window -= 32) {
      const int64_t pred = window - lane;
      unsigned long long word;
      do {
        word = pred >= 0 ? read_state(status, pred)
                         : static_cast<unsigned long long>(course::TILE_PREFIX) << 32;
      } while (__any_sync(0xffffffffu, (word >> 32) == course::TILE_EMPTY));
      const unsigned p = __ballot_sync(0xffffffffu, (word >> 32) == course::TILE_PREFIX);
      const int last = p ? __ffs(p) - 1 : 31;
      exclusive += WarpReduce(warp_temp).Sum(lane <= last ? static_cast<int>(word) : 0);
      __syncwarp();
      if (p) break;
    }
    if (lane == 0) publish(status, tile, course::TILE_PREFIX, exclusive + aggregate);
    return exclusive;
    // END EXERCISE
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
  // BEGIN EXERCISE
  // HINT: Claim, load, scan with your look-back as BlockScan's prefix callback, store. What must the
  // HINT: last, partial tile do differently?
  // HINT2: The tile from claim_tile (not blockIdx.x), its first item and how many of its items exist; the
  // HINT2: load (a guarded form with 0 past the end for a partial tile); a barrier, since load, scan and
  // HINT2: store share temp; the exclusive scan with the Lookback callback; a barrier; the store (guarded
  // HINT2: for a partial tile).
  // HINT3: Items past the end must load as 0, or the tile's aggregate (published to later tiles) is wrong
  // HINT3: although no output shows it.
  const int64_t tile = claim_tile(tile_counter);  // in the order blocks start
  const int64_t base = tile * TILE;
  const int valid = n - base < TILE ? static_cast<int>(n - base) : TILE;  // items in this tile
  if (valid == TILE) {
    BlockLoad(temp.load).Load(in + base, items);
  } else {
    BlockLoad(temp.load).Load(in + base, items, valid, 0);
  }
  __syncthreads();
  Lookback prefix{tile_status, tile, warp_temp};
  BlockScan(temp.scan).ExclusiveSum(items, items, prefix);
  __syncthreads();
  if (valid == TILE) {
    BlockStore(temp.store).Store(out + base, items);
  } else {
    BlockStore(temp.store).Store(out + base, items, valid);
  }
  // END EXERCISE
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
