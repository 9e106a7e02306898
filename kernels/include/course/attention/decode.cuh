// course/attention/decode.cuh: the pieces of a decode-attention kernel (day 11).
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
// A score q . k_j is the sum of LANES partial dot products: a butterfly over the LANES lanes
// (group_sum). Every token group keeps its own state (m, d, o) per head (state.cuh) over the tokens
// it saw; at the end the states of the block are merged (block_merge), the way FlashInfer's
// sync_state does: first the two token groups of a warp through shuffles, then the warps through
// shared memory.
//
// Day 11's exercises write these pieces themselves first: the butterfly of group_sum and the merge
// across lane groups in exercise 3 (one warp), update_state and attend's cp.async loop in exercise 4.
// Exercise 5 (the paged kernel) then uses the course's copies below.
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

// The sum of v over the LANES lanes of this thread's lane group, returned to each of them. All 32
// lanes of the warp must call it (the lane groups of a warp reduce side by side).
template <int LANES>
COURSE_INLINE float group_sum(float v) {
#pragma unroll
  for (int offset = LANES / 2; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

// This thread's VEC dims of the G query heads q_heads[0 .. G), as float, times scale_log2 =
// sm_scale * log2(e): then q . k is directly the base-2 score x of state.cuh.
template <int G, int VEC, typename T>
COURSE_INLINE void load_query(float (&q)[G][VEC], const T* q_heads, int head_dim, int tx,
                              float scale_log2) {
#pragma unroll
  for (int g = 0; g < G; ++g) {
    load_as_float(q[g], q_heads + g * head_dim + tx * VEC);
#pragma unroll
    for (int i = 0; i < VEC; ++i) q[g][i] *= scale_log2;
  }
}

// The online-softmax step for ONE token of this thread's lane group: k and v are this thread's VEC
// dims of the token's K and V rows. A single token j is the state (o = v_j, m = x_j, d = 1), x_j its
// base-2 score: folding it in is one merge. An absent token (valid == false: past the end) gets
// x = -inf, weight 0. All 32 lanes of the warp must call it (group_sum shuffles).
template <int G, int VEC, int LANES, typename T>
COURSE_INLINE void update_state(state_t<VEC> (&st)[G], const float (&q)[G][VEC], const vec_t<T, VEC>& k,
                                const vec_t<T, VEC>& v, bool valid) {
  float vf[VEC], kf[VEC];
#pragma unroll
  for (int i = 0; i < VEC; ++i) kf[i] = to_float(k[i]), vf[i] = to_float(v[i]);
#pragma unroll
  for (int g = 0; g < G; ++g) {
    float partial = 0.f;
#pragma unroll
    for (int i = 0; i < VEC; ++i) partial += q[g][i] * kf[i];
    const float x = group_sum<LANES>(partial);  // the whole score, in every lane of the group
    st[g].merge(vf, valid ? x : -math::inf, 1.f);
  }
}

// Shared memory of attend's pipeline (STAGES slots of one K and one V vector, up to 16 bytes, per thread) and of
// block_merge (which may reuse the same bytes): the size to declare, in bytes.
template <int G, int HEAD_DIM, int BLOCK, int STAGES>
__host__ __device__ constexpr int decode_smem_bytes() {
  constexpr int pipeline = STAGES * 2 * BLOCK * 16;
  constexpr int merge = (BLOCK / 32) * G * (HEAD_DIM + 2) * 4;
  return pipeline > merge ? pipeline : merge;
}

// Attend the G query heads over tokens [begin, end): on return st[g] is this token group's state
// over its share of them. row(t) is the element offset of token t's K row (and V row: same layout)
// for this KV head; it is called only for tokens that exist. update(st, q, k, v, valid) folds one
// token in (update_state, or an exercise's own).
//
// Step s gives token begin + s * GROUPS + ty to token group ty. The K and V vectors travel with
// cp.async (course/cp_async.cuh) into this thread's own slots of a STAGES-deep ring in shared memory,
// STAGES - 1 steps ahead of the one being used: the loads stay in flight while the thread computes,
// without holding registers. Each thread reads back only what it copied itself, so wait_group alone
// orders them (no barrier). The step count is the same for the whole block: the shuffles in update
// always find all 32 lanes.
template <int G, int VEC, int LANES, int BLOCK, int STAGES, typename T, typename RowOffset, typename Update>
COURSE_INLINE void attend(state_t<VEC> (&st)[G], const float (&q)[G][VEC], const T* __restrict__ k,
                          const T* __restrict__ v, RowOffset row, int begin, int end, T* smem,
                          Update update) {
  static_assert(STAGES >= 2, "a pipeline needs at least 2 stages");
  constexpr int BYTES = sizeof(T) * VEC;  // one cp.async per row and thread: 16 bytes, 8 for fp8
  constexpr int GROUPS = BLOCK / LANES;
  const int tx = threadIdx.x % LANES, ty = threadIdx.x / LANES;
  const int steps = end > begin ? ceil_div(end - begin, GROUPS) : 0;
  auto k_slot = [&](int step) { return smem + ((step % STAGES * 2) * BLOCK + threadIdx.x) * VEC; };
  auto v_slot = [&](int step) { return smem + ((step % STAGES * 2 + 1) * BLOCK + threadIdx.x) * VEC; };
  auto offset_of = [&](int step) -> int64_t {  // where step's row is for this thread; -1: no token
    const int t = begin + step * GROUPS + ty;
    return t < end ? row(t) + tx * VEC : -1;
  };
  auto issue = [&](int step, int64_t offset) {  // one commit group per step, even an empty one:
    const bool exists = offset >= 0;             // wait_group counts groups
    cp_async::load<BYTES>(k_slot(step), k + (exists ? offset : 0), exists);  // zeros when there is no token
    cp_async::load<BYTES>(v_slot(step), v + (exists ? offset : 0), exists);
    cp_async::commit_group();
  };
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) issue(s, offset_of(s));
  // row(t) may itself read memory (a page table): it is asked one step before its copies are issued,
  // so that its latency hides behind a step of work instead of stalling the pipeline.
  int64_t ahead = offset_of(STAGES - 1);
  for (int step = 0; step < steps; ++step) {
    cp_async::wait_group<STAGES - 2>();  // this step's copies have landed
    vec_t<T, VEC> kv, vv;
    kv.load(k_slot(step));
    vv.load(v_slot(step));
    issue(step + STAGES - 1, ahead);  // into the slot read one step ago
    ahead = offset_of(step + STAGES);
    update(st, q, kv, vv, begin + step * GROUPS + ty < end);
  }
  cp_async::wait_all();  // even zero-filling copies write shared memory: none may land later
}

// Merge the states of all token groups of the block into one per head, normalise it, and call
// out(g, dim0, state) once per head g and per VEC-dim chunk dim0 (a multiple of VEC), with
// state.o the final output dims [dim0, dim0 + VEC) and state.lse2() the head's log-sum-exp (base 2).
// smem: WARPS * G * (HEAD_DIM + 2) floats; it may be attend's pipeline buffer (a barrier comes
// first). Every thread of the block must call it (barriers).
template <int G, int VEC, int LANES, int WARPS, typename Out>
COURSE_INLINE void block_merge(state_t<VEC> (&st)[G], float* smem, Out out) {
  constexpr int HEAD_DIM = LANES * VEC;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, tx = lane % LANES;
  float* smem_o = smem;                             // [WARPS][G][HEAD_DIM]
  float* smem_md = smem + WARPS * G * HEAD_DIM;     // [WARPS][G][2]
  __syncthreads();  // every thread is done with what smem held before
  // 1. The lane groups of a warp own the same dims: merge them with shuffles (lanes tx, tx + LANES...).
#pragma unroll
  for (int g = 0; g < G; ++g) {
#pragma unroll
    for (int mask = LANES; mask < 32; mask *= 2) merge_shfl_xor(st[g], mask);
  }
  // 2. One state per warp and head to shared memory (the first lane group writes it).
  if (lane < LANES) {
#pragma unroll
    for (int g = 0; g < G; ++g) {
#pragma unroll
      for (int i = 0; i < VEC; ++i) smem_o[(warp * G + g) * HEAD_DIM + tx * VEC + i] = st[g].o[i];
      smem_md[(warp * G + g) * 2] = st[g].m;
      smem_md[(warp * G + g) * 2 + 1] = st[g].d;
    }
  }
  __syncthreads();
  // 3. Thread c merges the WARPS states of one (head, VEC-dim chunk).
  for (int c = threadIdx.x; c < G * LANES; c += blockDim.x) {
    const int g = c / LANES, dim0 = (c % LANES) * VEC;
    state_t<VEC> merged;
    merged.init();
    for (int w = 0; w < WARPS; ++w) {
      float o[VEC];
#pragma unroll
      for (int i = 0; i < VEC; ++i) o[i] = smem_o[(w * G + g) * HEAD_DIM + dim0 + i];
      merged.merge(o, smem_md[(w * G + g) * 2], smem_md[(w * G + g) * 2 + 1]);
    }
    merged.normalize();
    out(g, dim0, merged);
  }
}

}  // namespace attention
}  // namespace course
