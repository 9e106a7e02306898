// course/warp.cuh: warp-level programming beyond the butterfly: shuffles up / down / idx, votes,
// lane masks, and the warp scan (day 5).
//
// Modelled on the warp helpers of FlashInfer's include/flashinfer/utils.cuh and math.cuh. A warp's 32
// lanes run one instruction stream, and the *_sync intrinsics let them read each other's registers:
//
//   __shfl_sync(mask, v, src)        every lane gets lane src's v                 (SASS: SHFL.IDX)
//   __shfl_up_sync(mask, v, delta)   lane i gets lane i - delta's v (lanes < delta keep their own: SHFL.UP)
//   __shfl_down_sync(mask, v, delta) lane i gets lane i + delta's v (lanes >= 32 - delta keep theirs: SHFL.DOWN)
//   __shfl_xor_sync(mask, v, m)      lane i gets lane i ^ m's v, the butterfly of course/reduce.cuh (SHFL.BFLY)
//   __ballot_sync(mask, pred)        a 32-bit word, bit i = lane i's pred          (SASS: VOTE.ANY R)
//   __any_sync / __all_sync          does any / every lane have pred?              (SASS: VOTE.ANY / VOTE.ALL)
//
// `mask` names the lanes that take part; every one of them must execute the same call. The course
// always passes FULL_MASK and keeps all 32 lanes of a warp together (lanes past the data take part
// with a neutral value instead of leaving early).
//
// Framework-free and header-only; later days (attention, CUB comparisons) reuse it.
#pragma once
#include "math.cuh"
#include "reduce.cuh"

namespace course {

// This thread's lane (0..31) in its warp, for a 1-D block.
COURSE_INLINE int lane_id() { return threadIdx.x % WARP_SIZE; }

// The lanes below this one, as a bit mask: bit j set for every j < lane. Read from the PTX special
// register %lanemask_lt with one line of inline asm (day 3); (1u << lane) - 1 computes the same.
COURSE_INLINE uint32_t lanemask_lt() {
  uint32_t mask;
  asm("mov.u32 %0, %%lanemask_lt;" : "=r"(mask));  // %% is a literal % in an asm string with operands
  return mask;
}

// Lane src's value, given to every lane (SHFL.IDX).
template <typename T>
COURSE_INLINE T warp_broadcast(T v, int src) {
  return __shfl_sync(FULL_MASK, v, src);
}

// Inclusive prefix sum over the warp: lane i gets v(0) + ... + v(i). Five steps of shfl_up
// (Hillis-Steele): after the step with offset d each lane holds the sum of the 2d values ending at it.
// All 32 lanes must call it.
template <typename T>
COURSE_INLINE T warp_inclusive_scan(T v) {
  const int lane = lane_id();
#pragma unroll
  for (int offset = 1; offset < WARP_SIZE; offset *= 2) {
    const T up = __shfl_up_sync(FULL_MASK, v, offset);
    if (lane >= offset) v += up;  // the lanes below `offset` got their own value back: skip it
  }
  return v;
}

// Exclusive prefix sum: lane i gets v(0) + ... + v(i - 1), lane 0 gets 0.
template <typename T>
COURSE_INLINE T warp_exclusive_scan(T v) {
  return warp_inclusive_scan(v) - v;
}

// Where this lane's item goes among the warp's items that keep `pred`, in lane order:
// rank = how many lower lanes keep theirs, count = how many lanes keep theirs (the same in every lane).
// One ballot, two popcounts (SASS: VOTE.ANY, POPC): the step stream compaction is made of.
struct WarpRank {
  int rank;
  int count;
};
COURSE_INLINE WarpRank warp_rank(bool pred) {
  const uint32_t votes = __ballot_sync(FULL_MASK, pred);
  return {__popc(votes & lanemask_lt()), __popc(votes)};
}

}  // namespace course
