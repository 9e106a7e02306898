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
  // HINT: The whole block copies n elements, 16 bytes per thread per step. Which vectors does thread t take so
  // HINT: that a warp's accesses are consecutive?
  // HINT2: One block-strided loop over the vectors: each step one course::vec_t<T, VEC> load from src and one
  // HINT2: store to dst at the same offset.
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
  // HINT: Block b handles request b. Where do its q, k and v parts start in its qkv row, and where must each go:
  // HINT: the q output, and which row of each cache?
  // HINT2: The sizes of the q part and of a k or v part; the request's qkv row; the cache row of (b, pos[b]),
  // HINT2: the same offset in k_cache and v_cache; three copy_vectors calls.
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
