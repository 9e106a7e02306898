// Day 12, exercises 5 and 6: batch prefill with grouped-query attention (GQA) and the log-sum-exp
// (LSE), over a ragged KV (exercise 5) and over a paged KV cache (exercise 6).
//
//   q, o: [total_q, num_qo_heads, head_dim]    k, v: [total_kv, num_kv_heads, head_dim]   fp16 (NHD)
//   lse2: [total_q, num_qo_heads] float        qo_indptr, kv_indptr: [batch + 1] int32
//   paged (exercise 6): k_pages, v_pages [num_pages, page_size, num_kv_heads, head_dim], and day 11's
//   page table: kv_indptr [batch + 1] (in pages), kv_indices, kv_last_page_len [batch]
//
// Modelled on FlashInfer's BatchPrefillWithRaggedKVCacheKernel. A batch of requests of different
// lengths is packed without padding ("ragged"): request b owns query tokens qo_indptr[b] ..
// qo_indptr[b + 1] and KV tokens kv_indptr[b] .. kv_indptr[b + 1]; either may be empty. With causal,
// query i of a request sees key j of the same request iff j <= i + kv_len - qo_len (the mask aligned
// to the END of the request's KV, as in exercise 4).
//
// GQA: group = num_qo_heads / num_kv_heads query heads share one KV head. One block serves ONE KV head
// of one request, and its BLOCK_M tile rows are (query, head) pairs of the group, packed as FlashInfer
// packs them: packed row p is query p / group of query head kv_head * group + p % group. Every K/V
// tile in shared memory then serves all `group` heads. For a request of few queries (an append of a
// few tokens, a decode step) that is `group` times less K/V traffic than one block per query head,
// whose tiles would be mostly empty rows; for a long prompt the traffic is the same (a tile holds
// BLOCK_M / group queries), and the `group` heads reading one K/V tile at once share it in L2.
// grid = (max over requests of ceil(qo_len * group / BLOCK_M), num_kv_heads, batch); a block past its
// request's rows returns at once.
//
// LSE: beside o, each row's log-sum-exp of its scaled scores, in base 2 (lse2 = m + log2(d), m in
// the log2 domain, as day 11): two partial results over disjoint keys (a shared prefix and each
// request's suffix, or split-KV chunks) merge exactly with day 11's merge_states. A row that sees no
// key has o = 0 and lse2 = -inf (the empty state).
//
// The warp's steps are yours, from exercises 2 to 4 (prefill_steps.cuh, beside this file), and so is
// the pipeline: exercise 4's, brought here onto the packed rows. Yours here: where a request's keys are
// (RaggedKv; PagedKv in exercise 6), the packing, the mask of packed rows, the pipeline, the LSE.
//
// Attention variants (day 13's JIT renders them into this kernel, FlashInfer's AttentionVariant): a
// variant may transform each logit (soft-cap, ALiBi) and hide keys (a sliding window, a custom mask).
// The kernel calls apply_variant on every tile of scores, before its own mask; NoVariant compiles to nothing.
#include "prefill_steps.cuh"
#include <course/fastdiv.cuh>

#ifndef PREFILL_WARPS
#define PREFILL_WARPS 4  // warps per block (32 packed rows each)
#endif
#ifndef PREFILL_STAGES
#define PREFILL_STAGES 2  // K/V tiles in flight (>= 2)
#endif
#ifndef PREFILL_BLOCK_N
#define PREFILL_BLOCK_N 64  // keys per K/V tile
#endif

// Day 13's attention variants (outside the unnamed namespace: NoVariant's functions are never called).
namespace variant {

using namespace course;
using namespace course::prefill;

// The plain softmax: no logits transform, no mask of its own.
struct NoVariant {
  static constexpr bool ACTIVE = false;
  __device__ __forceinline__ float logits(float x, int, int, int) const { return x; }
  __device__ __forceinline__ bool visible(int, int, int) const { return true; }
};

// The variant on one tile of raw scores s (q . k, unscaled) of packed rows from p_row (query p / group,
// query head kv_head * group + p % group), keys kv0 + column. A variant sees the query's position in the
// KV, q_pos = query + q_offset (q_offset = kv_len - qo_len: the queries are the last tokens), the key's
// index and the query head; its logits() maps the scaled logit x = s * sm_scale to another, and
// visible() false hides the key (-inf).
template <typename Tr, typename Variant>
__device__ __forceinline__ void apply_variant(float (&s)[Tr::S_N8][4], const Variant& var, int p_row,
                                              const uint_fastdiv& group, int kv_head, int kv0, int q_offset,
                                              float sm_scale, int lane) {
  if constexpr (Variant::ACTIVE) {
    const float inv_scale = 1.f / sm_scale;
#pragma unroll
    for (int e = 0; e < 4 * Tr::S_N8; ++e) {  // accumulator i of n8 tile n
      const int n = e / 4, i = e % 4;
      const int p = p_row + mma::frag_c_row(lane, i), query = group.div(p);
      const int head = kv_head * group.d + p - query * group.d, key = kv0 + 8 * n + mma::frag_c_col(lane, i);
      const int q_pos = query + q_offset;
      s[n][i] = var.visible(q_pos, key, head) ? var.logits(s[n][i] * sm_scale, q_pos, key, head) * inv_scale
                                              : -math::inf;
    }
  }
}

}  // namespace variant

namespace {

using namespace course;
using namespace course::prefill;
using namespace variant;

// Exercise 4's geometry: 32 packed rows per warp (two 16-row halves), BLOCK_M = 32 * PREFILL_WARPS.
template <int HEAD_DIM>
using Config = Traits<HEAD_DIM, PREFILL_WARPS, PREFILL_BLOCK_N, PREFILL_STAGES, 32>;

// ---- where request b's keys are, for one KV head: their number `len` and row(t), the element offset
// of key t's row in k (and v). One kernel body serves both layouts. -------------------------------

// Exercise 5: k, v [total_kv, num_kv_heads, HEAD_DIM]; request b's keys are kv_indptr[b] .. kv_indptr[b + 1].
template <int HEAD_DIM>
struct RaggedKv {
  static constexpr bool STRIDED = true;  // key t's row is first_row + t * stride (the loader's short path)
  int len;
  int64_t first_row;  // element offset of key 0's row
  int64_t stride;     // elements from one key's row to the next
  __device__ RaggedKv(const int* kv_indptr, int b, int num_kv_heads, int kv_head) {
    // BEGIN EXERCISE
    // HINT: Where do request b's keys start in the packed k, and how far apart are two consecutive keys of one
    // HINT: KV head? Which type keeps a large batch's offsets exact?
    // STUB: len = 0, first_row = 0, stride = 0;
    const int first = kv_indptr[b];
    len = kv_indptr[b + 1] - first;
    first_row = (static_cast<int64_t>(first) * num_kv_heads + kv_head) * HEAD_DIM;
    stride = static_cast<int64_t>(num_kv_heads) * HEAD_DIM;
    // END EXERCISE
  }
  __device__ __forceinline__ int64_t row(int t) const { return first_row + t * stride; }
};

// Exercise 6: k, v [num_pages, page_size, num_kv_heads, HEAD_DIM] through day 11's page table: request b
// owns pages kv_indices[kv_indptr[b] .. kv_indptr[b + 1]), all full but the last (kv_last_page_len[b]
// tokens); key t is in page kv_indices[kv_indptr[b] + t / page_size], slot t % page_size.
template <int HEAD_DIM>
struct PagedKv {
  static constexpr bool STRIDED = false;  // keys are found page by page: row(t) for each one
  int len;
  const int* pages;   // this request's page numbers
  uint_fastdiv page;  // the page size, as a fast divisor (day 11)
  int num_kv_heads, kv_head;
  __device__ PagedKv(const int* kv_indptr, const int* kv_indices, const int* kv_last_page_len, int page_size,
                     int b, int num_kv_heads_, int kv_head_)
      : page(page_size), num_kv_heads(num_kv_heads_), kv_head(kv_head_) {
    // BEGIN EXERCISE
    // HINT: Day 11's decode_paged, for one request: where is its page list, and how many tokens does it hold
    // HINT: when only its last page may be partly filled, or when it has no page at all?
    // STUB: len = 0, pages = kv_indices;
    const int first = kv_indptr[b], num_pages = kv_indptr[b + 1] - first;
    pages = kv_indices + first;
    len = num_pages > 0 ? (num_pages - 1) * page_size + kv_last_page_len[b] : 0;
    // END EXERCISE
  }
  __device__ __forceinline__ int64_t row(int t) const {
    // BEGIN EXERCISE
    // HINT: Token t of the request: which of its pages, which slot in that page, which page of the pool, and
    // HINT: then which row for this KV head in [num_pages, page_size, num_kv_heads, head_dim]? `page` is a fast
    // HINT: divider by page_size (page.d).
    // STUB: return 0;
    uint32_t p, slot;
    page.divmod(t, p, slot);
    return ((static_cast<int64_t>(pages[p]) * page.d + slot) * num_kv_heads + kv_head) * HEAD_DIM;
    // END EXERCISE
  }
};

// Set to -inf the scores this lane holds that its row may not see: keys at or past kv_len, and with
// CAUSAL keys past the diagonal of the row's QUERY. p_row: the packed row of fragment row 0 of this
// warp (query p_row / group); kv0: the key index of column 0 of the tile; causal_offset = kv_len - qo_len.
template <typename Tr, bool CAUSAL>
__device__ __forceinline__ void mask_packed(float (&s)[Tr::S_N8][4], int p_row, const uint_fastdiv& group,
                                            int kv0, int kv_len, int causal_offset, int lane) {
  // BEGIN EXERCISE
  // HINT: Exercise 3's mask, with one change: a fragment row is now a packed (query, head) row. Which query
  // HINT: does packed row p belong to, and so which diagonal?
  // HINT2: The same two loops over n8 tiles and accumulators; the query of a packed row by the fast division
  // HINT2: `group`; -inf past kv_len or, causal, past that query's diagonal.
#pragma unroll
  for (int n = 0; n < Tr::S_N8; ++n) {
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const int query = group.div(p_row + mma::frag_c_row(lane, i));
      const int col = kv0 + 8 * n + mma::frag_c_col(lane, i);
      if (col >= kv_len || (CAUSAL && col > query + causal_offset)) s[n][i] = -math::inf;
    }
  }
  // END EXERCISE
}

// o / d and lse2 = m + log2(d) of this warp's rows: fragment row lane / 4 + 8 r is packed row
// p = p_row + lane / 4 + 8 r, stored (if p < packed_len) at element offset row_offset(p) of o (its
// HEAD_DIM halves) and at row_offset(p) / HEAD_DIM of lse2. A row that saw no key: o = 0, lse2 = -inf.
template <typename Tr, typename RowOffset>
__device__ __forceinline__ void finalize_with_lse(SoftmaxState<Tr>& state, half* out, float* lse2, int p_row,
                                                  int packed_len, RowOffset row_offset, int lane) {
  // BEGIN EXERCISE
  // HINT: Exercise 4's finalize_and_store plus one number per row: what is the row's base-2 log-sum-exp in
  // HINT: terms of its state (m, d), and what is it for a row that saw no key?
  // HINT2: Per row of the lane: the quad's sum of d, o normalised (0 for an empty row); for a packed row inside
  // HINT2: packed_len, the half2 pairs at row_offset(p), and one lane of the quad writes the row's lse2 (the
  // HINT2: packed row's offset divided by the head dim indexes lse2).
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    auto& st = state.row[r];
    st.d = steps::quad_sum(st.d);
    const float inv = st.d > 0.f ? math::ptx_rcp(st.d) : 0.f;
#pragma unroll
    for (int i = 0; i < 2 * Tr::D_N8; ++i) st.o[i] *= inv;
    const int p = p_row + lane / 4 + 8 * r;
    if (p < packed_len) {
      const int64_t offset = row_offset(p);
#pragma unroll
      for (int n = 0; n < Tr::D_N8; ++n) {
        const int col = 8 * n + 2 * (lane % 4);
        *reinterpret_cast<half2*>(out + offset + col) = __floats2half2_rn(st.o[2 * n], st.o[2 * n + 1]);
      }
      if (lane % 4 == 0) lse2[offset / Tr::HEAD_DIM] = st.d > 0.f ? st.m + math::ptx_log2(st.d) : -math::inf;
    }
  }
  // END EXERCISE
}

template <typename Tr, bool CAUSAL, typename Kv, typename Variant = NoVariant>
__device__ void batch_prefill(const half* __restrict__ q, const half* __restrict__ k, const half* __restrict__ v,
                              half* __restrict__ o, float* __restrict__ lse2, const int* __restrict__ qo_indptr,
                              const Kv kv, int num_qo_heads, int num_kv_heads, float sm_scale,
                              const Variant var = Variant()) {
  extern __shared__ uint4 smem_raw[];  // uint4: 16-byte aligned, as cp.async and ldmatrix need
  half* q_smem = reinterpret_cast<half*>(smem_raw);
  half* kv_smem = q_smem + Tr::Q_TILE;  // stage s: K at 2 s KV_TILE, V right after it
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int b = blockIdx.z, kv_head = blockIdx.y;
  const uint_fastdiv group(num_qo_heads / num_kv_heads);

  // BEGIN EXERCISE
  // HINT: This block serves one KV head of one request and a tile of its packed (query, head) rows. Which rows
  // HINT: exist, where does packed row p live in q and o, and which keys can the tile's queries see at all?
  // HINT2: Three things. The request's query range and packed length, the tile count, an early return for a
  // HINT2: block past them (before any barrier), and this block's first packed row (causal: longest tiles
  // HINT2: first). qo_row(p): token and head of packed row p in [total_q, num_qo_heads, head_dim], int64_t.
  // HINT2: The tile's first and last query, and from them prefill.cuh's visible_kv and first_masked_tile.
  // HINT3: Packed row p is query p / group of head kv_head * group + p % group; compute the quotient once with
  // HINT3: the fast divider and get the remainder as p - quotient * group. The tile's last query comes from its
  // HINT3: last VALID packed row (the last tile may be partial), not from p0 + BLOCK_M - 1.
  // STUB: const int qo_len = 0, kv_len = 0, packed_len = 0, p0 = 0, kv_end = 0, mask_from = 0;
  // STUB: auto qo_row = [=](int p) -> int64_t { return 0; };
  // STUB: return;
  const int qo_start = qo_indptr[b], qo_len = qo_indptr[b + 1] - qo_start;
  const int kv_len = kv.len;
  const int packed_len = qo_len * static_cast<int>(group.d);
  const int tiles = ceil_div(packed_len, Tr::BLOCK_M);
  if (static_cast<int>(blockIdx.x) >= tiles) return;
  const int p0 = (CAUSAL ? tiles - 1 - static_cast<int>(blockIdx.x) : blockIdx.x) * Tr::BLOCK_M;
  auto qo_row = [=](int p) -> int64_t {
    const int i = group.div(p);
    return (static_cast<int64_t>(qo_start + i) * num_qo_heads + kv_head * group.d + p - i * group.d) * Tr::HEAD_DIM;
  };
  const int q_first = group.div(p0), q_last = group.div(min(p0 + Tr::BLOCK_M, packed_len) - 1);
  const int kv_end = visible_kv<CAUSAL>(q_first, q_last - q_first + 1, qo_len, kv_len);
  const int mask_from = first_masked_tile<CAUSAL>(q_first, Tr::BLOCK_N, qo_len, kv_len);
  // END EXERCISE

  // Exercise 4's pipeline over the K/V tiles [0, kv_end), on the packed rows: load_kv copies tile t into a stage.
  const int num_tiles = ceil_div(kv_end, Tr::BLOCK_N);
  const float scale_log2 = sm_scale * math::log2e;
  // A ragged tile's keys are kv.stride apart: prefill_steps.cuh's load_kv_tile_async, its short path for every
  // full tile. A paged tile's keys are looked up one by one (load_kv_rows_async: once for K and V).
  auto load_kv = [&](int t, int stage) {
    half* k_dst = kv_smem + 2 * stage * Tr::KV_TILE;
    const int key0 = t * Tr::BLOCK_N, rows = kv_len - key0;
    if constexpr (Kv::STRIDED) {
      const int64_t first = kv.row(key0);
      if (rows >= Tr::BLOCK_N) {
        steps::load_kv_tile_async<Tr, true>(k_dst, k + first, v + first, Tr::BLOCK_N, kv.stride);
      } else {
        steps::load_kv_tile_async<Tr, false>(k_dst, k + first, v + first, rows, kv.stride);
      }
    } else {
      steps::load_kv_rows_async<Tr>(k_dst, k, v, [=](int r) { return kv.row(key0 + r); }, rows);
    }
  };
  float s[2][Tr::S_N8][4];  // the warp's two 16-row halves: packed rows p0 + 32 warp + 16 h
  uint32_t p_frag[2][Tr::S_K16][4];
  SoftmaxState<Tr> state[2];
  state[0].init();
  state[1].init();

  // BEGIN EXERCISE
  // HINT: Your exercise 4 (attention_prefill.cu), its prologue and its loop, on this kernel's rows and keys:
  // HINT: what replaces the contiguous q tile and K/V tiles, and what runs on each tile's scores before
  // HINT: the mask (day 13 renders its attention variants there)?
  // HINT2: The q tile gathered by packed row (load_rows_async, qo_row), the first STAGES - 1 K/V tiles with
  // HINT2: load_kv, one group committed per tile; then the loop of exercise 4 with apply_variant before the
  // HINT2: mask of packed rows, and your warp steps (steps::...) in their order.
  load_rows_async<Tr::BLOCK_M, Tr::HEAD_DIM, Tr::THREADS>(q_smem, [=](int r) { return q + qo_row(p0 + r); },
                                                          packed_len - p0);
#pragma unroll
  for (int t = 0; t < Tr::STAGES - 1; ++t) {
    if (t < num_tiles) load_kv(t, t);
    cp_async::commit_group();
  }
  cp_async::wait_group<Tr::STAGES - 2>();
  __syncthreads();
  for (int j = 0; j < num_tiles; ++j) {
    cp_async::wait_group<Tr::STAGES - 2>();
    __syncthreads();
    const int next = j + Tr::STAGES - 1;
    if (next < num_tiles) load_kv(next, next % Tr::STAGES);
    cp_async::commit_group();
    const half* k_smem = kv_smem + 2 * (j % Tr::STAGES) * Tr::KV_TILE;
    steps::compute_qk_m32<Tr>(s, q_smem, k_smem, warp, lane);
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int p_row = p0 + 32 * warp + 16 * h;
      apply_variant<Tr>(s[h], var, p_row, group, kv_head, j * Tr::BLOCK_N, kv_len - qo_len, sm_scale,
                        lane);  // day 13's variants; nothing by default
      if (j >= mask_from) mask_packed<Tr, CAUSAL>(s[h], p_row, group, j * Tr::BLOCK_N, kv_len, kv_len - qo_len, lane);
      steps::online_softmax<Tr>(state[h], s[h], scale_log2);
      steps::to_a_fragments<Tr>(p_frag[h], s[h]);
    }
    steps::compute_pv_m32<Tr>(state, p_frag, k_smem + Tr::KV_TILE, lane);
  }
  // END EXERCISE
  cp_async::wait_all();
#pragma unroll
  for (int h = 0; h < 2; ++h) finalize_with_lse<Tr>(state[h], o, lse2, p0 + 32 * warp + 16 * h, packed_len, qo_row, lane);
}

template <typename Tr, typename Kv, typename Variant = NoVariant>
__device__ void batch_prefill_dispatch(const half* q, const half* k, const half* v, half* o, float* lse2,
                                       const int* qo_indptr, const Kv kv, int num_qo_heads, int num_kv_heads,
                                       int causal, float sm_scale, const Variant var = Variant()) {
  if (causal) {
    batch_prefill<Tr, true>(q, k, v, o, lse2, qo_indptr, kv, num_qo_heads, num_kv_heads, sm_scale, var);
  } else {
    batch_prefill<Tr, false>(q, k, v, o, lse2, qo_indptr, kv, num_qo_heads, num_kv_heads, sm_scale, var);
  }
}

}  // namespace

// grid = (tiles, num_kv_heads, batch) for both: blockIdx.z is the request, blockIdx.y the KV head.
// (Day 13's JIT includes this file to render attention variants; it brings its own kernels.)
#ifndef COURSE_JIT
#define BATCH_PREFILL_KERNELS(D)                                                                        \
  extern "C" __global__ void __launch_bounds__(Config<D>::THREADS)                                     \
  batch_prefill_d##D(const half* q, const half* k, const half* v, half* o, float* lse2,                \
                     const int* qo_indptr, const int* kv_indptr, int num_qo_heads, int num_kv_heads,   \
                     int causal, float sm_scale) {                                                     \
    const RaggedKv<D> kv(kv_indptr, blockIdx.z, num_kv_heads, blockIdx.y);                             \
    batch_prefill_dispatch<Config<D>>(q, k, v, o, lse2, qo_indptr, kv, num_qo_heads, num_kv_heads,     \
                                      causal, sm_scale);                                                \
  }                                                                                                     \
  extern "C" __global__ void __launch_bounds__(Config<D>::THREADS)                                     \
  batch_prefill_paged_d##D(const half* q, const half* k_pages, const half* v_pages, half* o, float* lse2, \
                           const int* qo_indptr, const int* kv_indptr, const int* kv_indices,          \
                           const int* kv_last_page_len, int page_size, int num_qo_heads,               \
                           int num_kv_heads, int causal, float sm_scale) {                             \
    const PagedKv<D> kv(kv_indptr, kv_indices, kv_last_page_len, page_size, blockIdx.z, num_kv_heads,   \
                        blockIdx.y);                                                                    \
    batch_prefill_dispatch<Config<D>>(q, k_pages, v_pages, o, lse2, qo_indptr, kv, num_qo_heads,       \
                                      num_kv_heads, causal, sm_scale);                                  \
  }
BATCH_PREFILL_KERNELS(64)
BATCH_PREFILL_KERNELS(128)
#endif

// The launch geometry, for the grader: per head dim (64, then 128) BLOCK_M, threads, shared bytes.
extern "C" __global__ void batch_prefill_config(int* out) {
  const int values[6] = {Config<64>::BLOCK_M, Config<64>::THREADS, Config<64>::SMEM_BYTES,
                         Config<128>::BLOCK_M, Config<128>::THREADS, Config<128>::SMEM_BYTES};
  for (int i = 0; i < 6; ++i) out[i] = values[i];
}
