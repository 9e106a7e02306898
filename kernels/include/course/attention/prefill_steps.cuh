// course/attention/prefill_steps.cuh: the warp's steps of a FlashAttention-2 prefill (day 12).
//
// The course's copies of what day 12's exercises 3 and 4 have the student write (attention_mma.cu,
// attention_prefill.cu): q as mma A fragments, s = q k^T, the quad reductions, the online softmax on C
// fragments, p re-packed as A fragments, o += p v. Exercise 5 (batch_prefill.cu: GQA, LSE, ragged
// batches) and later days build on them; exercises 3 and 4 may not include this header. They live in
// namespace course::prefill::steps, so that an exercise's own functions of the same names never clash.
//
// Attention variants (day 13's JIT renders them into exercise 5's kernel, FlashInfer's AttentionVariant):
// a variant may transform each logit (soft-cap, ALiBi) and hide keys (a sliding window, a custom mask).
// The kernel calls apply_variant on every tile of scores, before its own mask; NoVariant compiles to nothing.
#pragma once
#include "../fastdiv.cuh"
#include "prefill.cuh"

namespace course {
namespace prefill {
namespace steps {

// This warp's 16 query rows (rows 16 * warp .. of the q tile in shared memory) as mma A fragments:
// q[kk] is the 16 x 16 block of head-dim columns 16 kk .. 16 kk + 15.
template <typename Tr>
COURSE_INLINE void load_q_fragments(uint32_t (&q)[Tr::D_K16][4], const half* q_smem, int warp,
                                    int lane) {
  const half* row = q_smem + (16 * warp + lane % 16) * Tr::STRIDE + 8 * (lane / 16);
#pragma unroll
  for (int kk = 0; kk < Tr::D_K16; ++kk) mma::ldmatrix_m8n8x4(q[kk], row + 16 * kk);
}

// s = q k^T for one K tile [BLOCK_N, HEAD_DIM] in shared memory: s[n] is the C fragment of keys 8 n .. 8 n + 7.
template <typename Tr>
COURSE_INLINE void compute_qk(float (&s)[Tr::S_N8][4], const uint32_t (&q)[Tr::D_K16][4],
                              const half* k_smem, int lane) {
#pragma unroll
  for (int n = 0; n < Tr::S_N8; ++n) s[n][0] = s[n][1] = s[n][2] = s[n][3] = 0.f;
  const half* row = k_smem + (lane % 8 + 8 * (lane / 16)) * Tr::STRIDE + 8 * ((lane / 8) % 2);
#pragma unroll
  for (int kk = 0; kk < Tr::D_K16; ++kk) {
#pragma unroll
    for (int n = 0; n < Tr::S_N8; n += 2) {
      uint32_t b[4];
      mma::ldmatrix_m8n8x4(b, row + 8 * n * Tr::STRIDE + 16 * kk);
      mma::mma_sync_m16n8k16_row_col_f16f16f32(s[n], q[kk], b);
      mma::mma_sync_m16n8k16_row_col_f16f16f32(s[n + 1], q[kk], b + 2);
    }
  }
}

// The max and the sum over the 4 lanes of a quad (lane / 4 equal), which hold the same fragment rows.
COURSE_INLINE float quad_max(float x) {
  x = fmaxf(x, math::shfl_xor_sync(x, 1));
  return fmaxf(x, math::shfl_xor_sync(x, 2));
}

COURSE_INLINE float quad_sum(float x) {
  x += math::shfl_xor_sync(x, 1);
  return x + math::shfl_xor_sync(x, 2);
}

// Fold one tile of raw scores s into the state and turn s into p = 2^(s * scale_log2 - m_new) in place.
template <typename Tr>
COURSE_INLINE void online_softmax(SoftmaxState<Tr>& state, float (&s)[Tr::S_N8][4],
                                  float scale_log2) {
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    auto& st = state.row[r];
    float mx = -math::inf;
#pragma unroll
    for (int n = 0; n < Tr::S_N8; ++n) mx = fmaxf(mx, fmaxf(s[n][2 * r], s[n][2 * r + 1]));
    const float m_new = fmaxf(st.m, quad_max(mx) * scale_log2);
    const float m_use = m_new == -math::inf ? 0.f : m_new;
    const float alpha = math::ptx_exp2(st.m - m_use);
    st.m = m_new;
    st.d *= alpha;
#pragma unroll
    for (int i = 0; i < 2 * Tr::D_N8; ++i) st.o[i] *= alpha;
#pragma unroll
    for (int n = 0; n < Tr::S_N8; ++n) {
#pragma unroll
      for (int c = 2 * r; c < 2 * r + 2; ++c) {
        s[n][c] = math::ptx_exp2(fmaf(s[n][c], scale_log2, -m_use));
        st.d += s[n][c];
      }
    }
  }
}

// p (C fragments of s) as the A fragments of p v, in fp16, without a trip through shared memory.
template <typename Tr>
COURSE_INLINE void to_a_fragments(uint32_t (&p)[Tr::S_K16][4], const float (&s)[Tr::S_N8][4]) {
#pragma unroll
  for (int kk = 0; kk < Tr::S_K16; ++kk) {
    p[kk][0] = mma::pack2<half>(s[2 * kk][0], s[2 * kk][1]);
    p[kk][1] = mma::pack2<half>(s[2 * kk][2], s[2 * kk][3]);
    p[kk][2] = mma::pack2<half>(s[2 * kk + 1][0], s[2 * kk + 1][1]);
    p[kk][3] = mma::pack2<half>(s[2 * kk + 1][2], s[2 * kk + 1][3]);
  }
}

// o += p v for one V tile [BLOCK_N, HEAD_DIM] in shared memory.
template <typename Tr>
COURSE_INLINE void compute_pv(SoftmaxState<Tr>& state, const uint32_t (&p)[Tr::S_K16][4],
                              const half* v_smem, int lane) {
  const half* row = v_smem + (lane % 16) * Tr::STRIDE + 8 * (lane / 16);
#pragma unroll
  for (int kk = 0; kk < Tr::S_K16; ++kk) {
#pragma unroll
    for (int n = 0; n < Tr::D_N8; n += 2) {
      uint32_t b[4];
      mma::ldmatrix_m8n8x4_trans(b, row + 16 * kk * Tr::STRIDE + 8 * n);
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        float c[4];
        state.get_c(n + h, c);
        mma::mma_sync_m16n8k16_row_col_f16f16f32(c, p[kk], b + 2 * h);
        state.set_c(n + h, c);
      }
    }
  }
}

// The plain softmax: no logits transform, no mask of its own.
struct NoVariant {
  static constexpr bool ACTIVE = false;
  COURSE_INLINE float logits(float x, int, int, int) const { return x; }
  COURSE_INLINE bool visible(int, int, int) const { return true; }
};

// The variant on one tile of raw scores s (q . k, unscaled) of packed rows from p_row (query p / group,
// query head kv_head * group + p % group), keys kv0 + column. A variant sees the query's position in the
// KV, q_pos = query + q_offset (q_offset = kv_len - qo_len: the queries are the last tokens), the key's
// index and the query head; its logits() maps the scaled logit x = s * sm_scale to another, and
// visible() false hides the key (-inf).
template <typename Tr, typename Variant>
COURSE_INLINE void apply_variant(float (&s)[Tr::S_N8][4], const Variant& var, int p_row, const uint_fastdiv& group,
                                 int kv_head, int kv0, int q_offset, float sm_scale, int lane) {
  if constexpr (Variant::ACTIVE) {
    const float inv_scale = 1.f / sm_scale;
#pragma unroll
    for (int n = 0; n < Tr::S_N8; ++n) {
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        const int p = p_row + mma::frag_c_row(lane, i), query = group.div(p);
        const int head = kv_head * group.d + p - query * group.d, key = kv0 + 8 * n + mma::frag_c_col(lane, i);
        const int q_pos = query + q_offset;
        s[n][i] = var.visible(q_pos, key, head) ? var.logits(s[n][i] * sm_scale, q_pos, key, head) * inv_scale
                                                : -math::inf;
      }
    }
  }
}

}  // namespace steps
}  // namespace prefill
}  // namespace course
