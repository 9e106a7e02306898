// Day 14: the glue between the QKV projection and decode attention (FlashInfer: append_paged_kv_cache
// in include/flashinfer/page.cuh, here for a contiguous cache).
//
//   qkv:      [batch, (qo_heads + 2 * kv_heads) * head_dim]   one new token per request: [q | k | v]
//   pos:      [batch] int32                                   where request b's new token goes
//   q:        [batch, qo_heads, head_dim]                     out: the q part, contiguous
//   k_cache:  [batch, max_len, kv_heads, head_dim]            out: row pos[b] of request b = the k part
//   v_cache:  [batch, max_len, kv_heads, head_dim]            out: row pos[b] of request b = the v part
//
// Nothing else in the caches may change. head_dim is a multiple of 8, so every head starts on a
// 16-byte boundary and one course::vec_t<T, 8> moves 8 elements. The grader launches one block of 256
// threads per request: grid = (batch,), block = (256,).
#include <course/vec_dtypes.cuh>

namespace {

constexpr int VEC = 8;  // elements per 16-byte vector (fp16 and bf16)

template <typename T>
__device__ void append_kv(T* __restrict__ q, T* __restrict__ k_cache, T* __restrict__ v_cache,
                          const T* __restrict__ qkv, const int* __restrict__ pos, int qo_heads,
                          int kv_heads, int head_dim, int max_len) {
  const int64_t b = blockIdx.x;
  const int q_size = qo_heads * head_dim, kv_size = kv_heads * head_dim;
  const T* row = qkv + b * (q_size + 2 * kv_size);
  // BEGIN EXERCISE
  // HINT: the row is q_size + 2 * kv_size elements; let the block's threads walk it in vectors of
  // HINT: VEC (i = threadIdx.x * VEC; i += blockDim.x * VEC). Load 16 bytes from row + i, then store
  // HINT: them where that part belongs: q + b * q_size + i for i < q_size; else k_cache for the next
  // HINT: kv_size elements, else v_cache. Request b's row pos[b] starts at element
  // HINT: (b * max_len + pos[b]) * kv_size of a cache (compute it in int64_t).
  const int64_t slot = (b * max_len + pos[b]) * static_cast<int64_t>(kv_size);
  for (int i = threadIdx.x * VEC; i < q_size + 2 * kv_size; i += blockDim.x * VEC) {
    course::vec_t<T, VEC> v;
    v.load(row + i);
    if (i < q_size) {
      v.store(q + b * q_size + i);
    } else if (i < q_size + kv_size) {
      v.store(k_cache + slot + (i - q_size));
    } else {
      v.store(v_cache + slot + (i - q_size - kv_size));
    }
  }
  // END EXERCISE
}

}  // namespace

extern "C" __global__ void __launch_bounds__(256)
append_kv_f16(half* q, half* k_cache, half* v_cache, const half* qkv, const int* pos, int qo_heads,
              int kv_heads, int head_dim, int max_len) {
  append_kv(q, k_cache, v_cache, qkv, pos, qo_heads, kv_heads, head_dim, max_len);
}
extern "C" __global__ void __launch_bounds__(256)
append_kv_bf16(__nv_bfloat16* q, __nv_bfloat16* k_cache, __nv_bfloat16* v_cache, const __nv_bfloat16* qkv,
               const int* pos, int qo_heads, int kv_heads, int head_dim, int max_len) {
  append_kv(q, k_cache, v_cache, qkv, pos, qo_heads, kv_heads, head_dim, max_len);
}
