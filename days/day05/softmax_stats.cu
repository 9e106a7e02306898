// Your exercise file. Generated from solutions/day05/softmax_stats.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: b94b186d324863bd
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
  // TODO: your code here.
  //   Hint: the new max is the larger of the two; each sum was taken relative to its own max, so scale
  //   Hint: it by exp(its max - the new max) (a factor <= 1) before adding.
  return a;
}

// The merged state of the warp's 32 lanes, returned to every lane. All 32 lanes must call it.
COURSE_INLINE Stats warp_merge(Stats st) {
  // TODO: your code here.
  //   Hint: the warp-sum butterfly (offsets 16, 8, 4, 2, 1), with merge in place of +: shuffle BOTH
  //   Hint: fields of the state from lane ^ offset, then merge them into this lane's.
  return st;  // this lane's own state only: wrong
}

}  // namespace

extern "C" __global__ void softmax_stats(const float* __restrict__ x, float* __restrict__ m_out,
                                         float* __restrict__ s_out, int rows, int d) {
  // TODO: your code here.
  //   Hint: as in warp_scan.cu: lane, row = global thread id / 32, whole warps past the last row return,
  //   Hint: `in` points at the row.
  // TODO: your code here.
  //   Hint: start from the empty state (-course::math::inf, 0); merge in (in[j], 1) for j = lane,
  //   Hint: lane + 32, ... < d (coalesced: a warp reads 32 consecutive floats); then warp_merge; lane 0
  //   Hint: writes m_out[row] and s_out[row].
}
