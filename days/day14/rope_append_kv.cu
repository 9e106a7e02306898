// Your exercise file. Generated from solutions/day14/rope_append_kv.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: 9e44f92bbd41a12e
// Day 14: RoPE and append KV fused, the capstone's glue in one kernel. Unfused, the decode step
// reads and writes qkv for RoPE (day 13), then reads it again to split it (append_kv.cu); fused, each
// element is read once and written once, where it belongs. (FlashInfer fuses the same way:
// rope_quantize_append_paged_kv_cache, include/flashinfer/pos_enc.cuh; TensorRT-LLM's
// applyBiasRopeUpdateKVCache.)
//
//   qkv:      [batch, (qo_heads + 2 * kv_heads) * head_dim]   one new token per request: [q | k | v]
//   pos:      [batch] int32                                   its position, and its row in the cache
//   q:        [batch, qo_heads, head_dim]                     out: the q heads, rotated
//   k_cache:  [batch, max_len, kv_heads, head_dim]            out: row pos[b] = the k heads, rotated
//   v_cache:  [batch, max_len, kv_heads, head_dim]            out: row pos[b] = the v heads, as they are
//
// The rotation is day 13's rotate half: pair i < head_dim / 2 of a head is (x[i], x[i + head_dim / 2]),
// rotated by p * theta^(-2i / head_dim) with p = pos[b]; log2_theta = log2(theta). Compute in float,
// with sincosf. head_dim is a multiple of 16, so each half of a head is whole 16-byte vectors. Nothing
// else in the caches may change. The grader launches grid = (batch,), block = (256,).
#include <course/vec_dtypes.cuh>

namespace {

constexpr int VEC = 8;  // elements per 16-byte vector (fp16 and bf16)

template <typename T>
__device__ void rope_append_kv(T* __restrict__ q, T* __restrict__ k_cache, T* __restrict__ v_cache,
                               const T* __restrict__ qkv, const int* __restrict__ pos, int qo_heads,
                               int kv_heads, int head_dim, int max_len, float log2_theta) {
  // TODO: your code here.
  //   Hint: Fusing means each element is read once and written once where it belongs. How do you split the
  //   Hint: rotated heads (q heads, then k heads) into work items of VEC pairs so the block's threads share them
  //   Hint: evenly, and where does each item's output go? The v heads need no rotation.
}

}  // namespace

extern "C" __global__ void __launch_bounds__(256)
rope_append_kv_f16(half* q, half* k_cache, half* v_cache, const half* qkv, const int* pos, int qo_heads,
                   int kv_heads, int head_dim, int max_len, float log2_theta) {
  rope_append_kv(q, k_cache, v_cache, qkv, pos, qo_heads, kv_heads, head_dim, max_len, log2_theta);
}
extern "C" __global__ void __launch_bounds__(256)
rope_append_kv_bf16(__nv_bfloat16* q, __nv_bfloat16* k_cache, __nv_bfloat16* v_cache, const __nv_bfloat16* qkv,
                    const int* pos, int qo_heads, int kv_heads, int head_dim, int max_len, float log2_theta) {
  rope_append_kv(q, k_cache, v_cache, qkv, pos, qo_heads, kv_heads, head_dim, max_len, log2_theta);
}
