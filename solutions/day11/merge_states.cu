// Day 11, exercise 2: merge partial attention results (FlashInfer's MergeStates, cascade.cuh).
//
//   v:   [rows, num_states, 128] float   lse2:     [rows, num_states] float
//   out: [rows, 128] half                lse2_out: [rows] float
//
// Row r has num_states partial results, each the attention output of one query over a different part
// of its keys: v[r, s] (already divided by its own softmax denominator) and lse2[r, s], the base-2
// log-sum-exp of its scores (see course/attention/state.cuh; exercise 1's state (m, d, o)). The merged output is the attention over
// all the keys together:
//
//   out[r] = sum_s w_s v[r, s] / sum_s w_s,   w_s = 2^(lse2[r, s] - M),   M = max_s lse2[r, s]
//   lse2_out[r] = M + log2(sum_s w_s)
//
// A part with no keys has lse2 = -inf (weight 0); a row whose parts are ALL empty gets out = 0 and
// lse2_out = -inf. Subtracting M keeps every weight <= 1, however large the lse2 values.
//
// One warp per row, 4 rows per block of 128 threads: the grader launches grid = (ceil(rows / 4),),
// block = (128,). Lane l owns dims [4l, 4l + 4): one 16-byte load of float4 per part.
// The test: out at fp16's tolerance, lse2_out in float, empty parts and empty rows included. The
// technique: exp as one ex2.approx (MUFU.EX2), the state in registers, your own merge (not state_t::merge).
#include <course/math.cuh>
#include <course/vec_dtypes.cuh>

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
  // HINT: states is the rescale step you wrote there. The test checks out at fp16 and lse2_out in float; the
  // HINT: technique: ex2.approx (MUFU.EX2), the state in registers, your own merge (not state_t::merge).
  // HINT2: This lane keeps one state for its 4 dims in registers, empty at first; one loop over the parts,
  // HINT2: each folded in by a merge; then the normalisation, one 8-byte store of 4 halves per lane, and one
  // HINT2: lane writes the merged lse2 (-inf for a row whose parts are all empty).
  // HINT3: The part is the state m = lse2_s, d = 1, o = v_s. Each side of a merge is scaled by
  // HINT3: 2^(its m - the new m). Two empty sides make the new m -inf and those factors NaN: skip the part
  // HINT3: then. The merged lse2 is m + log2(d); d = 0 means the row is empty.
  float m = -course::math::inf, d = 0.f, o[N] = {0.f, 0.f, 0.f, 0.f};
  for (int s = 0; s < num_states; ++s) {
    course::vec_t<float, N> part;
    part.load(v_row + static_cast<int64_t>(s) * HEAD_DIM + lane * N);
    const float m_s = lse_row[s], m_new = fmaxf(m, m_s);
    if (m_new == -course::math::inf) continue;  // both sides empty
    const float a = course::math::ptx_exp2(m - m_new), b = course::math::ptx_exp2(m_s - m_new);
    d = d * a + b;
#pragma unroll
    for (int i = 0; i < N; ++i) o[i] = o[i] * a + part[i] * b;
    m = m_new;
  }
  const float inv = d > 0.f ? course::math::ptx_rcp(d) : 0.f;
#pragma unroll
  for (int i = 0; i < N; ++i) o[i] *= inv;
  course::store_from_float(out + row * HEAD_DIM + lane * N, o);
  if (lane == 0) lse2_out[row] = d > 0.f ? m + course::math::ptx_log2(d) : -course::math::inf;
  // END EXERCISE
}
