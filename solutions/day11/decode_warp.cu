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
//   - o[b, h] combines both groups' states; lanes 0-15 store it.
// The test: o at fp16's tolerance, kv_len from 1 (group 1 sees no token) up. The technique: scores summed
// with warp shuffles (SHFL.BFLY), exp as ex2.approx (MUFU.EX2), the state in registers, your own butterfly
// and merge (not state_t::merge of state.cuh).
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
  // HINT: Each lane group runs exercise 1's online softmax one token at a time, but no single lane can
  // HINT: compute a token's score alone. How do 16 lanes agree on q . k_j, and how do the two groups' states
  // HINT: become one at the end? The technique: SHFL.BFLY and MUFU.EX2, your own butterfly and merge.
  // HINT2: Set-up: this lane's 8 dims of q as float, pre-scaled to base 2; an empty state. A loop over the
  // HINT2: tokens two at a time (one per lane group): the group's token's K and V (zeros past the end), the
  // HINT2: partial dot product, a butterfly of shuffles over the group's 16 lanes, the online update. Then
  // HINT2: the two groups' states merged by shuffles across the group boundary, normalised, stored by one group.
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
