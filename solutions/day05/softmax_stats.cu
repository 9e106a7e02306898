// Day 5, exercise 2: a row's softmax statistics in ONE pass over it, one warp per row.
//
//   x: [rows, d] float32      m[r] = max_j x[r, j]      s[r] = sum_j exp(x[r, j] - m[r])
//
// softmax(x)_j = exp(x_j - m) / s: these two numbers are all a softmax needs besides the row itself.
// Exercise 3 finds m in one pass and s in a second; here both come from one, the "online" way that
// FlashAttention and FlashInfer's decode kernels (day 11) use: a state (m, s) = the max of what has been
// seen so far and the sum of exp(x - m) over it. A new max m' rescales the old sum by exp(m - m'):
//
//   merge((m1, s1), (m2, s2)) = (m', s1 * exp(m1 - m') + s2 * exp(m2 - m')),   m' = max(m1, m2)
//
// One element x is the state (x, 1). Each lane merges its elements j = lane, lane + 32, ... into its
// own state; then a butterfly of __shfl_xor_sync merges the 32 lanes' states (the same 5 steps as a
// warp sum, with merge in place of +). Exponentials: one MUFU.EX2 each, exp(x) = 2^(x * log2(e)).
// The grader launches block = (256,) (8 warps, 8 rows) and grid = (ceil(rows / 8),).
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
  // HINT: the new max is the larger of the two; each sum was taken relative to its own max, so scale
  // HINT: it by exp(its max - the new max) (a factor <= 1) before adding.
  // HINT2: const float m = fmaxf(a.m, b.m); return {m, a.s * fast_exp(a.m - m) + b.s * fast_exp(b.m - m)};
  // HINT3: two empty states (lanes past a short row): m = -inf and -inf - (-inf) is NaN. Return one of
  // HINT3: them unchanged when m == -course::math::inf. (A finite m is safe: exp(-inf - m) = 0.)
  // STUB: return a;
  const float m = fmaxf(a.m, b.m);
  if (m == -course::math::inf) return a;  // neither has seen anything
  return {m, a.s * fast_exp(a.m - m) + b.s * fast_exp(b.m - m)};
  // END EXERCISE
}

// The merged state of the warp's 32 lanes, returned to every lane. All 32 lanes must call it.
COURSE_INLINE Stats warp_merge(Stats st) {
  // BEGIN EXERCISE
  // HINT: the warp-sum butterfly (offsets 16, 8, 4, 2, 1), with merge in place of +: shuffle BOTH
  // HINT: fields of the state from lane ^ offset, then merge them into this lane's.
  // HINT2: for (int offset = WARP_SIZE / 2; offset > 0; offset /= 2) { Stats other = {shfl_xor(st.m),
  // HINT2: shfl_xor(st.s)}; st = merge(st, other); }  with __shfl_xor_sync(FULL_MASK, value, offset).
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
  // BEGIN EXERCISE
  // HINT: as in warp_scan.cu: lane, row = global thread id / 32, whole warps past the last row return,
  // HINT: `in` points at the row.
  const int lane = threadIdx.x % WARP_SIZE;
  const int64_t row = course::global_thread_id() / WARP_SIZE;  // the same in all 32 lanes of a warp
  if (row >= rows) return;  // whole warps leave together: the shuffles see all 32 lanes
  const float* in = x + row * d;
  // END EXERCISE
  // BEGIN EXERCISE
  // HINT: start from the empty state (-course::math::inf, 0); merge in (in[j], 1) for j = lane,
  // HINT: lane + 32, ... < d (coalesced: a warp reads 32 consecutive floats); then warp_merge; lane 0
  // HINT: writes m_out[row] and s_out[row].
  // HINT3: every lane calls warp_merge, also a lane that saw no element (d < 32): it brings (-inf, 0).
  Stats st = {-course::math::inf, 0.f};
  for (int j = lane; j < d; j += WARP_SIZE) st = merge(st, {in[j], 1.f});
  st = warp_merge(st);
  if (lane == 0) {
    m_out[row] = st.m;
    s_out[row] = st.s;
  }
  // END EXERCISE
}
