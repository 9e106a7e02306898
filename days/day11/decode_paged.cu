// Your exercise file. Generated from solutions/day11/decode_paged.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: 2eea6d89222ada8f
// Day 11, exercise 5: decode attention over a paged KV cache, with split-KV for long sequences.
//
//   q: [batch, num_qo_heads, 128]                        o: like q (half)    lse2: [batch, num_qo_heads]
//   k_pages, v_pages: [num_pages, page_size, num_kv_heads, 128]  (FlashInfer's paged NHD layout)
//   kv_indptr: [batch + 1]   kv_indices: [kv_indptr[batch]]   kv_last_page_len: [batch]   (int32)
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
// chunk the block writes the final o (half) and lse2 (base-2 log-sum-exp, float). With several, each
// block writes its chunk's normalised partial result to tmp_o [batch, num_qo_heads, num_chunks, 128]
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
#include <course/attention/decode.cuh>
#include <course/fastdiv.cuh>

namespace {

using namespace course::attention;
constexpr int HEAD_DIM = 128, BLOCK = 256, STAGES = 4;
constexpr int TABLE_PAGES = 1024;  // page numbers staged in shared memory at a time (4 KiB)
using traits = decode_traits<HEAD_DIM, BLOCK>;
constexpr int VEC = traits::VEC, LANES = traits::LANES, WARPS = traits::WARPS;

template <int G>
__device__ void decode_paged(const half* __restrict__ q, const half* __restrict__ k_pages,
                             const half* __restrict__ v_pages, const int* __restrict__ kv_indptr,
                             const int* __restrict__ kv_indices, const int* __restrict__ kv_last_page_len,
                             half* __restrict__ o, float* __restrict__ lse2, float* __restrict__ tmp_o,
                             float* __restrict__ tmp_lse2, int page_size, int num_qo_heads,
                             int num_kv_heads, int chunk_tokens, float scale_log2) {
  __shared__ __align__(16) unsigned char smem[decode_smem_bytes<G, HEAD_DIM, BLOCK, STAGES>()];
  __shared__ int table[TABLE_PAGES];  // the page numbers of a segment of this request's pages
  const int b = blockIdx.z, head0 = blockIdx.y * G, chunk = blockIdx.x, num_chunks = gridDim.x;
  const int kv_head = head0 / (num_qo_heads / num_kv_heads);
  const int tx = threadIdx.x % LANES;
  const int64_t head_row = (static_cast<int64_t>(b) * num_qo_heads + head0);  // first (b, head) row

  float qr[G][VEC];
  load_query<G, VEC>(qr, q + head_row * HEAD_DIM, HEAD_DIM, tx, scale_log2);
  state_t<VEC> st[G];
  for (auto& s : st) s.init();  // empty states: m = -inf, d = 0, o = 0

  // TODO: your code here.
  //   Hint: 1. This request's length: its pages are kv_indices[first .. first + num_pages) with
  //   Hint:    first = kv_indptr[b], num_pages = kv_indptr[b + 1] - first; every page is full but the
  //   Hint:    last, which holds kv_last_page_len[b] tokens. (num_pages = 0 would mean no tokens.)
  //   Hint: 2. This block's chunk: tokens [begin, end) = [chunk * chunk_tokens, + chunk_tokens), both
  //   Hint:    clipped to kv_len (a chunk past the end is empty: begin = end).
  //   Hint: 3. Walk the chunk in segments of whole pages, at most TABLE_PAGES of them: the segment
  //   Hint:    [seg, seg_end) starting in page p0 = seg / page_size. Copy the page numbers of its pages
  //   Hint:    (request page p0 + i -> table[i]) into shared memory, one per thread, between two
  //   Hint:    __syncthreads (the last segment's lookups must be done before the table is overwritten).
  //   Hint: 4. row(t): the element offset of token t's row of this KV head in k_pages (and v_pages):
  //   Hint:    page = table[t / page_size - p0], slot = t % page_size, the pool being
  //   Hint:    [num_pages, page_size, num_kv_heads, 128]. In int64_t: pools pass 2^31 elements.
  //   Hint:    Divide with a course::uint_fastdiv made once from page_size (divmod gives both).
  //   Hint: 5. attend<G, VEC, LANES, BLOCK, STAGES>(st, qr, k_pages, v_pages, row, seg, seg_end,
  //   Hint:    reinterpret_cast<half*>(smem), update_state<G, VEC, LANES>): it adds the segment's
  //   Hint:    tokens to the states st, which carry over from segment to segment.

  block_merge<G, VEC, LANES, WARPS>(st, reinterpret_cast<float*>(smem), [&](int g, int dim0, const state_t<VEC>& s) {
    // s.o: the normalised output dims [dim0, dim0 + 8) of query head head0 + g; s.lse2(): its lse2.
    // TODO: your code here.
    //   Hint: One chunk (num_chunks == 1): store s.o as 8 halves to o (course::store_from_float) at row
    //   Hint: head_row + g, dims dim0..; the thread with dim0 == 0 writes lse2[head_row + g] = s.lse2().
    //   Hint: Several: the partial result goes to row (head_row + g) * num_chunks + chunk of tmp_o (8
    //   Hint: floats: course::vec_t<float, 8>, or two float4 stores) and of tmp_lse2.
  });
}

}  // namespace

#define PAGED_KERNEL(G)                                                                              \
  extern "C" __global__ void __launch_bounds__(BLOCK)                                                \
  decode_paged_g##G(const half* q, const half* k_pages, const half* v_pages, const int* kv_indptr,   \
                    const int* kv_indices, const int* kv_last_page_len, half* o, float* lse2,        \
                    float* tmp_o, float* tmp_lse2, int page_size, int num_qo_heads, int num_kv_heads, \
                    int chunk_tokens, float scale_log2) {                                            \
    decode_paged<G>(q, k_pages, v_pages, kv_indptr, kv_indices, kv_last_page_len, o, lse2, tmp_o,    \
                    tmp_lse2, page_size, num_qo_heads, num_kv_heads, chunk_tokens, scale_log2);      \
  }
PAGED_KERNEL(1)
PAGED_KERNEL(2)
PAGED_KERNEL(4)
PAGED_KERNEL(8)

// Split-KV, second pass: rows = batch * num_qo_heads, each with num_chunks partial results in tmp_o
// and tmp_lse2; one warp per row (grid = (ceil(rows / 4),), block = (128,)), lane l owning dims
// [4l, 4l + 4). Exercise 2's merge, with course::attention::state_t (state.cuh) holding the state.
extern "C" __global__ void __launch_bounds__(128)
merge_chunks(const float* __restrict__ tmp_o, const float* __restrict__ tmp_lse2, half* __restrict__ o,
             float* __restrict__ lse2, int rows, int num_chunks) {
  constexpr int N = HEAD_DIM / 32;
  const int lane = threadIdx.x % 32;
  const int64_t r = static_cast<int64_t>(blockIdx.x) * 4 + threadIdx.x / 32;
  if (r >= rows) return;
  // TODO: your code here.
  //   Hint: Exercise 2 again: chunk c of row r is the normalised state (o = tmp_o[r, c], m =
  //   Hint: tmp_lse2[r, c], d = 1); an empty chunk has lse2 = -inf and weighs nothing. state_t<N>
  //   Hint: (state.cuh) has init(), merge(o, m, d), normalize() and lse2(): the course's copy of yours.
}
