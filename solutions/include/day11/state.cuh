// day11/state.cuh: the course's online-softmax state and its merge (day 11, exercise 2: what
// merge_states.cu's state.cuh writes), which course/attention/state.cuh gives day 11's exercise 4 on and
// day 12. The same contract as a student's days/day11/state.cuh, which stands in for it until it is
// released. The math: course/attention/state.cuh.
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

  COURSE_INLINE void merge(const state_t& other) { merge(other.o, other.m, other.d); }

  // Divide o by d: afterwards o is the attention output of this state's keys (0 if there were none).
  // Call once; then lse2() still holds, and the state is (o, m = lse2(), d = 1) in merge terms.
  COURSE_INLINE void normalize() {
    const float inv = d > 0.f ? math::ptx_rcp(d) : 0.f;
#pragma unroll
    for (int i = 0; i < N; ++i) o[i] *= inv;
  }

  // log2(sum_j 2^(x_j)) over this state's keys; -inf for the empty state.
  COURSE_INLINE float lse2() const { return d > 0.f ? m + math::ptx_log2(d) : -math::inf; }
};

}  // namespace attention
}  // namespace course
