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
// One thread per row: the grader launches grid = (ceil(rows / 128),), block = (128,).
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
  // HINT: Start empty: m = -inf (course::math::inf), d = 0, o = 0. Per tile: the new max m_new =
  // HINT: max(m, the tile's scores); everything summed so far was relative to the old m, so scale d
  // HINT: AND o by 2^(m - m_new) (course::math::ptx_exp2); then add p_j = 2^(x_j - m_new) to d and
  // HINT: p_j * v_j to o; m = m_new. Write (m, d, o) at index row * tiles + t after each tile.
  // HINT2: for (int t = 0; t < tiles; ++t) { j0 = t * tile, j1 = min(n, j0 + tile);
  // HINT2:   pass 1: m_new = fmaxf over x_row[j0 .. j1);  rescale d, o[0..4);
  // HINT2:   pass 2: p = ptx_exp2(x_row[j] - m_new); d += p; o[i] += p * v_row[j * N + i];
  // HINT2:   m = m_new; store m_out[row * tiles + t], d_out[...], o_out[(row * tiles + t) * N + i] }
  // HINT2: v_row + j * N is 16 bytes: course::vec_t<float, N>::load reads it in one access.
  // HINT3: While every key so far is -inf, m_new = -inf and 2^(-inf - -inf) is NaN: subtract
  // HINT3: m_use = (m_new == -inf ? 0.f : m_new) instead; 2^(m - m_use) = 2^(-inf) = 0 then, as it should.
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
