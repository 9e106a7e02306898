// Generated from solutions/day08/scan.cuh by `python -m grader stubs` (edit that file): the course's version,
// which later days' course headers include and `grader unlock` releases.
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
  const unsigned long long word = (static_cast<unsigned long long>(flag) << 32) | value;
  asm volatile("st.release.gpu.global.u64 [%0], %1;\n" ::"l"(status + tile), "l"(word) : "memory");
}

// Tile `tile`'s state word, read with an acquire load (a fresh read every call).
COURSE_INLINE unsigned long long read_tile(const unsigned long long* status, int64_t tile) {
  unsigned long long word;
  asm volatile("ld.acquire.gpu.global.u64 %0, [%1];\n" : "=l"(word) : "l"(status + tile) : "memory");
  return word;
}

// This block's tile, in the order blocks START: thread 0 takes the next number from the counter
// (zeroed before the launch) and shares it. Call once per block, from every thread.
COURSE_INLINE int64_t claim_tile(unsigned* counter) {
  __shared__ int64_t tile;
  if (threadIdx.x == 0) tile = atomicAdd(counter, 1u);
  __syncthreads();
  return tile;
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
  }
};

}  // namespace course
