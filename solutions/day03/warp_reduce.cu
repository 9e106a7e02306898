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
  // BEGIN EXERCISE
  // HINT: Read "shfl.sync" in the PTX ISA: which mode gives each lane the value of lane (its own ^ mask)?
  // HINT: What do its operands b, c and membermask mean for a whole-warp exchange?
  // HINT2: One asm statement: a 32-bit output, the value and the lane mask as inputs, and two constants
  // HINT2: (the clamp/segment operand and the member mask) written into the instruction string.
  // HINT3: For bfly, c packs the segment mask (high bits, 0: one segment of 32 lanes) and the clamp value
  // HINT3: (low 5 bits, 31); membermask has a bit for every lane that runs the instruction: all 32 here.
  // STUB: return v;  // this lane's own value: wrong
  float r;
  asm volatile("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=f"(r) : "f"(v), "r"(lane_mask));
  return r;
  // END EXERCISE
}

COURSE_INLINE float warp_sum(float v) {
  // BEGIN EXERCISE
  // HINT: If every lane adds the value of its partner lane ^ 16, what does each lane hold? And after
  // HINT: partners ^ 8, ^ 4, ^ 2, ^ 1?
  // HINT2: Five exchange-and-add steps with your shfl_xor, the partner distance halving each time; every
  // HINT2: lane takes part in every step.
  // HINT3: xor, not down: with shfl down only lane 0 ends with the sum, and all_lanes checks every lane.
  // HINT3: After the step with mask m, each lane holds the sum of the 2m lanes sharing its upper bits.
  // STUB: return v;  // only this lane's own value: wrong
#pragma unroll
  for (int mask = 16; mask >= 1; mask /= 2) v += shfl_xor(v, mask);
  return v;
  // END EXERCISE
}

COURSE_INLINE float warp_max(float v) {
  // BEGIN EXERCISE
  // HINT: The same butterfly: which operation combines two partial maxima?
  // STUB: return v;  // only this lane's own value: wrong
#pragma unroll
  for (int mask = 16; mask >= 1; mask /= 2) v = fmaxf(v, shfl_xor(v, mask));
  return v;
  // END EXERCISE
}

}  // namespace

extern "C" __global__ void warp_reduce(const float* __restrict__ x, float* __restrict__ sums,
                                       float* __restrict__ maxes, float* __restrict__ all_lanes, int n) {
  const int lane = threadIdx.x % 32;
  // BEGIN EXERCISE
  // HINT: Which warp owns which group, and which lane which element? A lane past n has no element but
  // HINT: its warp still needs it in every exchange: what value can it bring that changes no sum and no max?
  // HINT2: The group from the thread's index; a warp whose whole group lies past n leaves, all its
  // HINT2: lanes together; every remaining lane reduces its value (or the identity); lane 0 writes the
  // HINT2: group's two results, every lane its own pair in all_lanes.
  // HINT3: Never return per lane (an element past n): half a warp would then miss the shuffles, whose
  // HINT3: member mask names all 32 lanes. The identities are 0 for + and -inf for max (course::math::inf).
  // HINT3: all_lanes has room for 32 pairs per group, so lanes past n write theirs too.
  const int64_t g = course::global_thread_id() / 32;
  const int64_t i = g * 32 + lane;
  if (g * 32 >= n) return;  // never `if (i >= n) return;`: half a warp would miss the shuffles
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
