// day03/warp_reduce.cuh: the course's warp reductions (day 3, exercise 2), which course/reduce.cuh
// gives later days. The butterfly is described in course/reduce.cuh.
#pragma once
#include <course/reduce.cuh>  // WARP_SIZE, FULL_MASK (course/reduce.cuh includes this header at its end)

namespace course {

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

}  // namespace course
