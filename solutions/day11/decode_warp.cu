// Day 11, exercise 3: one warp decodes one head (fp16, head_dim 128, no GQA yet, no pipeline).
//
//   q: [batch, num_heads, 128]   k, v: [batch, kv_len, num_heads, 128] (NHD)   o: like q
//   o[b, h] = softmax(q[b, h] . k[b, :, h] * sm_scale) @ v[b, :, h]
//
// One warp per (request, head): the grader launches grid = (num_heads, batch), block = (32,).
// The warp is the decode kernel's layout in small (course/attention/decode.cuh):
//   - LANES = 16 lanes share one KV row: lane tx = lane % 16 owns dims [8 tx, 8 tx + 8) of q, k, v
//     and o, and loads them with one 16-byte access (course::vec_t<half, 8>);
//   - the warp's 2 lane groups (ty = lane / 16) take different tokens: step s gives token 2 s + ty to
//     group ty, and each group keeps its own state (m, d, o[8]) over the tokens it saw;
//   - a score q . k_j is the sum of the 16 lanes' partial dot products: a butterfly of shuffles;
//   - at the end the 2 groups' states are merged (a shuffle across lane ^ 16), normalised, stored.
// scale_log2 = sm_scale * log2(e): q times it makes q . k the base-2 score of exercise 1.
#include <course/math.cuh>
#include <course/vec_dtypes.cuh>

namespace {

constexpr int HEAD_DIM = 128, VEC = 8, LANES = HEAD_DIM / VEC;

}  // namespace

extern "C" __global__ void __launch_bounds__(32)
decode_warp(const half* __restrict__ q, const half* __restrict__ k, const half* __restrict__ v,
            half* __restrict__ o, int kv_len, int num_heads, float scale_log2) {
  const int b = blockIdx.y, h = blockIdx.x, lane = threadIdx.x % 32;
  const int tx = lane % LANES, ty = lane / LANES;
  const int64_t qo_offset = (static_cast<int64_t>(b) * num_heads + h) * HEAD_DIM + tx * VEC;
  const int64_t row_stride = static_cast<int64_t>(num_heads) * HEAD_DIM;  // from token t to t + 1
  const int64_t kv_offset = static_cast<int64_t>(b) * kv_len * row_stride + h * HEAD_DIM + tx * VEC;
  // BEGIN EXERCISE
  // HINT: q in registers: this lane's 8 dims as float (course::load_as_float), times scale_log2.
  // HINT: A state per lane: m = -inf, d = 0, acc[8] = 0 (o is the output). A step folds ONE token in:
  // HINT: its score x (partial dot product, summed over the 16 lanes of the row), m_new = max(m, x), d and
  // HINT: o scaled by 2^(m - m_new), p = 2^(x - m_new) added to d and p * v to o. Then the two lane
  // HINT: groups' states merge across lane ^ 16 (exercise 2's merge), and o / d is the output.
  // HINT2: for (int t0 = 0; t0 < kv_len; t0 += 2) { t = t0 + ty; valid = t < kv_len;
  // HINT2:   k, v of token t at k + kv_offset + t * row_stride (16 bytes each; zeros when !valid);
  // HINT2:   partial = sum_i q[i] * k[i]; for (off = 8; off > 0; off /= 2) partial += shfl_xor(partial, off);
  // HINT2:   x = valid ? partial : -inf; the online step of exercise 1 on (m, d, acc), for one key; }
  // HINT2: Merge: other_m, other_d, other_o[i] = __shfl_xor_sync(0xffffffff, ..., 16); m_new = max;
  // HINT2: both sides scaled by 2^(side_m - m_new). Lanes 0..15 store o / d as 8 halves
  // HINT2: (course::store_from_float) at o + qo_offset.
  // HINT3: The loop runs the same number of steps in both lane groups (t0 < kv_len, not t < kv_len):
  // HINT3: __shfl_xor_sync(0xffffffff, ...) needs all 32 lanes, so a lane past the end shuffles too.
  // HINT3: A state that saw only -inf (kv_len = 1: group 1 sees no token) keeps m = -inf: guard
  // HINT3: 2^(-inf - -inf) = NaN by skipping the update (or the merge) when m_new == -inf.
  float qr[VEC];
  course::load_as_float(qr, q + qo_offset);
#pragma unroll
  for (int i = 0; i < VEC; ++i) qr[i] *= scale_log2;
  float m = -course::math::inf, d = 0.f, acc[VEC];
#pragma unroll
  for (int i = 0; i < VEC; ++i) acc[i] = 0.f;
  for (int t0 = 0; t0 < kv_len; t0 += 2) {
    const int t = t0 + ty;
    const bool valid = t < kv_len;
    float kf[VEC] = {}, vf[VEC] = {};
    if (valid) {
      course::load_as_float(kf, k + kv_offset + t * row_stride);
      course::load_as_float(vf, v + kv_offset + t * row_stride);
    }
    float partial = 0.f;
#pragma unroll
    for (int i = 0; i < VEC; ++i) partial += qr[i] * kf[i];
#pragma unroll
    for (int offset = LANES / 2; offset > 0; offset /= 2) partial += __shfl_xor_sync(0xffffffffu, partial, offset);
    const float x = valid ? partial : -course::math::inf, m_new = fmaxf(m, x);
    if (m_new == -course::math::inf) continue;  // nothing seen yet
    const float scale = course::math::ptx_exp2(m - m_new), p = course::math::ptx_exp2(x - m_new);
    d = d * scale + p;
#pragma unroll
    for (int i = 0; i < VEC; ++i) acc[i] = acc[i] * scale + p * vf[i];
    m = m_new;
  }
  // Merge with the other lane group (same dims, other tokens).
  const float other_m = __shfl_xor_sync(0xffffffffu, m, LANES), other_d = __shfl_xor_sync(0xffffffffu, d, LANES);
  const float m_new = fmaxf(m, other_m);
  const float a = course::math::ptx_exp2(m - m_new), c = course::math::ptx_exp2(other_m - m_new);
  d = d * a + other_d * c;
#pragma unroll
  for (int i = 0; i < VEC; ++i) acc[i] = acc[i] * a + __shfl_xor_sync(0xffffffffu, acc[i], LANES) * c;
  const float inv = course::math::ptx_rcp(d);
#pragma unroll
  for (int i = 0; i < VEC; ++i) acc[i] *= inv;
  if (ty == 0) course::store_from_float(o + qo_offset, acc);
  // END EXERCISE
}
