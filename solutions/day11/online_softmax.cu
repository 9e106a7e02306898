// Day 11, exercise 1: the online softmax, one thread per row (the state (m, d, o) of state.cuh).
//
//   x: [rows, n] float   base-2 scores x_j = q . k_j * sm_scale * log2(e) (-inf: a masked key)
//   v: [rows, n, 4] float   the values, 4 dims each
//   m_out, d_out: [rows, tiles] float   o_out: [rows, tiles, 4] float   tiles = ceil(n / tile)
//
// Thread r walks row r's keys in tiles of `tile` keys, once, and keeps the running state
//
//     m = max_j x_j,   d = sum_j 2^(x_j - m),   o = sum_j 2^(x_j - m) v_j      (j: the keys seen)
//
// After tile t it writes its state (not divided by d) to m_out[r, t], d_out[r, t], o_out[r, t]: the
// grader compares each with numpy over the keys [0, (t + 1) * tile). Keys can be -inf (weight 0), a
// whole first tile can be -inf (the state stays empty: m = -inf, d = 0, o = 0), and scores go up to
// ~300, where 2^x overflows float unless the running max is subtracted first.
//
// One thread per row: the grader launches grid = (ceil(rows / 128),), block = (128,). The technique: exp
// as one ex2.approx (MUFU.EX2), the state in registers (no spills), your own state arithmetic (not
// state_t::merge of state.cuh).
#include <course/math.cuh>
#include <course/vec_dtypes.cuh>

namespace {

constexpr int N = 4;  // dims of v

}  // namespace

extern "C" __global__ void __launch_bounds__(128)
online_softmax(const float* __restrict__ x, const float* __restrict__ v, float* __restrict__ m_out,
               float* __restrict__ d_out, float* __restrict__ o_out, int rows, int n, int tile) {
  const int64_t row = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  const int tiles = (n + tile - 1) / tile;
  const float* x_row = x + row * n;
  const float* v_row = v + row * n * N;
  // BEGIN EXERCISE
  // HINT: The state (m, d, o) only means something relative to its m. When a tile raises the max, what
  // HINT: happens to everything already summed? And what must an empty state (every key so far -inf) look
  // HINT: like after a tile, without a NaN?
  // HINT2: One loop over the tiles, two passes over each tile's keys: first the new running max, then the old
  // HINT2: sums brought to it and this tile's weights and weighted values added; the state is stored at
  // HINT2: (row, tile) after each tile. A value row is 16 bytes: one vector load, one vector store for o.
  // HINT3: While every key seen is -inf the new max is -inf and 2^(-inf - (-inf)) is NaN: exponentiate
  // HINT3: relative to 0 in that case. The old state's factor is then 2^(-inf) = 0, exactly what an empty
  // HINT3: state needs, and the max you store stays -inf.
  float m = -course::math::inf, d = 0.f, o[N] = {0.f, 0.f, 0.f, 0.f};
  for (int t = 0; t < tiles; ++t) {
    const int j0 = t * tile, j1 = min(n, j0 + tile);
    float m_new = m;
    for (int j = j0; j < j1; ++j) m_new = fmaxf(m_new, x_row[j]);
    const float m_use = m_new == -course::math::inf ? 0.f : m_new;
    const float scale = course::math::ptx_exp2(m - m_use);
    d *= scale;
#pragma unroll
    for (int i = 0; i < N; ++i) o[i] *= scale;
    for (int j = j0; j < j1; ++j) {
      const float p = course::math::ptx_exp2(x_row[j] - m_use);
      course::vec_t<float, N> vj;
      vj.load(v_row + static_cast<int64_t>(j) * N);
      d += p;
#pragma unroll
      for (int i = 0; i < N; ++i) o[i] += p * vj[i];
    }
    m = m_new;
    const int64_t out = row * tiles + t;
    m_out[out] = m;
    d_out[out] = d;
    course::vec_t<float, N> ov;
#pragma unroll
    for (int i = 0; i < N; ++i) ov[i] = o[i];
    ov.store(o_out + out * N);
  }
  // END EXERCISE
}
