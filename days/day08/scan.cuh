// Your exercise file. Generated from solutions/day08/scan.cuh by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: 5f1b13bf28ca2f8c
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
  // TODO: your code here.
  //   Hint: Another block may read the state while you write it: how do you make sure it never sees a new
  //   Hint: flag with an old value? Which PTX store also makes your earlier writes visible first?
}

// Tile `tile`'s state word, read with an acquire load (a fresh read every call).
COURSE_INLINE unsigned long long read_tile(const unsigned long long* status, int64_t tile) {
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
    // TODO: your code here.
    //   Hint: Your tile needs the sum of every earlier tile, but they finish in any order, some having
    //   Hint: published only their own sum, some their inclusive prefix. How far back must you read, and
    //   Hint: what should you publish, and when, so that later tiles wait as little as possible?
    return T(0);
  }
};

}  // namespace course
