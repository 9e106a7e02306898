// Day 11, exercise 2: merge partial attention results (FlashInfer's MergeStates, cascade.cuh).
//
//   v:   [rows, num_states, 128] float   lse2:     [rows, num_states] float
//   out: [rows, 128] half                lse2_out: [rows] float
//
// Row r has num_states partial results, each the attention output of one query over a different part
// of its keys: v[r, s] (already divided by its own softmax denominator) and lse2[r, s], the base-2
// log-sum-exp of its scores (see course/attention/state.cuh; exercise 1's state (m, d, o)). The merged
// output is the attention over all the keys together:
//
//   out[r] = sum_s w_s v[r, s] / sum_s w_s,   w_s = 2^(lse2[r, s] - M),   M = max_s lse2[r, s]
//   lse2_out[r] = M + log2(sum_s w_s)
//
// A part with no keys has lse2 = -inf (weight 0); a row whose parts are ALL empty gets out = 0 and
// lse2_out = -inf. Subtracting M keeps every weight <= 1, however large the lse2 values.
//
// One warp per row, 4 rows per block of 128 threads: the grader launches grid = (ceil(rows / 4),),
// block = (128,). Lane l owns dims [4l, 4l + 4): one 16-byte load of float4 per part.
// You write the state (course::attention::state_t: init, merge, normalize, lse2) in state.cuh beside this
// file, then the kernel here with it; exercises 4 and 5 build on your state.cuh through
// course/attention/state.cuh, which is not to be included here. The test: out at fp16's tolerance,
// lse2_out in float, empty parts and empty rows included. The technique: exp as one ex2.approx
// (MUFU.EX2), the state in registers.
#include <course/vec_dtypes.cuh>

#include "state.cuh"

namespace {

constexpr int HEAD_DIM = 128;
constexpr int N = HEAD_DIM / 32;  // dims per lane

}  // namespace

extern "C" __global__ void __launch_bounds__(128)
merge_states(const float* __restrict__ v, const float* __restrict__ lse2, half* __restrict__ out,
             float* __restrict__ lse2_out, int rows, int num_states) {
  const int lane = threadIdx.x % 32;
  const int64_t row = static_cast<int64_t>(blockIdx.x) * 4 + threadIdx.x / 32;
  if (row >= rows) return;
  const float* v_row = v + row * num_states * HEAD_DIM;
  const float* lse_row = lse2 + row * num_states;
  // BEGIN EXERCISE
  // HINT: A normalised part (v_s, lse2_s) is itself a state (m, d, o) of exercise 1: which one? Merging two
  // HINT: states is state_t::merge, which you write in state.cuh. The test checks out at fp16 and lse2_out
  // HINT: in float; the technique: ex2.approx (MUFU.EX2), the state in registers.
  // HINT2: This lane keeps one state_t for its 4 dims, empty at first; one loop over the parts, each
  // HINT2: loaded with one 16-byte load and folded in by a merge; then the normalisation, one 8-byte store
  // HINT2: of 4 halves per lane, and one lane writes the merged lse2.
  // HINT3: The part is the state m = lse2_s, d = 1, o = v_s.
  course::attention::state_t<N> st;
  st.init();
  for (int s = 0; s < num_states; ++s) {
    course::vec_t<float, N> part;
    part.load(v_row + static_cast<int64_t>(s) * HEAD_DIM + lane * N);
    float o_s[N];
#pragma unroll
    for (int i = 0; i < N; ++i) o_s[i] = part[i];
    st.merge(o_s, lse_row[s], 1.f);
  }
  st.normalize();
  course::store_from_float(out + row * HEAD_DIM + lane * N, st.o);
  if (lane == 0) lse2_out[row] = st.lse2();
  // END EXERCISE
}
