// Day 8, exercise 2 (with scan.cu): your decoupled look-back, written once. scan.cu includes this header
// from beside it (#include "scan.cuh") and is graded on it; exercise 3 (compact.cu) uses
// course/scan.cuh's LookbackPrefix and claim_tile, which are these: yours, until the course's version
// (kernels/unlocked/day08/) is released. Keep the names and signatures.
//
// A tile's state is one 64-bit word, so that its flag and value are published together: the flag
// (course::TileFlag: TILE_EMPTY = 0, TILE_AGGREGATE = 1, TILE_PREFIX = 2) in the high 32 bits, the
// value in the low 32. Another block reads it while it changes, so the accesses are the memory
// model's: a release store (everything this thread wrote before it is visible to whoever reads the
// word) and an acquire load (what this thread reads after it is at least that new), at GPU scope.
#pragma once
#include <cub/warp/warp_reduce.cuh>

#include <course/scan_status.cuh>

namespace course {

// Publish tile `tile`'s state: `flag` and the 32 bits of `value`, in one release store to status[tile].
COURSE_INLINE void publish_tile(unsigned long long* status, int64_t tile, TileFlag flag, uint32_t value) {
  // BEGIN EXERCISE
  // HINT: Another block may read the state while you write it: how do you make sure it never sees a new
  // HINT: flag with an old value? Which PTX store also makes your earlier writes visible first?
  // HINT2: Pack the flag into the high half and the value into the low half of one 64-bit word, then one
  // HINT2: 64-bit release store at GPU scope in inline PTX (with a "memory" clobber).
  // HINT3: Widen the value as the unsigned 32-bit type it is: a value widened from a negative int would
  // HINT3: sign-extend over the flag.
  const unsigned long long word = (static_cast<unsigned long long>(flag) << 32) | value;
  asm volatile("st.release.gpu.global.u64 [%0], %1;\n" ::"l"(status + tile), "l"(word) : "memory");
  // END EXERCISE
}

// Tile `tile`'s state word, read with an acquire load (a fresh read every call).
COURSE_INLINE unsigned long long read_tile(const unsigned long long* status, int64_t tile) {
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

// The look-back as a cub::BlockScan prefix callback, for 32-bit sums (int or unsigned): BlockScan calls
// it from warp 0 (all 32 lanes) with the tile's aggregate (the sum of its items), and adds what lane 0
// returns to every output of the tile. `status` has one zeroed word per tile; `warp_temp` is the shared
// storage of a cub::WarpReduce<T>. Status words: publish_tile and read_tile above; the flag (word >> 32)
// is TILE_EMPTY, TILE_AGGREGATE or TILE_PREFIX, the value (the low 32 bits) the tile's own sum or its
// inclusive prefix.
template <typename T>
struct LookbackPrefix {
  static_assert(sizeof(T) == 4, "the tile status packs a 32-bit value beside its flag");
  using WarpReduce = cub::WarpReduce<T>;

  unsigned long long* status;
  int64_t tile;
  typename WarpReduce::TempStorage& warp_temp;

  COURSE_INLINE LookbackPrefix(unsigned long long* status, int64_t tile,
                               typename WarpReduce::TempStorage& warp_temp)
      : status(status), tile(tile), warp_temp(warp_temp) {}

  COURSE_INLINE T operator()(T aggregate) {
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
    // STUB: return T(0);
    T exclusive = T(0);  // tile 0 has nothing before it
    if (tile > 0 && lane == 0) {
      publish_tile(status, tile, TILE_AGGREGATE, static_cast<uint32_t>(aggregate));
    }
    for (int64_t window = tile - 1; window >= 0; window -= 32) {
      const int64_t pred = window - lane;
      unsigned long long word;
      do {
        word = pred >= 0 ? read_tile(status, pred)
                         : static_cast<unsigned long long>(TILE_PREFIX) << 32;
      } while (__any_sync(0xffffffffu, (word >> 32) == TILE_EMPTY));
      const unsigned p = __ballot_sync(0xffffffffu, (word >> 32) == TILE_PREFIX);
      const int last = p ? __ffs(p) - 1 : 31;
      exclusive += WarpReduce(warp_temp).Sum(lane <= last ? static_cast<T>(static_cast<uint32_t>(word)) : T(0));
      __syncwarp();
      if (p) break;
    }
    if (lane == 0) publish_tile(status, tile, TILE_PREFIX, static_cast<uint32_t>(exclusive + aggregate));
    return exclusive;
    // END EXERCISE
  }
};

}  // namespace course
