// course/attention/decode.cuh: the plumbing of a decode-attention kernel (day 11).
//
// Modelled on FlashInfer's include/flashinfer/attention/decode.cuh. Decode attention: ONE new query
// token per request attends over the request's whole KV cache. Per (request, KV head) a block reads
// kv_len rows of K and V (HEAD_DIM elements each) once; each of the g query heads sharing them spends
// 2 flops per K element (q . k) and 2 per V element (p . v): 2g flops per 2-byte element, g flops per
// byte (2g with an FP8 cache). The kernel is bound by memory bandwidth, and the goal is to stream K
// and V at the copy bandwidth.
//
// Like FlashInfer's, the kernels are templates on the element types (q and o: half or __nv_bfloat16;
// K and V: the same, or __nv_fp8_e4m3 with per-tensor scales), HEAD_DIM (64, 128, 256) and the KV
// layout (KVLayout: NHD or HND, below); a kernel file is compiled once per configuration, its
// kernels keeping their names (grader/launchers/decode.py passes the configuration as -D options).
//
// Thread layout of a block of BLOCK threads (the day's kernels use 256):
//   - LANES = HEAD_DIM / VEC threads share one KV row; thread tx = lane % LANES owns dims
//     [tx * VEC, tx * VEC + VEC) and loads them with one access (VEC = 8 elements: 16 bytes of half
//     or bf16, 8 bytes of fp8; FlashInfer gives fp8 16 elements a thread, which with G heads a
//     thread would double the registers of the state);
//   - the block's BLOCK / LANES lane groups ("token groups", index ty) take different tokens;
//   - GQA: the G query heads that share a KV head are handled by the same thread, so each K and V
//     row is read from memory once for all G heads (FlashInfer's bdy does the same with threads).
// A score q . k_j is the sum of LANES partial dot products, and every token group keeps its own state
// (m, d, o) per head (state.cuh) over the tokens it saw; at the end the states of the block are
// merged, the way FlashInfer's sync_state does.
//
// This header holds only the plumbing of such a kernel: the KV layouts, the thread layout's constants,
// loading the query and the shared-memory size. The kernel's steps (the per-token update, the cp.async
// main loop, the block's merge) are day 11's exercises 4 and 5: you write them in your own files.
#pragma once
#include "../cp_async.cuh"
#include "../math.cuh"
#include "../vec_dtypes.cuh"
#include "state.cuh"

namespace course {
namespace attention {

// Where token t of KV head h of request b is in a contiguous cache (FlashInfer's QKVLayout):
// NHD [batch, kv_len, num_kv_heads, HEAD_DIM] (tokens outermost: the rows of one head are
// num_kv_heads * HEAD_DIM elements apart) or HND [batch, num_kv_heads, kv_len, HEAD_DIM] (each head's
// rows contiguous). A paged cache: NHD [pages, page_size, num_kv_heads, HEAD_DIM], HND [pages,
// num_kv_heads, page_size, HEAD_DIM].
enum class KVLayout { NHD, HND };

template <int HEAD_DIM, int BLOCK>
struct decode_traits {
  static constexpr int VEC = 8;                        // elements of a row per thread (one access)
  static constexpr int LANES = HEAD_DIM / VEC;         // threads per KV row
  static constexpr int GROUPS = BLOCK / LANES;         // token groups per block
  static constexpr int WARPS = BLOCK / 32;
  static_assert(HEAD_DIM % VEC == 0 && 32 % LANES == 0, "HEAD_DIM must be 64, 128 or 256");
  static_assert(BLOCK % 32 == 0 && BLOCK <= 1024, "BLOCK must be whole warps");
};

// This thread's VEC dims of the G query heads q_heads[0 .. G), as float, times scale_log2 =
// sm_scale * log2(e): then q . k is directly the base-2 score x of state.cuh.
template <int G, int VEC, typename T>
COURSE_INLINE void load_query(float (&q)[G][VEC], const T* q_heads, int head_dim, int tx,
                              float scale_log2) {
#pragma unroll
  for (int h = 0; h < G; ++h) {
    load_as_float(q[h], q_heads + h * head_dim + tx * VEC);
#pragma unroll
    for (int i = 0; i < VEC; ++i) q[h][i] *= scale_log2;
  }
}

// Shared memory of a decode block: a pipeline of STAGES slots of one K and one V vector (up to 16 bytes)
// per thread, and the block's merge, WARPS * G * (HEAD_DIM + 2) floats (which may reuse the same
// bytes): the size to declare, in bytes.
template <int G, int HEAD_DIM, int BLOCK, int STAGES>
__host__ __device__ constexpr int decode_smem_bytes() {
  constexpr int pipeline = STAGES * 2 * BLOCK * 16;
  constexpr int merge = (BLOCK / 32) * G * (HEAD_DIM + 2) * 4;
  return pipeline > merge ? pipeline : merge;
}

}  // namespace attention
}  // namespace course
