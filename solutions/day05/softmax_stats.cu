// Day 5, exercise 2: a row's softmax statistics in ONE pass over it, one warp per row.
//
//   x: [rows, d] float32      m[r] = max_j x[r, j]      s[r] = sum_j exp(x[r, j] - m[r])
//
// softmax(x)_j = exp(x_j - m) / s: these two numbers are all a softmax needs besides the row itself.
// Exercise 3 finds m in one pass and s in a second; here both come from one, the "online" way that
// FlashAttention and FlashInfer's decode kernels (day 11) use: a state (m, s) = the max of what has been
// seen so far and the sum of exp(x - m) over it. merge combines two states into the state of
// everything both have seen (the lesson derives it); one element x is the state (x, 1), nothing seen
// is (-inf, 0).
//
// Contract: one warp per row, block = (256,) (8 warps, 8 rows), grid = (ceil(rows / 8),); d from 1 to
// 4097 (rows shorter than a warp, too) and inputs up to +-90 (exp would overflow without the shift).
// m must be exact, s within float32's tolerance of a float64 reference. The SASS must show a butterfly
// (SHFL.BFLY) and MUFU.EX2 (fast_exp), no register spills; the course's finished warp reductions
// (course/reduce.cuh, course/warp.cuh) are refused.
#include <course/math.cuh>

namespace {

constexpr int WARP_SIZE = 32;
constexpr unsigned FULL_MASK = 0xffffffffu;

// The max m of the elements seen so far and s = sum of exp(x - m) over them; nothing seen: (-inf, 0).
struct Stats {
  float m;
  float s;
};

COURSE_INLINE float fast_exp(float x) { return course::math::ptx_exp2(x * course::math::log2e); }

// The state of everything that `a` and `b` have seen together.
COURSE_INLINE Stats merge(Stats a, Stats b) {
  // BEGIN EXERCISE
  // HINT: Each sum was taken relative to its own max. If the max grows from m1 to m', how must s1 change
  // HINT: so that it is relative to m'? Which two states could make that computation produce NaN?
  // HINT2: The new max of the two, then the sum of both sums, each rescaled to the new max; a guard for
  // HINT2: the case where neither state has seen anything.
  // HINT3: Two empty states (lanes past a short row) have m = -inf, and -inf - (-inf) is NaN: return one
  // HINT3: of them unchanged when the new max is -inf. A finite new max is safe: exp(-inf - m) = 0.
  // STUB: return a;
  const float m = fmaxf(a.m, b.m);
  if (m == -course::math::inf) return a;  // neither has seen anything
  return {m, a.s * fast_exp(a.m - m) + b.s * fast_exp(b.m - m)};
  // END EXERCISE
}

// The merged state of the warp's 32 lanes, returned to every lane. All 32 lanes must call it.
COURSE_INLINE Stats warp_merge(Stats st) {
  // BEGIN EXERCISE
  // HINT: A warp sum combines values with +; here the values are states and the combination is merge.
  // HINT: What else changes in the butterfly?
  // HINT2: The five-step xor butterfly of day 3; each step exchanges both fields of the state with the
  // HINT2: partner lane and merges the partner's state into this lane's.
  // STUB: return st;  // this lane's own state only: wrong
#pragma unroll
  for (int offset = WARP_SIZE / 2; offset > 0; offset /= 2) {
    const Stats other = {__shfl_xor_sync(FULL_MASK, st.m, offset), __shfl_xor_sync(FULL_MASK, st.s, offset)};
    st = merge(st, other);
  }
  return st;
  // END EXERCISE
}

}  // namespace

extern "C" __global__ void softmax_stats(const float* __restrict__ x, float* __restrict__ m_out,
                                         float* __restrict__ s_out, int rows, int d) {
  const int lane = threadIdx.x % WARP_SIZE;
  // BEGIN EXERCISE
  // HINT: As in warp_scan: which row does this warp own, and who leaves?
  const int64_t row = course::global_thread_id() / WARP_SIZE;  // the same in all 32 lanes of a warp
  if (row >= rows) return;  // whole warps leave together: the shuffles see all 32 lanes
  const float* in = x + row * d;
  // END EXERCISE
  // BEGIN EXERCISE
  // HINT: Each lane folds its share of the row into its own state, then the warp combines the 32 states.
  // HINT: Which elements should a lane take so that the warp's reads are coalesced?
  // HINT2: Start from the empty state; a strided loop over the row (a warp reads 32 consecutive floats per
  // HINT2: step) merging one element at a time; the warp merge; lane 0 writes the row's two results.
  // HINT3: Every lane calls warp_merge, also a lane that saw no element (d < 32): it brings the empty
  // HINT3: state, which merge must leave harmless.
  Stats st = {-course::math::inf, 0.f};
  for (int j = lane; j < d; j += WARP_SIZE) st = merge(st, {in[j], 1.f});
  st = warp_merge(st);
  if (lane == 0) {
    m_out[row] = st.m;
    s_out[row] = st.s;
  }
  // END EXERCISE
}
