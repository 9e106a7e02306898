// Day 11, exercise 2: decode attention over a contiguous KV cache (fp16, head_dim 128, GQA).
//
//   q: [batch, num_qo_heads, 128]   k, v: [batch, kv_len, num_kv_heads, 128] (NHD)   o: like q
//   o[b, h] = softmax(q[b, h] . k[b, :, h / group] * sm_scale) @ v[b, :, h / group]
//   group = num_qo_heads / num_kv_heads (GQA: `group` query heads share one KV head)
//
// Modelled on FlashInfer's single/batch decode kernels (include/flashinfer/attention/decode.cuh).
// One block of 256 threads per (request, G query heads of one KV head): the grader launches
// decode_attention_g<G> with grid = (num_qo_heads / G, batch), block = (256,), G the largest of
// 8, 4, 2, 1 that divides `group`. The block reads its KV head's rows once for all G heads.
//
// Thread layout (course/attention/decode.cuh): 16 lanes share a KV row, lane tx owning dims
// [8 tx, 8 tx + 8) (one 16-byte load); the block's 16 lane groups ("token groups", ty = 0..15) take
// one token each per step, the block 16 tokens per step. course::attention::attend streams the K and
// V rows through a cp.async pipeline in shared memory and calls YOUR update() for every token; each
// token group keeps an online-softmax state (m, d, o) per head (course/attention/state.cuh), and
// block_merge combines the 16 groups' states at the end.
// scale_log2 = sm_scale * log2(e): scores are kept in base 2, so exp is one ex2.approx.
#include <course/attention/decode.cuh>

namespace {

using namespace course::attention;
constexpr int HEAD_DIM = 128, BLOCK = 256, STAGES = 4;
using traits = decode_traits<HEAD_DIM, BLOCK>;
constexpr int VEC = traits::VEC, LANES = traits::LANES, WARPS = traits::WARPS;

// Fold one token into the G states of this thread: k and v are this thread's 8 dims of the token's
// K and V rows; valid is false for a token past the end (it must not count). All 32 lanes of the
// warp call this together, the 16 lanes of a token group with the same token.
template <int G>
__device__ void update(state_t<VEC> (&st)[G], const float (&q)[G][VEC], const course::vec_t<half, VEC>& k,
                       const course::vec_t<half, VEC>& v, bool valid) {
  // BEGIN EXERCISE
  // HINT: For each head g: the partial dot product of q[g] (already times sm_scale * log2(e)) with
  // HINT: this thread's 8 dims of k (course::to_float), summed over the 16 lanes of the row with
  // HINT: course::attention::group_sum<LANES>(partial): that is the token's base-2 score x, the
  // HINT: same in all 16 lanes. Every lane must call group_sum, valid or not (it shuffles).
  // HINT: The online-softmax step: m_new = max(m, x); scale the old d and o by 2^(m - m_new), add
  // HINT: p = 2^(x - m_new) to d and p * v to o; m = m_new. That is exactly merging the one-token
  // HINT: state (o = v, m = x, d = 1): st[g].merge(v_as_float, x, 1.f) (state.cuh).
  // HINT: An invalid token takes x = -inf: weight 2^(-inf) = 0 (its v is zeros, never garbage).
  float kf[VEC], vf[VEC];
#pragma unroll
  for (int i = 0; i < VEC; ++i) kf[i] = course::to_float(k[i]), vf[i] = course::to_float(v[i]);
#pragma unroll
  for (int g = 0; g < G; ++g) {
    float partial = 0.f;
#pragma unroll
    for (int i = 0; i < VEC; ++i) partial += q[g][i] * kf[i];
    const float x = group_sum<LANES>(partial);
    st[g].merge(vf, valid ? x : -course::math::inf, 1.f);
  }
  // END EXERCISE
}

template <int G>
__device__ void decode_attention(const half* __restrict__ q, const half* __restrict__ k,
                                 const half* __restrict__ v, half* __restrict__ o, int kv_len,
                                 int num_qo_heads, int num_kv_heads, float scale_log2) {
  __shared__ __align__(16) unsigned char smem[decode_smem_bytes<G, HEAD_DIM, BLOCK, STAGES>()];
  const int b = blockIdx.y, head0 = blockIdx.x * G;  // this block's request and first query head
  const int kv_head = head0 / (num_qo_heads / num_kv_heads);
  const int tx = threadIdx.x % LANES;
  const int64_t qo_offset = (static_cast<int64_t>(b) * num_qo_heads + head0) * HEAD_DIM;

  float qr[G][VEC];  // this thread's 8 dims of each of the G query heads, times scale_log2
  load_query<G, VEC>(qr, q + qo_offset, HEAD_DIM, tx, scale_log2);
  state_t<VEC> st[G];
  for (auto& s : st) s.init();  // empty states: m = -inf, d = 0, o = 0

  // Token t's row of this KV head: [batch, kv_len, num_kv_heads, HEAD_DIM], row-major.
  const int64_t row_stride = static_cast<int64_t>(num_kv_heads) * HEAD_DIM;
  const int64_t kv_base = static_cast<int64_t>(b) * kv_len * row_stride + kv_head * HEAD_DIM;
  auto row = [=](int t) { return kv_base + t * row_stride; };
  attend<G, VEC, LANES, BLOCK, STAGES>(st, qr, k, v, row, 0, kv_len, reinterpret_cast<half*>(smem),
                                       update<G>);

  // Merge the 16 token groups' states, normalise, and store each head's 128 outputs (16 bytes a thread).
  block_merge<G, VEC, LANES, WARPS>(st, reinterpret_cast<float*>(smem), [&](int g, int dim0, const state_t<VEC>& s) {
    course::store_from_float(o + qo_offset + g * HEAD_DIM + dim0, s.o);
  });
}

}  // namespace

#define DECODE_KERNEL(G)                                                                           \
  extern "C" __global__ void __launch_bounds__(BLOCK)                                              \
  decode_attention_g##G(const half* q, const half* k, const half* v, half* o, int kv_len,          \
                        int num_qo_heads, int num_kv_heads, float scale_log2) {                    \
    decode_attention<G>(q, k, v, o, kv_len, num_qo_heads, num_kv_heads, scale_log2);               \
  }
DECODE_KERNEL(1)
DECODE_KERNEL(2)
DECODE_KERNEL(4)
DECODE_KERNEL(8)
