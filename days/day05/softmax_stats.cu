// Your exercise file. Generated from solutions/day05/softmax_stats.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: d80aa676e05f027d
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
  // TODO: your code here.
  //   Hint: Each sum was taken relative to its own max. If the max grows from m1 to m', how must s1 change
  //   Hint: so that it is relative to m'? Which two states could make that computation produce NaN?
  return a;
}

// The merged state of the warp's 32 lanes, returned to every lane. All 32 lanes must call it.
COURSE_INLINE Stats warp_merge(Stats st) {
  // TODO: your code here.
  //   Hint: A warp sum combines values with +; here the values are states and the combination is merge.
  //   Hint: What else changes in the butterfly?
  return st;  // this lane's own state only: wrong
}

}  // namespace

extern "C" __global__ void softmax_stats(const float* __restrict__ x, float* __restrict__ m_out,
                                         float* __restrict__ s_out, int rows, int d) {
  const int lane = threadIdx.x % WARP_SIZE;
  // TODO: your code here.
  //   Hint: As in warp_scan: which row does this warp own, and who leaves?
  // TODO: your code here.
  //   Hint: Each lane folds its share of the row into its own state, then the warp combines the 32 states.
  //   Hint: Which elements should a lane take so that the warp's reads are coalesced?
}
