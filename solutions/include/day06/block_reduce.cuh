// day06/block_reduce.cuh: the course's two-level block reductions (day 6, exercise 1), which
// course/reduce.cuh gives later days. The two levels are described in course/reduce.cuh.
#pragma once
#include <day03/warp_reduce.cuh>

namespace course {

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
