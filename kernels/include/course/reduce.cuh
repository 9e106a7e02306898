// course/reduce.cuh: warp and block reductions, the two levels every row-wise kernel needs (day 6).
//
// Modelled on the reductions inside FlashInfer's include/flashinfer/norm.cuh (and math.cuh's shfl_xor):
//
//   level 1, warp:  32 lanes combine in registers with a butterfly of __shfl_xor_sync, 5 steps
//                   (offsets 16, 8, 4, 2, 1); afterwards EVERY lane holds the warp's result.
//   level 2, block: lane 0 of each warp writes its result to shared memory, one barrier, then each
//                   warp reads the NUM_WARPS partials and reduces them with the same butterfly, so
//                   every thread of the block ends with the block's result (no second broadcast).
//
// Framework-free and header-only; later days (softmax, attention) reuse it.
#pragma once
#include "common.cuh"

namespace course {

constexpr int WARP_SIZE = 32;
constexpr unsigned FULL_MASK = 0xffffffffu;  // all 32 lanes take part in the shuffle

}  // namespace course

// warp_reduce_sum / warp_reduce_max(v): the sum / maximum of v over the 32 lanes, returned to every
// lane (all 32 must call it), are day 3's exercise 2. block_reduce_sum / block_reduce_max<NUM_WARPS>(v,
// smem): the same over a 1-D block of exactly NUM_WARPS * 32 threads, returned to every thread, with
// smem at least NUM_WARPS floats of shared memory, safe to reuse after the call (every thread must call
// it: it has barriers, so never from inside `if (tid < n)`), are day 6's exercise 1. The course's
// versions come from those days' headers once you pass them.
#if __has_include(<day03/warp_reduce.cuh>)
#include <day03/warp_reduce.cuh>
#else
namespace course {
template <typename T> COURSE_INLINE T warp_reduce_sum(T v) {
  COURSE_LOCKED(T, "course::warp_reduce_sum", "day03", "warp_reduce.cu");
  return v;
}
template <typename T> COURSE_INLINE T warp_reduce_max(T v) {
  COURSE_LOCKED(T, "course::warp_reduce_max", "day03", "warp_reduce.cu");
  return v;
}
}  // namespace course
#endif
#if __has_include(<day06/block_reduce.cuh>)
#include <day06/block_reduce.cuh>
#else
namespace course {
template <int NUM_WARPS, typename T> COURSE_INLINE T block_reduce_sum(T v, T*) {
  COURSE_LOCKED(T, "course::block_reduce_sum", "day06", "block_sum.cu");
  return v;
}
template <int NUM_WARPS, typename T> COURSE_INLINE T block_reduce_max(T v, T*) {
  COURSE_LOCKED(T, "course::block_reduce_max", "day06", "block_sum.cu");
  return v;
}
}  // namespace course
#endif
