// Day 11, exercise 5: decode attention over a paged KV cache, with split-KV for long sequences.
//
//   q: [batch, num_qo_heads, D]                        o: like q    lse2: [batch, num_qo_heads] (float)
//   k_pages, v_pages: [num_pages, page_size, num_kv_heads, D]  (FlashInfer's paged NHD layout) or
//                     [num_pages, num_kv_heads, page_size, D]  (HND)
//   kv_indptr: [batch + 1]   kv_indices: [kv_indptr[batch]]   kv_last_page_len: [batch]   (int32)
//
// A template like exercise 4's, compiled per configuration the same way (the end of the file): q and
// o half or bf16, the pages the same or fp8 e4m3 (q and o half; k_scale folded into q, v_scale
// applied to the output), D = HEAD_DIM 64, 128 or 256, layout NHD or HND.
//
// Modelled on FlashInfer's BatchDecodeWithPagedKVCacheKernel and its split-KV ("partition_kv") path.
// Request b owns the pages kv_indices[kv_indptr[b] .. kv_indptr[b + 1]), in order; all of them are
// full except the last, which holds kv_last_page_len[b] tokens (1 .. page_size). Token t of request
// b is in page kv_indices[kv_indptr[b] + t / page_size], slot t % page_size. The pages of a request
// can be anywhere in the pool, in any order: that is what lets a server grow and free KV caches
// without moving them.
//
// Split-KV: with few requests (a small batch) there are too few (request, head) blocks to keep 132
// SMs busy, however long the sequences. So each request's tokens are cut into chunks of chunk_tokens
// tokens, one block per chunk: grid = (num_chunks, num_qo_heads / G, batch), block = (256,). With one
// chunk the block writes the final o and lse2 (base-2 log-sum-exp, float). With several, each
// block writes its chunk's normalised partial result to tmp_o [batch, num_qo_heads, num_chunks, D]
// and tmp_lse2 [batch, num_qo_heads, num_chunks] (float), and the kernel merge_chunks (below: YOUR
// merge of exercise 2, once more) combines them. A chunk past the end of a shorter request has no tokens: its
// block still writes its partial result, the empty state (o = 0, lse2 = -inf), which weighs nothing.
//
// At the bandwidth ceiling (FlashInfer does both): a token's page comes from the page table, a global
// load that the pipeline waits for one step later, and from t / page_size, a division by a run-time
// value (~20 instructions). Done once per token, they cost 13 points of bandwidth at batch 32 (H100:
// 78% of the copy bandwidth, against 91% without them: 83% staging the table alone, 88% with the fast
// division alone). So the block first copies the page numbers of up to TABLE_PAGES pages into shared
// memory with one coalesced read, then streams those tokens; and t / page_size is a uint_fastdiv
// (course/fastdiv.cuh: one multiply-high and a shift).
//
// The block's steps are exercise 4's, yours: update_state (your update()), attend (your main loop,
// with the token's row a function, for the page walk) and block_merge (your merge_and_store, the store
// left to a function). Bring them over from your decode_attention.cu first.
#include <course/attention/decode.cuh>
#include <course/fastdiv.cuh>

namespace {

using namespace course::attention;
constexpr int BLOCK = 256, STAGES = 4;
constexpr int TABLE_PAGES = 1024;  // page numbers staged in shared memory at a time (4 KiB)
constexpr int VEC = decode_traits<128, BLOCK>::VEC, WARPS = BLOCK / 32;  // VEC = 8 for every HEAD_DIM

// Fold one token into the G states of this thread (exercise 4's update()): k and v are this thread's
// VEC dims of the token's K and V rows; an absent token (valid == false: past the end) must not
// count. All 32 lanes of the warp call this together, the LANES lanes of a token group with the same
// token.
template <int G, int VEC, int LANES, typename T>
__device__ __forceinline__ void update_state(state_t<VEC> (&st)[G], const float (&q)[G][VEC],
                                             const course::vec_t<T, VEC>& k, const course::vec_t<T, VEC>& v,
                                             bool valid) {
  // BEGIN EXERCISE
  // HINT: Your update() of exercise 4, as it is.
  // HINT2: k and v to float once; per head the partial dot product, the butterfly over the LANES lanes, the
  // HINT2: score (-inf when not valid) folded into st[g]: a single token is the state (o = v, m = x, d = 1).
  // HINT3: Every lane shuffles for every token, valid or not: the butterfly comes before anything that
  // HINT3: could skip it.
  float kf[VEC], vf[VEC];
#pragma unroll
  for (int i = 0; i < VEC; ++i) kf[i] = course::to_float(k[i]), vf[i] = course::to_float(v[i]);
#pragma unroll
  for (int g = 0; g < G; ++g) {
    float x = 0.f;
#pragma unroll
    for (int i = 0; i < VEC; ++i) x += q[g][i] * kf[i];
#pragma unroll
    for (int mask = LANES / 2; mask > 0; mask /= 2) x += __shfl_xor_sync(0xffffffffu, x, mask);
    st[g].merge(vf, valid ? x : -course::math::inf, 1.f);
  }
  // END EXERCISE
}

// Attend the G query heads over tokens [begin, end) (exercise 4's main loop, for any token order): on
// return st[g] is this token group's state over its share of them. Step s gives token
// begin + s * GROUPS + ty to token group ty. row(t) is the element offset of token t's K row (and V
// row: same layout) for this KV head, to which the thread adds its own dims; call it only for tokens
// that exist. update(st, q, k, v, valid) folds one token in. smem: the pipeline's ring,
// STAGES * 2 * BLOCK * 16 bytes. Every thread of the block calls it (update shuffles).
template <int G, int VEC, int LANES, int BLOCK, int STAGES, typename T, typename RowOffset, typename Update>
__device__ __forceinline__ void attend(state_t<VEC> (&st)[G], const float (&q)[G][VEC], const T* __restrict__ k,
                                       const T* __restrict__ v, RowOffset row, int begin, int end, T* smem,
                                       Update update) {
  static_assert(STAGES >= 2, "a pipeline needs at least 2 stages");
  constexpr int BYTES = sizeof(T) * VEC, GROUPS = BLOCK / LANES;
  const int tx = threadIdx.x % LANES, ty = threadIdx.x / LANES;
  // BEGIN EXERCISE
  // HINT: Your main loop of exercise 4, with the token's row now a function. row(t) may itself read memory
  // HINT: (the page table): when should it be asked, so that its latency does not stall the pipeline?
  // HINT2: The same ring of STAGES slots per thread; the prologue issues the first STAGES - 1 steps; each step
  // HINT2: waits for its own copies, reads them, issues the step STAGES - 1 ahead into the slot just read,
  // HINT2: and calls update. The offset of the step after that is computed one step before its copies
  // HINT2: are issued. Drain the ring after the loop.
  // HINT3: An empty commit group still counts for wait_group: commit one on every step, even past the end.
  // HINT3: The step count, ceil((end - begin) / GROUPS), is the same in every thread (0 for an empty range).
  const int steps = end > begin ? course::ceil_div(end - begin, GROUPS) : 0;
  auto slot = [&](int step, int which) {  // which 0: K, 1: V
    return smem + ((step % STAGES * 2 + which) * BLOCK + threadIdx.x) * VEC;
  };
  auto offset_of = [&](int step) -> int64_t {  // -1: no token
    const int t = begin + step * GROUPS + ty;
    return t < end ? row(t) + tx * VEC : -1;
  };
  auto issue = [&](int step, int64_t offset) {
    const bool there = offset >= 0;
    course::cp_async::load<BYTES>(slot(step, 0), k + (there ? offset : 0), there);  // zeros if no token
    course::cp_async::load<BYTES>(slot(step, 1), v + (there ? offset : 0), there);
    course::cp_async::commit_group();  // even an empty group: wait_group counts them
  };
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) issue(s, offset_of(s));
  int64_t ahead = offset_of(STAGES - 1);  // asked one step before its copies are issued
  for (int s = 0; s < steps; ++s) {
    course::cp_async::wait_group<STAGES - 2>();
    course::vec_t<T, VEC> kv, vv;
    kv.load(slot(s, 0));
    vv.load(slot(s, 1));
    issue(s + STAGES - 1, ahead);  // into the slot read one step ago
    ahead = offset_of(s + STAGES);
    update(st, q, kv, vv, begin + s * GROUPS + ty < end);
  }
  course::cp_async::wait_all();  // even zero-filling copies write shared memory: none may land later
  // END EXERCISE
}

// Merge the states of all token groups of the block into one per head, normalise it, and call
// out(g, dim0, state) once per head g and per VEC-dim chunk dim0 (a multiple of VEC), with state.o
// the final output dims [dim0, dim0 + VEC) and state.lse2() the head's log-sum-exp (base 2) (exercise
// 4's merge_and_store, with the store left to `out`). smem: WARPS * G * (HEAD_DIM + 2) floats; it may
// be attend's ring. Every thread of the block calls it.
template <int G, int VEC, int LANES, int WARPS, typename Out>
__device__ __forceinline__ void block_merge(state_t<VEC> (&st)[G], float* smem, Out out) {
  constexpr int HEAD_DIM = LANES * VEC;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, tx = lane % LANES;
  float* part_o = smem;                          // [WARPS][G][HEAD_DIM]
  float* part_md = smem + WARPS * G * HEAD_DIM;  // [WARPS][G][2]: m, d
  // BEGIN EXERCISE
  // HINT: Your merge_and_store of exercise 4: the same three levels, ending in a call of out() instead of
  // HINT: a store.
  // HINT2: A barrier; shuffles across the token groups of a warp; token group 0 of each warp to shared memory;
  // HINT2: a barrier; threads strided over G * LANES merge the WARPS states of one (head, chunk), normalise,
  // HINT2: and hand it to out.
  // HINT3: All 32 lanes take part in the shuffles; the strided loop steps by blockDim.x.
  __syncthreads();  // every thread is done with what smem held before
#pragma unroll
  for (int g = 0; g < G; ++g) {
#pragma unroll
    for (int mask = LANES; mask < 32; mask *= 2) {
      float o_other[VEC];
#pragma unroll
      for (int i = 0; i < VEC; ++i) o_other[i] = __shfl_xor_sync(0xffffffffu, st[g].o[i], mask);
      const float m_other = __shfl_xor_sync(0xffffffffu, st[g].m, mask);
      st[g].merge(o_other, m_other, __shfl_xor_sync(0xffffffffu, st[g].d, mask));
    }
  }
  if (lane < LANES) {
#pragma unroll
    for (int g = 0; g < G; ++g) {
      const int at = warp * G + g;
#pragma unroll
      for (int i = 0; i < VEC; ++i) part_o[at * HEAD_DIM + tx * VEC + i] = st[g].o[i];
      part_md[at * 2] = st[g].m;
      part_md[at * 2 + 1] = st[g].d;
    }
  }
  __syncthreads();
  for (int c = threadIdx.x; c < G * LANES; c += blockDim.x) {
    const int g = c / LANES, dim0 = c % LANES * VEC;
    state_t<VEC> total;
    total.init();
    for (int w = 0; w < WARPS; ++w) {
      const int at = w * G + g;
      float o_w[VEC];
#pragma unroll
      for (int i = 0; i < VEC; ++i) o_w[i] = part_o[at * HEAD_DIM + dim0 + i];
      total.merge(o_w, part_md[at * 2], part_md[at * 2 + 1]);
    }
    total.normalize();
    out(g, dim0, total);
  }
  // END EXERCISE
}

template <int G, typename DTypeQ, typename DTypeKV, int HEAD_DIM, KVLayout LAYOUT>
__device__ void decode_paged(const DTypeQ* __restrict__ q, const DTypeKV* __restrict__ k_pages,
                             const DTypeKV* __restrict__ v_pages, const int* __restrict__ kv_indptr,
                             const int* __restrict__ kv_indices, const int* __restrict__ kv_last_page_len,
                             DTypeQ* __restrict__ o, float* __restrict__ lse2, float* __restrict__ tmp_o,
                             float* __restrict__ tmp_lse2, int page_size, int num_qo_heads,
                             int num_kv_heads, int chunk_tokens, float scale_log2, float k_scale,
                             float v_scale) {
  constexpr int LANES = decode_traits<HEAD_DIM, BLOCK>::LANES;
  __shared__ __align__(16) unsigned char smem[decode_smem_bytes<G, HEAD_DIM, BLOCK, STAGES>()];
  __shared__ int table[TABLE_PAGES];  // the page numbers of a segment of this request's pages
  const int b = blockIdx.z, head0 = blockIdx.y * G, chunk = blockIdx.x, num_chunks = gridDim.x;
  const int kv_head = head0 / (num_qo_heads / num_kv_heads);
  const int tx = threadIdx.x % LANES;
  const int64_t head_row = (static_cast<int64_t>(b) * num_qo_heads + head0);  // first (b, head) row

  float qr[G][VEC];
  // k_scale (an fp8 cache's; 1 otherwise) folded into q: (q . k_scale k) * sm_scale
  load_query<G, VEC>(qr, q + head_row * HEAD_DIM, HEAD_DIM, tx, scale_log2 * k_scale);
  state_t<VEC> st[G];
  for (auto& s : st) s.init();  // empty states: m = -inf, d = 0, o = 0

  // BEGIN EXERCISE
  // HINT: Which tokens does this block own, and where is each one in the pool? Looking up its page number
  // HINT: and dividing by page_size once per token cost 13 points of bandwidth (header): what can the
  // HINT: block do once for many tokens instead?
  // HINT2: Four steps: the request's length from its page list; this chunk's token range, clipped; a walk over
  // HINT2: that range in segments of at most TABLE_PAGES pages, each segment's page numbers staged in the
  // HINT2: shared table between two barriers; per segment, a row(t) function (fast division, both layouts,
  // HINT2: int64_t) handed to your own pipelined main loop (exercise 4's), the states carrying over.
  // HINT3: row(t): the fast division's divmod gives the request's page index p and the slot in that page; the
  // HINT3: table holds the segment's pages from p0 on, so the pool page is table[p - p0]. NHD: a pool page is
  // HINT3: page_size rows of num_kv_heads heads; HND: num_kv_heads blocks of page_size rows. A lambda that
  // HINT3: captures by value works (the __shared__ table is not copied). A request with no pages has no
  // HINT3: tokens: kv_len 0, not (0 - 1) * page_size + ...
  const int first = kv_indptr[b], num_pages = kv_indptr[b + 1] - first;
  const int kv_len = num_pages > 0 ? (num_pages - 1) * page_size + kv_last_page_len[b] : 0;
  const int begin = min(kv_len, chunk * chunk_tokens), end = min(kv_len, begin + chunk_tokens);
  const int* pages = kv_indices + first;
  const course::uint_fastdiv page(page_size);  // t / page_size for every token: a multiply-high
  for (int seg = begin; seg < end;) {
    const int p0 = seg / page_size;  // once a segment: a plain division is fine
    const int seg_end = min(end, (p0 + TABLE_PAGES) * page_size);
    const int pages_here = (seg_end - 1) / page_size - p0 + 1;
    __syncthreads();  // every lookup into the previous segment's table is done
    for (int i = threadIdx.x; i < pages_here; i += BLOCK) table[i] = pages[p0 + i];
    __syncthreads();
    auto row = [=](int t) -> int64_t {
      uint32_t p, in_page;
      page.divmod(t, p, in_page);
      const int64_t pool_page = static_cast<int64_t>(table[p - p0]);
      if constexpr (LAYOUT == KVLayout::HND) {
        return ((pool_page * num_kv_heads + kv_head) * page_size + in_page) * HEAD_DIM;
      } else {
        const int64_t slot = pool_page * page_size + in_page;
        return (slot * num_kv_heads + kv_head) * HEAD_DIM;
      }
    };
    attend<G, VEC, LANES, BLOCK, STAGES>(st, qr, k_pages, v_pages, row, seg, seg_end,
                                         reinterpret_cast<DTypeKV*>(smem), update_state<G, VEC, LANES, DTypeKV>);
    seg = seg_end;
  }
  // END EXERCISE

  block_merge<G, VEC, LANES, WARPS>(st, reinterpret_cast<float*>(smem), [&](int g, int dim0, const state_t<VEC>& s) {
    // s.o: the normalised output dims [dim0, dim0 + 8) of query head head0 + g; s.lse2(): its lse2.
    // BEGIN EXERCISE
    // HINT: One chunk: this block's result is final. Several: it is one part for merge_chunks to combine, in
    // HINT: float. What must each case write, and where?
    // HINT2: Both cases scale the normalised output by v_scale. One chunk: 8 DTypeQ at the head's row of o, and
    // HINT2: the lse2 written once per head. Several: 8 floats at the (row, chunk) part of tmp_o (two 16-byte
    // HINT2: stores) and its lse2 in tmp_lse2.
    const int64_t r = head_row + g;
    float out[VEC];
#pragma unroll
    for (int i = 0; i < VEC; ++i) out[i] = s.o[i] * v_scale;
    if (num_chunks == 1) {
      course::store_from_float(o + r * HEAD_DIM + dim0, out);
      if (dim0 == 0) lse2[r] = s.lse2();
    } else {
      const int64_t part = r * num_chunks + chunk;
      course::vec_t<float, 4> lo, hi;
#pragma unroll
      for (int i = 0; i < 4; ++i) lo[i] = out[i], hi[i] = out[4 + i];
      lo.store(tmp_o + part * HEAD_DIM + dim0);
      hi.store(tmp_o + part * HEAD_DIM + dim0 + 4);
      if (dim0 == 0) tmp_lse2[part] = s.lse2();
    }
    // END EXERCISE
  });
}

// Split-KV, second pass (the kernel merge_chunks): rows = batch * num_qo_heads, each with num_chunks
// partial results in tmp_o and tmp_lse2; one warp per row (grid = (ceil(rows / 4),), block = (128,)),
// lane l owning dims [N l, N l + N), N = HEAD_DIM / 32. Exercise 2's merge, with
// course::attention::state_t (state.cuh) holding the state. T: the output type (half or bf16).
template <typename T, int HEAD_DIM>
__device__ void merge_parts(const float* __restrict__ tmp_o, const float* __restrict__ tmp_lse2,
                             T* __restrict__ o, float* __restrict__ lse2, int rows, int num_chunks) {
  constexpr int N = HEAD_DIM / 32, W = N < 4 ? N : 4;  // N floats a lane, loaded W (<= 16 bytes) at a time
  const int lane = threadIdx.x % 32;
  const int64_t r = static_cast<int64_t>(blockIdx.x) * 4 + threadIdx.x / 32;
  if (r >= rows) return;
  // BEGIN EXERCISE
  // HINT: Exercise 2 again: what state is a normalised chunk result, and what does an empty chunk weigh?
  // HINT2: One state_t per lane, empty at first; a loop over the chunks, each loaded with 16-byte vector
  // HINT2: loads and merged; then normalised, stored as T, and the lse2 written by one lane.
  state_t<N> st;
  st.init();
  for (int c = 0; c < num_chunks; ++c) {
    const int64_t part = r * num_chunks + c;
    float o_c[N];
#pragma unroll
    for (int j = 0; j < N; j += W) {
      course::vec_t<float, W> chunk_o;
      chunk_o.load(tmp_o + part * HEAD_DIM + lane * N + j);
#pragma unroll
      for (int i = 0; i < W; ++i) o_c[j + i] = chunk_o[i];
    }
    st.merge(o_c, tmp_lse2[part], 1.f);
  }
  st.normalize();
  course::store_from_float(o + r * HEAD_DIM + lane * N, st.o);
  if (lane == 0) lse2[r] = st.lse2();
  // END EXERCISE
}

}  // namespace

// The instantiations, named decode_paged_g<G> and merge_chunks: by default the tuned case, fp16,
// HEAD_DIM 128, NHD; the grader compiles this file again for each other configuration
// (course/attention/decode_config.cuh).
#include <course/attention/decode_config.cuh>
#define PAGED_KERNEL(G)                                                                               \
  extern "C" __global__ void __launch_bounds__(BLOCK)                                                 \
  decode_paged_g##G(const DECODE_Q* q, const DECODE_KV* k_pages, const DECODE_KV* v_pages,            \
                    const int* kv_indptr, const int* kv_indices, const int* kv_last_page_len,         \
                    DECODE_Q* o, float* lse2, float* tmp_o, float* tmp_lse2, int page_size,           \
                    int num_qo_heads, int num_kv_heads, int chunk_tokens,                             \
                    float scale_log2 DECODE_SCALE_PARAMS) {                                           \
    decode_paged<G, DECODE_Q, DECODE_KV, DECODE_HEAD_DIM, KVLayout::DECODE_LAYOUT>(                  \
        q, k_pages, v_pages, kv_indptr, kv_indices, kv_last_page_len, o, lse2, tmp_o, tmp_lse2,        \
        page_size, num_qo_heads, num_kv_heads, chunk_tokens, scale_log2, DECODE_SCALE_ARGS);          \
  }
PAGED_KERNEL(1)
PAGED_KERNEL(2)
PAGED_KERNEL(4)
#if DECODE_HEAD_DIM < 256  // G = 8 at d256: block_merge's 66 KiB pass the 48 KiB of static shared memory
PAGED_KERNEL(8)
#endif

extern "C" __global__ void __launch_bounds__(128)
merge_chunks(const float* tmp_o, const float* tmp_lse2, DECODE_Q* o, float* lse2, int rows, int num_chunks) {
  merge_parts<DECODE_Q, DECODE_HEAD_DIM>(tmp_o, tmp_lse2, o, lse2, rows, num_chunks);
}
