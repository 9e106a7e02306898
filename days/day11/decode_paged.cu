// Your exercise file. Generated from solutions/day11/decode_paged.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: 347c4c79964fab8e
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
  // TODO: your code here.
  //   Hint: Your update() of exercise 4, as it is.
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
  // TODO: your code here.
  //   Hint: Your main loop of exercise 4, with the token's row now a function. row(t) may itself read memory
  //   Hint: (the page table): when should it be asked, so that its latency does not stall the pipeline?
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
  // TODO: your code here.
  //   Hint: Your merge_and_store of exercise 4: the same three levels, ending in a call of out() instead of
  //   Hint: a store.
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

  // TODO: your code here.
  //   Hint: Which tokens does this block own, and where is each one in the pool? Looking up its page number
  //   Hint: and dividing by page_size once per token cost 13 points of bandwidth (header): what can the
  //   Hint: block do once for many tokens instead?

  block_merge<G, VEC, LANES, WARPS>(st, reinterpret_cast<float*>(smem), [&](int g, int dim0, const state_t<VEC>& s) {
    // s.o: the normalised output dims [dim0, dim0 + 8) of query head head0 + g; s.lse2(): its lse2.
    // TODO: your code here.
    //   Hint: One chunk: this block's result is final. Several: it is one part for merge_chunks to combine, in
    //   Hint: float. What must each case write, and where?
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
  // TODO: your code here.
  //   Hint: Exercise 2 again: what state is a normalised chunk result, and what does an empty chunk weigh?
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
