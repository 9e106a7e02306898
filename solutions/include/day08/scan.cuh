// day08/scan.cuh: the course's decoupled look-back (day 8, exercise 2), which course/scan.cuh gives
// exercise 3 (compact) and later days. The protocol is described in course/scan.cuh.
#pragma once
#include <course/scan.cuh>  // TileFlag (course/scan.cuh includes this header at its end)

namespace course {

// The word is read by other blocks while it changes: a release store (what this thread wrote before
// it is visible to a block that reads the word) and an acquire load (what this thread reads after it
// is at least as new), at GPU scope: the pair of FlashInfer's st_flag_release and ld_flag_acquire
// (include/flashinfer/comm/trtllm_allreduce.cuh), which signal between blocks the same way.
COURSE_INLINE void publish_tile(unsigned long long* status, int64_t tile, TileFlag flag, uint32_t value) {
  const unsigned long long word = (static_cast<unsigned long long>(flag) << 32) | value;
  asm volatile("st.release.gpu.global.u64 [%0], %1;\n" ::"l"(status + tile), "l"(word) : "memory");
}

COURSE_INLINE unsigned long long read_tile(const unsigned long long* status, int64_t tile) {
  unsigned long long word;
  asm volatile("ld.acquire.gpu.global.u64 %0, [%1];\n" : "=l"(word) : "l"(status + tile) : "memory");
  return word;
}

// This block's tile: tiles are numbered in the order blocks START (an atomic counter, zeroed before
// the launch), not by blockIdx, so a tile's look-back only ever waits for blocks already running.
// Call once per block, from every thread.
COURSE_INLINE int64_t claim_tile(unsigned* counter) {
  __shared__ int64_t tile;
  if (threadIdx.x == 0) tile = atomicAdd(counter, 1u);
  __syncthreads();  // tile is set
  return tile;
}

// The decoupled look-back as a cub::BlockScan prefix callback, for 32-bit sums (int or unsigned).
// `status` has one zeroed word per tile; `warp_temp` is the shared storage of a cub::WarpReduce<T>.
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

  // Called by all 32 lanes of warp 0 with the tile's aggregate; returns (in lane 0) the sum of
  // every earlier tile.
  COURSE_INLINE T operator()(T aggregate) {
    const int lane = threadIdx.x % 32;
    if (tile == 0) {
      if (lane == 0) publish_tile(status, 0, TILE_PREFIX, static_cast<uint32_t>(aggregate));
      return T(0);
    }
    if (lane == 0) publish_tile(status, tile, TILE_AGGREGATE, static_cast<uint32_t>(aggregate));
    T exclusive = T(0);
    for (int64_t window = tile - 1;; window -= 32) {
      const int64_t pred = window - lane;  // lane 0 reads the nearest predecessor
      unsigned long long word;
      do {  // wait until all 32 predecessors have published something (tile 0 never waits)
        word = pred >= 0 ? read_tile(status, pred) : (static_cast<unsigned long long>(TILE_PREFIX) << 32);
      } while (__any_sync(0xffffffffu, (word >> 32) == TILE_EMPTY));
      const unsigned prefix_lanes = __ballot_sync(0xffffffffu, (word >> 32) == TILE_PREFIX);
      // Sum the lanes up to the nearest inclusive prefix (all 32 if there is none in this window).
      const int last = prefix_lanes ? __ffs(prefix_lanes) - 1 : 31;
      const T value = lane <= last ? static_cast<T>(static_cast<uint32_t>(word)) : T(0);
      exclusive += WarpReduce(warp_temp).Sum(value);  // valid in lane 0
      __syncwarp();                                   // warp_temp is reused on the next window
      if (prefix_lanes) break;
    }
    if (lane == 0) publish_tile(status, tile, TILE_PREFIX, static_cast<uint32_t>(exclusive + aggregate));
    return exclusive;
  }
};

}  // namespace course
