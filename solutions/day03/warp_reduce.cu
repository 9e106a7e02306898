// Day 3, exercise 2: butterfly reduction across a warp with __shfl_xor_sync.
//
//   group g = x[32g .. 32g + 31] (the last group may be partial)
//   sums[g] = sum of group g,  maxes[g] = max of group g              (written by lane 0)
//   all_lanes[2 * (32g + lane)] = sum, all_lanes[2 * (32g + lane) + 1] = max   (written by every lane)
//
// One warp per group: lane l holds x[32g + l]. After five exchanges with lane ^ 16, 8, 4, 2, 1 every
// lane holds the whole group's result (a tree that every lane walks at once), with no shared memory.
// all_lanes checks that every lane, not only lane 0, ends with the result. The grader launches
// block = (256,) (8 warps) and grid = (ceil(groups / 8),).
#include <course/math.cuh>

namespace {

COURSE_INLINE float warp_sum(float v) {
  // BEGIN EXERCISE
  // HINT: for (int mask = 16; mask >= 1; mask /= 2) v += course::math::shfl_xor_sync(v, mask);
  // HINT: (or __shfl_xor_sync(0xffffffff, v, mask) directly). Every lane must take part in every step.
  // STUB: return v;  // only this lane's own value: wrong
#pragma unroll
  for (int mask = 16; mask >= 1; mask /= 2) v += course::math::shfl_xor_sync(v, mask);
  return v;
  // END EXERCISE
}

COURSE_INLINE float warp_max(float v) {
  // BEGIN EXERCISE
  // HINT: the same butterfly with fmaxf instead of +.
  // STUB: return v;  // only this lane's own value: wrong
#pragma unroll
  for (int mask = 16; mask >= 1; mask /= 2) v = fmaxf(v, course::math::shfl_xor_sync(v, mask));
  return v;
  // END EXERCISE
}

}  // namespace

extern "C" __global__ void warp_reduce(const float* __restrict__ x, float* __restrict__ sums,
                                       float* __restrict__ maxes, float* __restrict__ all_lanes, int n) {
  const int lane = threadIdx.x % 32;
  const int64_t g = course::global_thread_id() / 32;  // this warp's group: the same in all 32 lanes
  const int64_t i = g * 32 + lane;
  if (g * 32 >= n) return;  // a whole warp past the end leaves together (never half a warp)
  // BEGIN EXERCISE
  // HINT: lanes past n must still join the shuffles: give them the identity instead of returning
  // HINT: (0 for the sum, -inf for the max: course::math::inf).
  // HINT: then lane 0 writes sums[g] and maxes[g]; every lane writes its pair into all_lanes.
  const bool valid = i < n;
  const float s = warp_sum(valid ? x[i] : 0.f);
  const float m = warp_max(valid ? x[i] : -course::math::inf);
  if (lane == 0) {
    sums[g] = s;
    maxes[g] = m;
  }
  all_lanes[2 * i] = s;
  all_lanes[2 * i + 1] = m;
  // END EXERCISE
}
