// Generated from solutions/day11/state.cuh by `python -m grader stubs` (edit that file): the course's version,
// which later days' course headers include and `grader unlock` releases.
// Day 11, exercise 2 (with merge_states.cu): your online-softmax state (m, d, o) and its merge, written
// once. merge_states.cu includes this header from beside it (#include "state.cuh") and is graded on it;
// exercises 4 and 5 (decode_attention.cu, decode_paged.cu) and day 12 use course/attention/state.cuh's
// state_t, which is this one: yours, until the course's version (kernels/unlocked/day11/) is released.
// Keep the names and signatures. The math (base 2, the empty state, the merge of two states over
// disjoint keys): course/attention/state.cuh. Include nothing but <course/math.cuh> here.
#pragma once
#include <course/math.cuh>

namespace course {
namespace attention {

// One state for N elements of the output vector (the N dims of v that this thread owns).
template <int N>
struct state_t {
  float o[N];
  float m;
  float d;

  // The empty state: no keys yet.
  COURSE_INLINE void init() {
    m = -math::inf;
    d = 0.f;
#pragma unroll
    for (int i = 0; i < N; ++i) o[i] = 0.f;
  }

  // Merge the state (other_o, other_m, other_d), computed over keys disjoint from ours.
  COURSE_INLINE void merge(const float (&other_o)[N], float other_m, float other_d) {
    const float m_new = fmaxf(m, other_m);
    if (m_new == -math::inf) return;  // both empty: 2^(-inf - -inf) would be NaN
    const float a = math::ptx_exp2(m - m_new), b = math::ptx_exp2(other_m - m_new);
    d = d * a + other_d * b;
#pragma unroll
    for (int i = 0; i < N; ++i) o[i] = o[i] * a + other_o[i] * b;
    m = m_new;
  }

  // Merge another state over keys disjoint from ours.
  COURSE_INLINE void merge(const state_t& other) { merge(other.o, other.m, other.d); }

  // Divide o by d: afterwards o is the attention output of this state's keys (0 if there were none).
  // Call once; then lse2() still holds, and the state is (o, m = lse2(), d = 1) in merge terms.
  COURSE_INLINE void normalize() {
    const float inv = d > 0.f ? math::ptx_rcp(d) : 0.f;
#pragma unroll
    for (int i = 0; i < N; ++i) o[i] *= inv;
  }

  // log2(sum_j 2^(x_j)) over this state's keys; -inf for the empty state.
  COURSE_INLINE float lse2() const {
    return d > 0.f ? m + math::ptx_log2(d) : -math::inf;
  }
};

}  // namespace attention
}  // namespace course
