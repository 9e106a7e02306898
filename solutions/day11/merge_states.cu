// Day 11, exercise 1: merge partial attention results (FlashInfer's MergeStates, cascade.cuh).
//
//   v:   [rows, num_states, 128] float   lse2:     [rows, num_states] float
//   o:   [rows, 128] half                lse2_out: [rows] float
//
// Row r has num_states partial results, each the attention output of one query over a different part
// of its keys: v[r, s] (already divided by its own softmax denominator) and lse2[r, s], the base-2
// log-sum-exp of its scores (see course/attention/state.cuh). The merged output is the attention over
// all the keys together:
//
//     o[r] = sum_s w_s v[r, s] / sum_s w_s,   w_s = 2^(lse2[r, s] - M),   M = max_s lse2[r, s]
//     lse2_out[r] = M + log2(sum_s w_s)
//
// A part with no keys has lse2 = -inf (weight 0); a row whose parts are ALL empty gets o = 0 and
// lse2_out = -inf. Subtracting M keeps every weight <= 1, however large the lse2 values.
//
// One warp per row, 4 rows per block of 128 threads: the grader launches grid = (ceil(rows / 4),),
// block = (128,). Lane l owns dims [4l, 4l + 4): one 16-byte load of float4 per part.
#include <course/attention/state.cuh>
#include <course/vec_dtypes.cuh>

namespace {

constexpr int HEAD_DIM = 128;
constexpr int N = HEAD_DIM / 32;  // dims per lane

}  // namespace

extern "C" __global__ void __launch_bounds__(128)
merge_states(const float* __restrict__ v, const float* __restrict__ lse2, half* __restrict__ o,
             float* __restrict__ lse2_out, int rows, int num_states) {
  const int lane = threadIdx.x % 32;
  const int64_t row = static_cast<int64_t>(blockIdx.x) * 4 + threadIdx.x / 32;
  if (row >= rows) return;
  const float* v_row = v + row * num_states * HEAD_DIM;
  const float* lse_row = lse2 + row * num_states;
  // BEGIN EXERCISE
  // HINT: Keep a state (m, d, o[4]) for this lane's 4 dims: course::attention::state_t<N> st;
  // HINT: st.init() makes it empty (m = -inf, d = 0, o = 0). A normalised part (v_s, lse2_s) is the
  // HINT: state (o = v_s, m = lse2_s, d = 1): for each part s, load this lane's 4 floats of v_row +
  // HINT: s * HEAD_DIM (course::vec_t<float, N>::load is one 16-byte load) and merge them with
  // HINT: st.merge(o, lse_row[s], 1.f). Read state.cuh's merge: m_new = max(m, m_s), both sides
  // HINT: scaled by 2^(m_side - m_new), and nothing done when both are -inf (else 2^(-inf + inf) = NaN).
  // HINT: Then st.normalize() divides o by d; st.lse2() is m + log2(d).
  // HINT: Store o as 4 halves (course::store_from_float, an 8-byte store); lane 0 writes lse2_out[row].
  course::attention::state_t<N> st;
  st.init();
  for (int s = 0; s < num_states; ++s) {
    course::vec_t<float, N> part;
    part.load(v_row + static_cast<int64_t>(s) * HEAD_DIM + lane * N);
    float vs[N];
#pragma unroll
    for (int i = 0; i < N; ++i) vs[i] = part[i];
    st.merge(vs, lse_row[s], 1.f);
  }
  st.normalize();
  course::store_from_float(o + row * HEAD_DIM + lane * N, st.o);
  if (lane == 0) lse2_out[row] = st.lse2();
  // END EXERCISE
}
