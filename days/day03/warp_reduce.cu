// Your exercise file. Generated from solutions/day03/warp_reduce.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: 7832cf6b377ececc
// Day 3, exercise 2: butterfly reduction across a warp with __shfl_xor_sync.
//
//   group g = x[32g .. 32g + 31] (the last group may be partial)
//   sums[g] = sum of group g,  maxes[g] = max of group g              (written by lane 0)
//   all_lanes[2 * (32g + lane)] = sum, all_lanes[2 * (32g + lane) + 1] = max   (written by every lane)
//
// One warp per group: lane l holds x[32g + l]. After five exchanges with lane ^ 16, 8, 4, 2, 1 every
// lane holds the whole group's result (a tree that every lane walks at once), with no shared memory.
// The exchange itself is yours too: shfl_xor in one line of inline PTX (shfl.sync.bfly.b32), which is
// what __shfl_xor_sync and course::math::shfl_xor_sync compile to (those are not allowed here).
// all_lanes checks that every lane, not only lane 0, ends with the result. The grader launches
// block = (256,) (8 warps) and grid = (ceil(groups / 8),).
#include <course/math.cuh>

namespace {

// The value of v in lane (this lane ^ lane_mask), for all 32 lanes (SASS: SHFL.BFLY).
COURSE_INLINE float shfl_xor(float v, int lane_mask) {
  // TODO: your code here.
  //   Hint: one line of inline PTX: shfl.sync.bfly.b32 d, a, b, c, membermask (PTX ISA, "shfl.sync").
  return v;  // this lane's own value: wrong
}

COURSE_INLINE float warp_sum(float v) {
  // TODO: your code here.
  //   Hint: five exchanges with lane ^ 16, 8, 4, 2, 1 (your shfl_xor); every lane takes part in each.
  return v;  // only this lane's own value: wrong
}

COURSE_INLINE float warp_max(float v) {
  // TODO: your code here.
  //   Hint: the same butterfly with fmaxf instead of +.
  return v;  // only this lane's own value: wrong
}

}  // namespace

extern "C" __global__ void warp_reduce(const float* __restrict__ x, float* __restrict__ sums,
                                       float* __restrict__ maxes, float* __restrict__ all_lanes, int n) {
  // TODO: your code here.
  //   Hint: lane = threadIdx.x % 32; the warp's group g = global thread id / 32 (the same in all 32 lanes);
  //   Hint: a warp whose whole group lies past n returns at once, all 32 lanes together.
  //   Hint: lanes past n must still join the shuffles: give them the identity instead of returning
  //   Hint: (0 for the sum, -inf for the max: course::math::inf).
  //   Hint: then lane 0 writes sums[g] and maxes[g]; every lane writes its pair into all_lanes.
}
