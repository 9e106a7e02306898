// Your exercise file. Generated from solutions/day14/append_kv.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: 7c5869355cbd8fc3
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
  // TODO: your code here.
  //   Hint: The whole block copies n elements, 16 bytes per thread per step. Which vectors does thread t take so
  //   Hint: that a warp's accesses are consecutive?
}

template <typename T>
__device__ void append_kv(T* __restrict__ q, T* __restrict__ k_cache, T* __restrict__ v_cache,
                          const T* __restrict__ qkv, const int* __restrict__ pos, int qo_heads,
                          int kv_heads, int head_dim, int max_len) {
  // TODO: your code here.
  //   Hint: Block b handles request b. Where do its q, k and v parts start in its qkv row, and where must each go:
  //   Hint: the q output, and which row of each cache?
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
