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

// The block copies n elements (a multiple of VEC) from src to dst, 16 bytes per thread per step.
template <typename T>
__device__ __forceinline__ void copy_vectors(T* __restrict__ dst, const T* __restrict__ src, int n) {
  // BEGIN EXERCISE
  // HINT: the block's threads walk the n elements side by side, VEC at a time: thread t takes the
  // HINT: vectors at t * VEC, (t + blockDim.x) * VEC, ...; each is one 16-byte load and one store.
  // HINT2: for (int i = threadIdx.x * VEC; i < n; i += blockDim.x * VEC) { course::vec_t<T, VEC> v;
  // HINT2: v.load(src + i); v.store(dst + i); }
  for (int i = threadIdx.x * VEC; i < n; i += blockDim.x * VEC) {
    course::vec_t<T, VEC> v;
    v.load(src + i);
    v.store(dst + i);
  }
  // END EXERCISE
}

template <typename T>
__device__ void append_kv(T* __restrict__ q, T* __restrict__ k_cache, T* __restrict__ v_cache,
                          const T* __restrict__ qkv, const int* __restrict__ pos, int qo_heads,
                          int kv_heads, int head_dim, int max_len) {
  // BEGIN EXERCISE
  // HINT: block b = blockIdx.x handles request b: its row of qkv is q_size + 2 * kv_size elements
  // HINT: (q_size = qo_heads * head_dim, kv_size = kv_heads * head_dim). Copy its three parts with
  // HINT: copy_vectors: the q part to q + b * q_size, the k part and the v part to row pos[b] of
  // HINT: request b in k_cache and v_cache.
  // HINT2: row = qkv + b * (q_size + 2 * kv_size); the cache row starts at element
  // HINT2: slot = (b * max_len + pos[b]) * kv_size of each cache; k is row + q_size, v is
  // HINT2: row + q_size + kv_size.
  // HINT3: compute b and slot in int64_t: batch * max_len * kv_size overflows an int for a large cache.
  const int64_t b = blockIdx.x;
  const int q_size = qo_heads * head_dim, kv_size = kv_heads * head_dim;
  const T* row = qkv + b * (q_size + 2 * kv_size);
  const int64_t slot = (b * max_len + pos[b]) * static_cast<int64_t>(kv_size);
  copy_vectors(q + b * q_size, row, q_size);
  copy_vectors(k_cache + slot, row + q_size, kv_size);
  copy_vectors(v_cache + slot, row + q_size + kv_size, kv_size);
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
