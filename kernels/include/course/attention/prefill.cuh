// course/attention/prefill.cuh: the scaffolding of a FlashAttention-2 style prefill kernel (day 12).
//
// Modelled on FlashInfer's include/flashinfer/attention/prefill.cuh, rewritten for the course. One
// thread block owns BLOCK_M = WARP_M * NUM_WARPS query rows of one head; each warp owns WARP_M of them
// (16, or from exercise 4 on 32: two 16-row halves, each with the state below) and keeps, in registers,
// for its whole life:
//
//   q   the 16 x HEAD_DIM query rows as mma A fragments (loaded once with ldmatrix; at 32 rows a warp
//       re-read from the q tile in shared memory each K/V tile instead)
//   s   the 16 x BLOCK_N scores of the current K/V tile (mma C fragments, float)
//   o   the 16 x HEAD_DIM output accumulator (float), and per row m (running max) and d (running
//       sum of exponentials): the online-softmax state of day 11 (attention/state.cuh)
//
// Per K/V tile of BLOCK_N keys:  s = q k^T (mma) -> mask -> online softmax (rescale o and d by
// 2^(m_old - m_new), p = 2^(s - m_new)) -> o += p v (mma, with p re-packed from C into A fragments,
// no trip through shared memory). At the end o / d is written out. Those steps are the day's
// exercises (solutions/day12/*.cu); this header holds what they stand on: the tile sizes, the copies
// of K/V tiles into shared memory, the layout of the softmax state, and which tiles a block visits.
//
// Layouts (FlashInfer's "HND" with batch and heads folded together): q, o [heads, q_len, HEAD_DIM],
// k, v [heads, kv_len, HEAD_DIM], fp16, contiguous. Causal masking is aligned to the END of the KV, as
// FlashInfer aligns it for a query appended to a cache: query i sees key j iff j <= i + kv_len - q_len.
//
// Shared-memory tiles are row-major with each row padded by 8 halves (16 bytes): the 8 rows an
// ldmatrix reads then start in 8 different 16-byte bank groups, so it has no bank conflicts, and every
// row stays 16-byte aligned for cp.async and vector loads. (Day 10 swizzles instead of padding.)
#pragma once
#include "../cp_async.cuh"
#include "../math.cuh"
#include "../mma.cuh"
#include "../vec_dtypes.cuh"
#include "state.cuh"

namespace course {
namespace prefill {

constexpr int SMEM_PAD = 8;  // halves of padding per shared-memory row

// Tile sizes of one kernel configuration and the shapes of the per-thread fragments.
// WARP_M: query rows per warp, 16 (one m16 tile: exercises 2 and 3) or 32 (two 16-row halves that share
// every K/V fragment: exercises 4 to 6).
template <int HEAD_DIM_, int NUM_WARPS_, int BLOCK_N_, int STAGES_ = 1, int WARP_M_ = 16>
struct Traits {
  static constexpr int HEAD_DIM = HEAD_DIM_;
  static constexpr int NUM_WARPS = NUM_WARPS_;
  static constexpr int THREADS = 32 * NUM_WARPS;
  static constexpr int WARP_M = WARP_M_;             // query rows per warp
  static constexpr int BLOCK_M = WARP_M * NUM_WARPS; // query rows per block
  static constexpr int BLOCK_N = BLOCK_N_;           // keys per K/V tile
  static constexpr int STAGES = STAGES_;             // K/V tiles in flight (cp.async pipeline)
  static constexpr int STRIDE = HEAD_DIM + SMEM_PAD; // halves per shared-memory row
  static constexpr int D_K16 = HEAD_DIM / 16;        // k-steps of q k^T
  static constexpr int D_N8 = HEAD_DIM / 8;          // n8 tiles of o
  static constexpr int S_N8 = BLOCK_N / 8;           // n8 tiles of s
  static constexpr int S_K16 = BLOCK_N / 16;         // k-steps of p v
  static constexpr int Q_TILE = BLOCK_M * STRIDE;    // halves of the q tile in shared memory
  static constexpr int KV_TILE = BLOCK_N * STRIDE;   // halves of one K (or V) tile
  // q tile + STAGES x (K tile + V tile), in bytes: the dynamic shared memory a pipelined kernel needs.
  static constexpr int SMEM_BYTES = (Q_TILE + 2 * STAGES * KV_TILE) * 2;
  static_assert(HEAD_DIM % 16 == 0 && BLOCK_N % 16 == 0, "HEAD_DIM and BLOCK_N: multiples of 16");
  static_assert(WARP_M == 16 || WARP_M == 32, "a warp owns one or two 16-row halves");
};

// ---- global -> shared memory ------------------------------------------------------------------

// Copy ROWS rows of HEAD_DIM halves into a padded shared tile, 16 bytes per cp.async; row r comes from
// row_ptr(r), any address (a strided or gathered row, found through a page table...); rows >= rows_valid
// (>= 1) are not read, nor asked of row_ptr, and are filled with zeros (the edge of the sequence).
template <int ROWS, int HEAD_DIM, int THREADS, typename RowPtr>
COURSE_INLINE void load_rows_async(half* smem, RowPtr row_ptr, int rows_valid) {
  constexpr int CHUNKS = HEAD_DIM / 8;  // 16-byte chunks per row
  static_assert(ROWS * CHUNKS % THREADS == 0, "every thread copies the same number of chunks");
#pragma unroll
  for (int i = 0; i < ROWS * CHUNKS / THREADS; ++i) {
    const int c = i * THREADS + threadIdx.x;
    const int row = c / CHUNKS, col = (c % CHUNKS) * 8;
    const bool valid = row < rows_valid;  // a missing row still needs an address: the last real one
    cp_async::load_128b<cp_async::SharedMemFillMode::kFillZero>(
        smem + row * (HEAD_DIM + SMEM_PAD) + col, row_ptr(valid ? row : rows_valid - 1) + col, valid);
  }
}

// The same for ROWS x HEAD_DIM halves, row-major and contiguous at gmem.
template <int ROWS, int HEAD_DIM, int THREADS>
COURSE_INLINE void load_tile_async(half* smem, const half* gmem, int rows_valid) {
  load_rows_async<ROWS, HEAD_DIM, THREADS>(smem, [=](int row) { return gmem + row * HEAD_DIM; }, rows_valid);
}

// The same through registers: an ordinary 16-byte load and store per chunk (zeros past rows_valid).
// The thread waits for each load before it can store it: no overlap with computation.
template <int ROWS, int HEAD_DIM, int THREADS>
COURSE_INLINE void load_tile_sync(half* smem, const half* gmem, int rows_valid) {
  constexpr int CHUNKS = HEAD_DIM / 8;
  static_assert(ROWS * CHUNKS % THREADS == 0, "every thread copies the same number of chunks");
#pragma unroll
  for (int i = 0; i < ROWS * CHUNKS / THREADS; ++i) {
    const int c = i * THREADS + threadIdx.x;
    const int row = c / CHUNKS, col = (c % CHUNKS) * 8;
    uint4 v = make_uint4(0, 0, 0, 0);
    if (row < rows_valid) v = *reinterpret_cast<const uint4*>(gmem + row * HEAD_DIM + col);
    *reinterpret_cast<uint4*>(smem + row * (HEAD_DIM + SMEM_PAD) + col) = v;
  }
}

// ---- the online softmax state, in registers ---------------------------------------------------

// The online-softmax state of this thread's 2 rows, one course::attention::state_t (state.cuh, day
// 11) per row: row[r] is fragment row g + 8r, and row[r].o[2n + c] is output column 8n + 2t + c, the
// element that c[2r + c] of the n-th C fragment of o holds (get_c / set_c translate). m is in the log2
// domain (scores times sm_scale * log2 e). d is this thread's partial sum (its 2 columns of each n8
// tile of scores) until the end, when the group's 4 partial sums are added up; o is the full row
// already (the mma sums over all keys).
template <typename Tr>
struct SoftmaxState {
  attention::state_t<2 * Tr::D_N8> row[2];

  COURSE_INLINE void init() {
    row[0].init();
    row[1].init();
  }

  COURSE_INLINE void get_c(int n, float (&c)[4]) const {
    c[0] = row[0].o[2 * n];
    c[1] = row[0].o[2 * n + 1];
    c[2] = row[1].o[2 * n];
    c[3] = row[1].o[2 * n + 1];
  }
  COURSE_INLINE void set_c(int n, const float (&c)[4]) {
    row[0].o[2 * n] = c[0];
    row[0].o[2 * n + 1] = c[1];
    row[1].o[2 * n] = c[2];
    row[1].o[2 * n + 1] = c[3];
  }
};

// ---- which K/V tiles a block needs ------------------------------------------------------------

// The number of keys the q rows [q0, q0 + BLOCK_M) of a block can see: all of them without a causal
// mask, else up to the diagonal of the block's last valid row.
template <bool CAUSAL>
COURSE_INLINE int visible_kv(int q0, int block_m, int q_len, int kv_len) {
  if (!CAUSAL) return kv_len;
  const int last_row = min(q0 + block_m, q_len) - 1;
  return max(0, min(kv_len, last_row + (kv_len - q_len) + 1));
}

// The first K/V tile that needs mask_scores: the one holding key kv_len (a partial tile), or with
// CAUSAL the first whose last key lies past the diagonal of the block's first row q0. Tiles before it
// are fully visible to every row of the block and skip the mask.
template <bool CAUSAL>
COURSE_INLINE int first_masked_tile(int q0, int block_n, int q_len, int kv_len) {
  int first = kv_len / block_n;
  if (CAUSAL) first = min(first, max(0, q0 + (kv_len - q_len) + 1) / block_n);
  return first;
}

}  // namespace prefill
}  // namespace course
