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
// finished one (LookbackPrefix) for the next exercise.
//
//   lookback_i32  grid = (number of probed tiles,), block = (32,): the grader's probe of your
//                 look-back alone: block b runs it for tile tiles[b] with aggregate aggregates[b],
//                 against tile states the grader published beforehand in a random mix of aggregates
//                 and inclusive prefixes, as blocks finishing in any order leave them.
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
  // HINT: pack (flag << 32) | (the value's 32 bits) into one word and store it with ONE
  // HINT: st.release.gpu.global.u64 (inline PTX): a flag never appears without its value.
  // HINT2: const unsigned long long word = (static_cast<unsigned long long>(flag) << 32) | static_cast<uint32_t>(value);
  // HINT2: asm volatile("st.release.gpu.global.u64 [%0], %1;" :: "l"(status + tile), "l"(word) : "memory");
  // HINT3: cast the value through uint32_t: a negative int would otherwise sign-extend over the flag.
  const unsigned long long word = (static_cast<unsigned long long>(flag) << 32) | static_cast<uint32_t>(value);
  asm volatile("st.release.gpu.global.u64 [%0], %1;\n" ::"l"(status + tile), "l"(word) : "memory");
  // END EXERCISE
}

COURSE_INLINE unsigned long long read_state(const unsigned long long* status, int64_t tile) {
  // BEGIN EXERCISE
  // HINT: one ld.acquire.gpu.global.u64 (inline PTX): never a cached or compiler-hoisted copy, since
  // HINT: the look-back reads the same word again and again until another block changes it.
  // HINT2: unsigned long long word; asm volatile("ld.acquire.gpu.global.u64 %0, [%1];"
  // HINT2:     : "=l"(word) : "l"(status + tile) : "memory"); return word;
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
  // HINT: a tile numbered by blockIdx.x may wait on a block that has not started and, on a full GPU,
  // HINT: cannot start until the waiting one ends: a deadlock. Numbers handed out in start order only
  // HINT: ever make a tile wait for blocks already running.
  // HINT2: if (threadIdx.x == 0) tile = atomicAdd(counter, 1u); __syncthreads(); return tile;
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
    // HINT: publish this tile's aggregate at once (later tiles can use it before this one knows its
    // HINT: prefix), then walk back over the predecessors 32 at a time, one per lane, adding their
    // HINT: values up to the nearest one that already holds an inclusive prefix; then publish yours.
    // HINT2: tile 0: lane 0 publishes TILE_PREFIX with its aggregate; return 0.
    // HINT2: other tiles: lane 0 publishes TILE_AGGREGATE, then for window = tile - 1, tile - 33, ...:
    // HINT2:   lane l reads tile (window - l) with read_state (a negative index counts as TILE_PREFIX
    // HINT2:   with value 0: don't read it); spin until no lane sees TILE_EMPTY (__any_sync);
    // HINT2:   p = __ballot_sync(0xffffffff, flag == TILE_PREFIX); the nearest prefix is lane __ffs(p) - 1;
    // HINT2:   add up the values of lanes 0 .. that lane (all 32 if p == 0) with
    // HINT2:   WarpReduce(warp_temp).Sum(v) (the sum is valid in lane 0), then __syncwarp();
    // HINT2:   stop if p != 0, else go on to the next window.
    // HINT2: Finally lane 0 publishes TILE_PREFIX with exclusive + aggregate, and returns exclusive.
    // HINT3: the spin re-reads the whole window: do { word = read_state(...) } while (__any_sync(
    // HINT3: 0xffffffffu, (word >> 32) == course::TILE_EMPTY)); every lane loops until all 32 are set.
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
  // HINT: claim the tile, load it, scan it with your look-back as BlockScan's prefix callback, store it.
  // HINT2: 0. tile = claim_tile(tile_counter) (not blockIdx.x); base = tile * TILE; valid = the items
  // HINT2:    of this tile that exist, TILE but for the last tile.
  // HINT2: 1. A full tile: BlockLoad(temp.load).Load(in + base, items); the last one:
  // HINT2:    .Load(in + base, items, valid, 0) (0 past the end, so the tile's sum is right).
  // HINT2: 2. __syncthreads() (temp is shared by load, scan and store), then
  // HINT2:    Lookback prefix{tile_status, tile, warp_temp};
  // HINT2:    BlockScan(temp.scan).ExclusiveSum(items, items, prefix);
  // HINT2: 3. __syncthreads(), then BlockStore(temp.store).Store(out + base, items[, valid]).
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
