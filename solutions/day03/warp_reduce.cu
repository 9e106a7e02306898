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
  // BEGIN EXERCISE
  // HINT: one line of inline PTX: shfl.sync.bfly.b32 d, a, b, c, membermask (PTX ISA, "shfl.sync").
  // HINT2: a float in a 32-bit register ("r" after __float_as_uint, or "f" directly); the lane mask an
  // HINT2: "r" input; c = 0x1f (clamp: the whole warp is one segment); membermask 0xffffffff.
  // HINT3: asm volatile("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=f"(r) : "f"(v), "r"(lane_mask));
  // STUB: return v;  // this lane's own value: wrong
  float r;
  asm volatile("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=f"(r) : "f"(v), "r"(lane_mask));
  return r;
  // END EXERCISE
}

COURSE_INLINE float warp_sum(float v) {
  // BEGIN EXERCISE
  // HINT: five exchanges with lane ^ 16, 8, 4, 2, 1 (your shfl_xor); every lane takes part in each.
  // HINT2: #pragma unroll, then for (int mask = 16; mask >= 1; mask /= 2) v += shfl_xor(v, mask);
  // HINT3: xor, not down: after the butterfly EVERY lane holds the sum (all_lanes checks it).
  // STUB: return v;  // only this lane's own value: wrong
#pragma unroll
  for (int mask = 16; mask >= 1; mask /= 2) v += shfl_xor(v, mask);
  return v;
  // END EXERCISE
}

COURSE_INLINE float warp_max(float v) {
  // BEGIN EXERCISE
  // HINT: the same butterfly with fmaxf instead of +.
  // STUB: return v;  // only this lane's own value: wrong
#pragma unroll
  for (int mask = 16; mask >= 1; mask /= 2) v = fmaxf(v, shfl_xor(v, mask));
  return v;
  // END EXERCISE
}

}  // namespace

extern "C" __global__ void warp_reduce(const float* __restrict__ x, float* __restrict__ sums,
                                       float* __restrict__ maxes, float* __restrict__ all_lanes, int n) {
  // BEGIN EXERCISE
  // HINT: lane = threadIdx.x % 32; the warp's group g = global thread id / 32 (the same in all 32 lanes);
  // HINT: a warp whose whole group lies past n returns at once, all 32 lanes together.
  const int lane = threadIdx.x % 32;
  const int64_t g = course::global_thread_id() / 32;
  const int64_t i = g * 32 + lane;
  if (g * 32 >= n) return;  // never `if (i >= n) return;`: half a warp would miss the shuffles
  // HINT: lanes past n must still join the shuffles: give them the identity instead of returning
  // HINT: (0 for the sum, -inf for the max: course::math::inf).
  // HINT: then lane 0 writes sums[g] and maxes[g]; every lane writes its pair into all_lanes.
  // HINT2: const bool valid = i < n; s = warp_sum(valid ? x[i] : 0.f); m = warp_max(valid ? x[i] : -inf);
  // HINT3: all_lanes[2 * i] = s; all_lanes[2 * i + 1] = m;  (i counts lanes past n too: that space exists)
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
