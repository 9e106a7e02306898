// Your exercise file. Generated from solutions/day03/warp_reduce.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: 6062743be47e3ff0
// Day 3, exercise 2: butterfly reduction across a warp, with your own shuffle in inline PTX.
//
//   group g = x[32g .. 32g + 31] (the last group may be partial)
//   sums[g] = sum of group g,  maxes[g] = max of group g              (written by lane 0)
//   all_lanes[2 * (32g + lane)] = sum, all_lanes[2 * (32g + lane) + 1] = max   (written by every lane)
//
// One warp per group, lane l holding x[32g + l]; at the end every lane holds the whole group's sum and
// max (all_lanes checks that every lane, not only lane 0, ends with the result), with no shared memory.
// The exchange itself is yours too: shfl_xor in one line of inline PTX (shfl.sync.bfly.b32), which is
// what __shfl_xor_sync and course::math::shfl_xor_sync compile to (those are not allowed here; the SASS
// must show SHFL.BFLY and no shared-memory access). The grader launches block = (256,) (8 warps) and
// grid = (ceil(groups / 8),); n from 1 to 2^20 + 5, so the last group is often partial; results are
// compared with float64 sums (within float32 rounding) and exact maxima.
#include <course/math.cuh>

namespace {

// The value of v in lane (this lane ^ lane_mask), for all 32 lanes (SASS: SHFL.BFLY).
COURSE_INLINE float shfl_xor(float v, int lane_mask) {
  // TODO: your code here.
  //   Hint: Read "shfl.sync" in the PTX ISA: which mode gives each lane the value of lane (its own ^ mask)?
  //   Hint: What do its operands b, c and membermask mean for a whole-warp exchange?
  return v;  // this lane's own value: wrong
}

COURSE_INLINE float warp_sum(float v) {
  // TODO: your code here.
  //   Hint: If every lane adds the value of its partner lane ^ 16, what does each lane hold? And after
  //   Hint: partners ^ 8, ^ 4, ^ 2, ^ 1?
  return v;  // only this lane's own value: wrong
}

COURSE_INLINE float warp_max(float v) {
  // TODO: your code here.
  //   Hint: The same butterfly: which operation combines two partial maxima?
  return v;  // only this lane's own value: wrong
}

}  // namespace

extern "C" __global__ void warp_reduce(const float* __restrict__ x, float* __restrict__ sums,
                                       float* __restrict__ maxes, float* __restrict__ all_lanes, int n) {
  const int lane = threadIdx.x % 32;
  // TODO: your code here.
  //   Hint: Which warp owns which group, and which lane which element? A lane past n has no element but
  //   Hint: its warp still needs it in every exchange: what value can it bring that changes no sum and no max?
}
