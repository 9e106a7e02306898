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

// The sum of `v` over the 32 lanes of a warp, returned to every lane. All 32 lanes must call it.
COURSE_INLINE float warp_reduce_sum(float v) {
#pragma unroll
  for (int offset = WARP_SIZE / 2; offset > 0; offset /= 2) {
    v += __shfl_xor_sync(FULL_MASK, v, offset);  // lane i adds lane i ^ offset's value
  }
  return v;
}

// The maximum of `v` over the 32 lanes of a warp, returned to every lane. All 32 lanes must call it.
COURSE_INLINE float warp_reduce_max(float v) {
#pragma unroll
  for (int offset = WARP_SIZE / 2; offset > 0; offset /= 2) {
    v = fmaxf(v, __shfl_xor_sync(FULL_MASK, v, offset));
  }
  return v;
}

namespace detail {
template <int NUM_WARPS, bool MAX>
COURSE_INLINE float block_reduce(float v, float* smem) {
  static_assert(NUM_WARPS >= 1 && NUM_WARPS <= WARP_SIZE, "a block has 1 to 32 warps");
  const int lane = threadIdx.x % WARP_SIZE, warp = threadIdx.x / WARP_SIZE;
  v = MAX ? warp_reduce_max(v) : warp_reduce_sum(v);
  if (lane == 0) smem[warp] = v;
  __syncthreads();  // every warp's partial is in shared memory
  const float identity = MAX ? __int_as_float(0xff800000) : 0.f;  // -inf or 0
  v = lane < NUM_WARPS ? smem[lane] : identity;
  v = MAX ? warp_reduce_max(v) : warp_reduce_sum(v);
  __syncthreads();  // everyone has read smem: the caller may reuse it (or call again) safely
  return v;
}
}  // namespace detail

// The sum of `v` over a 1-D block of exactly NUM_WARPS * 32 threads, returned to every thread.
// `smem` holds at least NUM_WARPS floats of shared memory. Every thread of the block must call it
// (it has barriers), so never call it from inside `if (tid < n)`.
template <int NUM_WARPS>
COURSE_INLINE float block_reduce_sum(float v, float* smem) {
  return detail::block_reduce<NUM_WARPS, false>(v, smem);
}

// The maximum of `v` over the block, with the same contract as block_reduce_sum.
template <int NUM_WARPS>
COURSE_INLINE float block_reduce_max(float v, float* smem) {
  return detail::block_reduce<NUM_WARPS, true>(v, smem);
}

}  // namespace course
