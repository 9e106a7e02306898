// Your exercise file. Generated from solutions/day12/prefill_steps.cuh by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: 47baef5738670508
// Day 12: the warp's steps of a FlashAttention-2 prefill, yours, written once. Exercise 2 (qk_tile.cu)
// grades the first two, load_q_fragments and compute_qk; exercise 3 (attention_mma.cu) and exercise 4
// (attention_prefill.cu) grade every one, through their kernels; exercises 5 and 6 (batch_prefill.cu)
// and day 13's attention variants build on them. Each exercise includes this header from beside it:
// #include "prefill_steps.cuh".
//
// One warp holds 16 query rows: q as mma A fragments, loaded once; then per K/V tile in shared memory
// s = q k^T (C fragments of 8 keys each), the mask, the online softmax (the 4 lanes of a quad share a
// row), p re-packed as A fragments and o += p v; after the last tile o / d to global memory. From
// exercise 4 on a warp holds 32 rows, two such halves: compute_qk_m32 and compute_pv_m32 (at the end of
// this header, after the steps of 16 rows) serve both halves with each K and V fragment.
// course/attention/prefill.cuh holds the tile sizes (Traits), the copies into shared memory and the
// layout of the softmax state; course/mma.cuh the ldmatrix and mma.sync wrappers and the fragment layouts.
#pragma once
#include <course/attention/prefill.cuh>

namespace steps {

using namespace course;
using namespace course::prefill;

// This warp's 16 query rows (rows 16 * warp .. 16 * warp + 15 of the q tile in shared memory) as mma
// A fragments: q[kk] is the 16 x 16 block of head-dim columns 16 kk .. 16 kk + 15.
template <typename Tr>
__device__ __forceinline__ void load_q_fragments(uint32_t (&q)[Tr::D_K16][4], const half* q_smem, int warp,
                                                 int lane) {
  // TODO: your code here.
  //   Hint: An mma A fragment of a 16 x 16 block is spread over the 32 lanes in a fixed pattern, and ldmatrix
  //   Hint: .x4 builds it from 32 row addresses, one per lane. Which row, and which 8-column half of the block,
  //   Hint: must each lane point at? (course/mma.cuh draws the fragment layouts.)
}

// s = q k^T for one K tile [BLOCK_N, HEAD_DIM] in shared memory: s[n] is the C fragment of keys
// 8 n .. 8 n + 7. k^T is the B operand (col-major [K, N]): K's rows are its columns.
template <typename Tr>
__device__ __forceinline__ void compute_qk(float (&s)[Tr::S_N8][4], const uint32_t (&q)[Tr::D_K16][4],
                                           const half* k_smem, int lane) {
  // TODO: your code here.
  //   Hint: k^T is the B operand (col-major [K, N]): a row of K, stored contiguously, is a column of k^T. Which
  //   Hint: ldmatrix variant (with or without .trans) then yields B fragments, and how many n8 key tiles can
  //   Hint: one .x4 serve?
}

// Set to -inf the scores this lane holds that its query may not see: keys at or past kv_len, and with
// CAUSAL keys past the query's diagonal. q_row: the query index of fragment row 0 of this warp; kv0:
// the key index of column 0 of the tile; causal_offset = kv_len - q_len.
template <typename Tr, bool CAUSAL>
__device__ __forceinline__ void mask_scores(float (&s)[Tr::S_N8][4], int q_row, int kv0, int kv_len,
                                            int causal_offset, int lane) {
  // TODO: your code here.
  //   Hint: The queries are the LAST q_len tokens of the sequence. Which keys may query i see, causal and not,
  //   Hint: and where in the tile does accumulator i of n8 tile n sit (the C layout, course/mma.cuh)?
}

// The 4 lanes of a group (lane / 4 equal) hold the same two fragment rows: a row's max and sum over
// the tile are the max and sum of these 4 lanes' values.
__device__ __forceinline__ float quad_max(float x) {
  // TODO: your code here.
  //   Hint: The 4 lanes that share a row are lane ^ 1 and lane ^ 2 of one another. How many shuffle steps leave
  //   Hint: all four holding the max?
  return x;
}

__device__ __forceinline__ float quad_sum(float x) {
  // TODO: your code here.
  //   Hint: as quad_max, with +.
  return x;
}

// Fold new row maxima into the state (rescale_state, below finalize_and_store): row r's max becomes
// max(m, m_tile[r]) and its d and o are rescaled to it.
template <typename Tr>
__device__ __forceinline__ void rescale_state(SoftmaxState<Tr>& state, const float (&m_tile)[2]);

// Fold one tile of raw scores s into the state (prefill.cuh's SoftmaxState: row[r] is fragment row
// lane / 4 + 8 r, with its m, d and o), and turn s into p = 2^(s * scale_log2 - m) in place, m the row's
// running max as the state keeps it. scale_log2 = sm_scale * log2(e) > 0. Masked scores (-inf) give p = 0.
//
// The rescale of o (64 multiplications per lane at head dim 128) is skipped when no row of the warp needs
// it: the branch is taken by the whole warp or not at all (a vote), so it costs nothing when skipped.
// SLACK (log2 units, >= 0): a row's max is moved only when the tile's max exceeds it by more than SLACK.
// That stays exact, because o and d are always relative to the same max and finalize divides one by the
// other; the weights p = 2^(x - m) are then at most 2^SLACK (fine for fp16 and the fp32 sums at SLACK 8).
// With SLACK 0 the max is exact and every p <= 1.
template <typename Tr, int SLACK = 0>
__device__ __forceinline__ void online_softmax(SoftmaxState<Tr>& state, float (&s)[Tr::S_N8][4],
                                               float scale_log2) {
  static_assert(SLACK >= 0 && SLACK <= 16, "p = 2^(x - m) <= 2^SLACK must stay well inside fp16");
  // TODO: your code here.
  //   Hint: Day 11's online softmax on the C fragment: each lane holds scores of 2 rows, 4 lanes share a row.
  //   Hint: What must the 4 agree on, when must the state be rescaled (rescale_state), and what must a row
  //   Hint: that has seen only masked keys produce? Rescaling is the expensive part: can the warp skip it?
}

// The probabilities p (C fragments of s, two n8 tiles per k16 step) as the A fragments of p v, in
// fp16, without a trip through shared memory.
template <typename Tr>
__device__ __forceinline__ void to_a_fragments(uint32_t (&p)[Tr::S_K16][4], const float (&s)[Tr::S_N8][4]) {
  // TODO: your code here.
  //   Hint: Compare the C layout of m16n8 with the A layout of m16n8k16 in course/mma.cuh: what does a C register
  //   Hint: pair hold, and what does an A register hold? How many n8 tiles does one k16 step of P span?
}

// o += p v for one V tile [BLOCK_N, HEAD_DIM] in shared memory; o is the state's (get_c / set_c give
// its n-th C fragment: output columns 8 n .. 8 n + 7).
template <typename Tr>
__device__ __forceinline__ void compute_pv(SoftmaxState<Tr>& state, const uint32_t (&p)[Tr::S_K16][4],
                                           const half* v_smem, int lane) {
  // TODO: your code here.
  //   Hint: V is [keys, dims] row-major: as the B operand [K = keys, N = dims] it is row-major, not the col-major
  //   Hint: layout mma's B wants. Which ldmatrix variant transposes on the way, and how many n8 output tiles
  //   Hint: does one .x4 serve?
}

// o / d, written to this warp's query rows (q_row + fragment row) that are < q_len; out points at query
// row 0 of the head. Rows that saw no key at all get 0.
template <typename Tr>
__device__ __forceinline__ void finalize_and_store(SoftmaxState<Tr>& state, half* out, int q_row, int q_len,
                                                   int lane) {
  // TODO: your code here.
  //   Hint: d is still each lane's partial sum: who holds the rest of the row's sum? What must a row that saw no
  //   Hint: key store, and which rows of the last query tile must not be stored at all?
}

// online_softmax's rescale (declared above it): row r's max becomes max(m, m_tile[r]) (log2 domain) and its d and o,
// kept relative to the old max, are rescaled to the new one. A row whose max does not grow gets the
// factor 1; a row that has seen only masked keys keeps m = -inf.
template <typename Tr>
__device__ __forceinline__ void rescale_state(SoftmaxState<Tr>& state, const float (&m_tile)[2]) {
  // TODO: your code here.
  //   Hint: Day 11's rescale, on the two rows this lane holds: by what factor must d and o be multiplied
  //   Hint: when a row's max grows from m to m_new, and what is that factor on the first tile (m = -inf)?
}

// ---- 32 query rows per warp (exercise 4; exercises 5 and 6 call them too) -----------------------------
// The warp owns two 16-row halves, rows 32 warp .. + 15 and + 16 .. + 31 of the q tile, each with its own
// s, p and SoftmaxState (index h); mask_scores, online_softmax, to_a_fragments and finalize_and_store run
// on each half as above. Only the two products change: every K and V fragment ldmatrix brings in feeds
// two mma.sync, and q is re-read from shared memory each tile instead of held in registers (0.31 ldmatrix
// per mma instead of 0.5 with 16 rows a warp, which is what shared memory's bandwidth allows).

// s = q k^T for both halves of the warp (rows 32 warp .. + 15, + 16 .. + 31 of the q tile): one ldmatrix of
// K serves two mma.sync; q's A fragments are read from shared memory, one k16 step at a time.
template <typename Tr>
__device__ __forceinline__ void compute_qk_m32(float (&s)[2][Tr::S_N8][4], const half* q_smem,
                                               const half* k_smem, int warp, int lane) {
  // TODO: your code here.
  //   Hint: Your compute_qk for two 16-row halves at once: which fragments do the halves share, and which
  //   Hint: must each half have of its own?
}

// o += p v for both halves: one transposing ldmatrix of V serves two mma.sync.
template <typename Tr>
__device__ __forceinline__ void compute_pv_m32(SoftmaxState<Tr> (&state)[2], const uint32_t (&p)[2][Tr::S_K16][4],
                                               const half* v_smem, int lane) {
  // TODO: your code here.
  //   Hint: Your compute_pv for two 16-row halves: one transposing ldmatrix of V, then an mma.sync per half.
}

// ---- not an exercise: the block's copy of one K/V tile (exercises 4 to 6 call it) ------------------

// Keys 0 .. BLOCK_N - 1 of a K/V tile into stage smem (K) and smem + KV_TILE (V) with cp.async: key r's row
// is at k + r * row_stride (and v + r * row_stride); keys >= rows_valid (>= 1) are zero-filled. prefill.cuh's
// load_rows_async, in fewer instructions: warp w copies its own band of BLOCK_N / NUM_WARPS keys, 32 / CHUNKS
// whole rows per cp.async (512 contiguous bytes at head dim 128), so a thread's chunks lie a fixed distance
// apart, which the SASS folds into the LDGSTS (with a constant row_stride: no address arithmetic at all).
// FULL (every key exists: all tiles but the sequence's last) drops the row test; a missing key of the last
// tile still gets an address, the tile's first row.
template <typename Tr, bool FULL>
__device__ __forceinline__ void load_kv_tile_async(half* smem, const half* k, const half* v, int rows_valid,
                                                   int64_t row_stride) {
  constexpr int CHUNKS = Tr::HEAD_DIM / 8, ROWS_PER_COPY = 32 / CHUNKS, BAND = Tr::BLOCK_N / Tr::NUM_WARPS;
  static_assert(32 % CHUNKS == 0 && BAND % ROWS_PER_COPY == 0, "every lane copies whole rows' chunks");
  const int lane = threadIdx.x % 32, col = (lane % CHUNKS) * 8;
  const int row = threadIdx.x / 32 * BAND + lane / CHUNKS;  // this thread's first key
  const half* k_chunk = k + row * row_stride + col;          // its other chunks: constants away
  const half* v_chunk = v + row * row_stride + col;
  smem += row * Tr::STRIDE + col;
#pragma unroll
  for (int i = 0; i < BAND / ROWS_PER_COPY; ++i) {
    const bool valid = FULL || row + i * ROWS_PER_COPY < rows_valid;
    const int64_t step = i * ROWS_PER_COPY * row_stride;
    cp_async::load_128b(smem, valid ? k_chunk + step : k, valid);
    cp_async::load_128b(smem + Tr::KV_TILE, valid ? v_chunk + step : v, valid);
    smem += ROWS_PER_COPY * Tr::STRIDE;
  }
}

// The same for keys found one by one (a paged KV cache): key r's row is at k + row_of(r) and v + row_of(r),
// keys >= rows_valid (>= 1) zero-filled. row_of is asked once per key of the tile (K and V share it): lane
// l of warp w looks up key w BAND + l % BAND (key 0 in place of a missing one) and the lanes that copy a
// key's chunks take its row from that lane with a shuffle, so a thread does one lookup per tile, not one
// per row it copies.
template <typename Tr, typename RowOf>
__device__ __forceinline__ void load_kv_rows_async(half* smem, const half* k, const half* v, RowOf row_of,
                                                   int rows_valid) {
  constexpr int CHUNKS = Tr::HEAD_DIM / 8, ROWS_PER_COPY = 32 / CHUNKS, BAND = Tr::BLOCK_N / Tr::NUM_WARPS;
  static_assert(32 % CHUNKS == 0 && BAND % ROWS_PER_COPY == 0, "every lane copies whole rows' chunks");
  static_assert(BAND <= 32, "one lane looks up each key of the warp's band");
  const int lane = threadIdx.x % 32, col = (lane % CHUNKS) * 8;
  const int band = threadIdx.x / 32 * BAND, mine = band + lane % BAND;
  const long long offset = row_of(mine < rows_valid ? mine : 0);  // this lane's key
  smem += (band + lane / CHUNKS) * Tr::STRIDE + col;
#pragma unroll
  for (int i = 0; i < BAND / ROWS_PER_COPY; ++i) {
    const int r = lane / CHUNKS + i * ROWS_PER_COPY;  // within the band
    const bool valid = band + r < rows_valid;
    const int64_t at = __shfl_sync(0xffffffffu, offset, r) + col;
    cp_async::load_128b(smem, k + at, valid);
    cp_async::load_128b(smem + Tr::KV_TILE, v + at, valid);
    smem += ROWS_PER_COPY * Tr::STRIDE;
  }
}

}  // namespace steps
