// course/attention/state.cuh: the online-softmax state (m, d, o) and its merge (day 11; day 12 reuses it).
//
// Modelled on FlashInfer's include/flashinfer/attention/state.cuh and the merge in cascade.cuh.
// Attention of one query over keys k_j and values v_j:
//
//     o = sum_j softmax(s)_j v_j,     s_j = q . k_j * sm_scale
//
// The course works in base 2, as FlashInfer does: with x_j = s_j * log2(e), e^(s_j) = 2^(x_j), and
// 2^x is one MUFU.EX2 (course::math::ptx_exp2). A state over a set J of keys is three things:
//
//     m = max_j x_j                    the largest (base-2) score seen so far
//     d = sum_j 2^(x_j - m)            the softmax denominator, relative to m
//     o = sum_j 2^(x_j - m) v_j        the numerator, relative to m (not yet divided by d)
//
// The result is o / d, and log2(sum_j 2^(x_j)) = m + log2(d) is the state's log-sum-exp in base 2
// ("lse2"; the natural one is lse2 * ln 2). Two states over disjoint key sets A and B merge exactly:
//
//     m = max(m_A, m_B),   d = d_A 2^(m_A - m) + d_B 2^(m_B - m),   o = o_A 2^(m_A - m) + o_B 2^(m_B - m)
//
// Because of this merge, the keys can be visited in any order and split among threads, warps,
// blocks, or separate kernel launches (split-KV), and the parts combined afterwards. Subtracting the
// running max keeps every 2^(...) <= 1: no overflow, whatever the scores. A normalised result
// (o / d, lse2) is itself a state: (o = o / d, m = lse2, d = 1).
//
// The empty state (no keys yet) is m = -inf, d = 0, o = 0; merging two empty states leaves it empty,
// and normalising it gives o = 0, lse2 = -inf.
//
// Day 11's exercises 1-3 write the state update and the merge by hand (exercise 2 as state_t, in the
// student's days/day11/state.cuh); state_t is used from exercise 4 on (and by day 12's prefill). Merging the states of other lanes, warps or
// blocks (shuffles, shared memory) is left to the kernels: that is day 11's exercises 3-5.
#pragma once
#include "../math.cuh"

// state_t<N>: one state for the N elements of the output vector a thread owns (float o[N], m, d), with
// init() (the empty state), merge(other_o, other_m, other_d) and merge(other) (a state over disjoint
// keys), normalize() (o /= d, 0 without keys) and lse2(): day 11's exercise 2, written in
// days/day11/state.cuh. The course's version (<day11/state.cuh> on the include path: the instructor's, or
// kernels/unlocked once released) comes first; where it is absent, the include path's days/ folder gives
// yours, so exercises 4 and 5 build on what you wrote.
#if __has_include(<day11/state.cuh>)
#include <day11/state.cuh>
#else
namespace course {
namespace attention {
template <int N>
struct state_t {
  COURSE_LOCKED(char[N], "course::attention::state_t", "day11", "merge_states.cu");
};
}  // namespace attention
}  // namespace course
#endif
