// course/attention/prefill.cuh: the pieces of a FlashAttention-2 style prefill kernel (day 12).
//
// Modelled on FlashInfer's include/flashinfer/attention/prefill.cuh (load_q_global_smem, compute_qk,
// update_mdo_states, compute_sfm_v, write_o_reg_gmem), rewritten for the course. One thread block
// owns BLOCK_M = 16 * NUM_WARPS query rows of one head; each warp owns 16 of them and keeps, in
// registers, for its whole life:
//
//   q   the 16 x HEAD_DIM query rows as mma A fragments (loaded once with ldmatrix)
//   s   the 16 x BLOCK_N scores of the current K/V tile (mma C fragments, float)
//   o   the 16 x HEAD_DIM output accumulator (float), and per row m (running max) and d (running
//       sum of exponentials): the online-softmax state of day 11 (attention/state.cuh)
//
// Per K/V tile of BLOCK_N keys:  s = q k^T (mma) -> mask -> online softmax (rescale o and d by
// exp(m_old - m_new), p = exp(s - m_new)) -> o += p v (mma, with p re-packed from C into A fragments,
// no trip through shared memory). At the end o / d is written out.
//
// Layouts (FlashInfer's "HND" with batch and heads folded together): q, o [heads, q_len, HEAD_DIM],
// k, v [heads, kv_len, HEAD_DIM], fp16, contiguous. Causal masking is aligned to the END of the KV, as
// FlashInfer aligns it for a query appended to a cache: query i sees key j iff j <= i + kv_len - q_len.
// Scores use exp2: s * sm_scale * log2(e) is folded into one FMA before ex2.approx (math.cuh).
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
template <int HEAD_DIM_, int NUM_WARPS_, int BLOCK_N_, int STAGES_ = 1>
struct Traits {
  static constexpr int HEAD_DIM = HEAD_DIM_;
  static constexpr int NUM_WARPS = NUM_WARPS_;
  static constexpr int THREADS = 32 * NUM_WARPS;
  static constexpr int BLOCK_M = 16 * NUM_WARPS;     // query rows per block (16 per warp)
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
};

// ---- global -> shared memory ------------------------------------------------------------------

// Copy ROWS x HEAD_DIM halves (row-major, contiguous) into a padded shared tile, 16 bytes per
// cp.async; rows >= rows_valid are not read and are filled with zeros (the edge of the sequence).
template <int ROWS, int HEAD_DIM, int THREADS>
COURSE_INLINE void load_tile_async(half* smem, const half* gmem, int rows_valid) {
  constexpr int CHUNKS = HEAD_DIM / 8;  // 16-byte chunks per row
  static_assert(ROWS * CHUNKS % THREADS == 0, "every thread copies the same number of chunks");
#pragma unroll
  for (int i = 0; i < ROWS * CHUNKS / THREADS; ++i) {
    const int c = i * THREADS + threadIdx.x;
    const int row = c / CHUNKS, col = (c % CHUNKS) * 8;
    cp_async::load_128b<cp_async::SharedMemFillMode::kFillZero>(
        smem + row * (HEAD_DIM + SMEM_PAD) + col, gmem + row * HEAD_DIM + col, row < rows_valid);
  }
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

// ---- shared memory -> registers, and the two products -----------------------------------------

// This warp's 16 query rows (rows 16 * warp .. 16 * warp + 15 of the q tile) as A fragments.
template <typename Tr>
COURSE_INLINE void load_q_fragments(uint32_t (&q)[Tr::D_K16][4], const half* q_smem, int warp, int lane) {
  const half* row = q_smem + (16 * warp + lane % 16) * Tr::STRIDE + 8 * (lane / 16);
#pragma unroll
  for (int kk = 0; kk < Tr::D_K16; ++kk) mma::ldmatrix_m8n8x4(q[kk], row + 16 * kk);
}

// s = q k^T for one K tile [BLOCK_N, HEAD_DIM] in shared memory. k^T is the B operand: K's rows are
// its columns, so ldmatrix without .trans reads it (see mma.cuh's recipes); one x4 gives the B
// fragments of two n8 tiles.
template <typename Tr>
COURSE_INLINE void compute_qk(float (&s)[Tr::S_N8][4], const uint32_t (&q)[Tr::D_K16][4],
                              const half* k_smem, int lane) {
#pragma unroll
  for (int n = 0; n < Tr::S_N8; ++n) s[n][0] = s[n][1] = s[n][2] = s[n][3] = 0.f;
  const half* row = k_smem + (lane % 8 + 8 * (lane / 16)) * Tr::STRIDE + 8 * ((lane / 8) % 2);
#pragma unroll
  for (int kk = 0; kk < Tr::D_K16; ++kk) {
#pragma unroll
    for (int n = 0; n < Tr::S_N8; n += 2) {
      uint32_t b[4];
      mma::ldmatrix_m8n8x4(b, row + 8 * n * Tr::STRIDE + 16 * kk);
      mma::mma_sync_m16n8k16_row_col_f16f16f32(s[n], q[kk], b);
      mma::mma_sync_m16n8k16_row_col_f16f16f32(s[n + 1], q[kk], b + 2);
    }
  }
}

// o += p v for one V tile [BLOCK_N, HEAD_DIM]: V is the row-major [K, N] B operand, read with
// ldmatrix .trans; p holds the probabilities as A fragments (to_a_fragments below). The accumulator is
// the softmax state's o (see SoftmaxState): its two rows are gathered into one C fragment per mma.
template <typename Tr, typename State>
COURSE_INLINE void compute_pv(State& state, const uint32_t (&p)[Tr::S_K16][4], const half* v_smem, int lane) {
  const half* row = v_smem + (lane % 16) * Tr::STRIDE + 8 * (lane / 16);
#pragma unroll
  for (int kk = 0; kk < Tr::S_K16; ++kk) {
#pragma unroll
    for (int n = 0; n < Tr::D_N8; n += 2) {
      uint32_t b[4];
      mma::ldmatrix_m8n8x4_trans(b, row + 16 * kk * Tr::STRIDE + 8 * n);
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        float c[4];
        state.get_c(n + h, c);
        mma::mma_sync_m16n8k16_row_col_f16f16f32(c, p[kk], b + 2 * h);
        state.set_c(n + h, c);
      }
    }
  }
}

// The C fragments of s (two n8 tiles per k16 step) as the A fragments of p v, rounded to fp16:
// a C register pair (row g, cols 2t, 2t+1) is exactly an A register (mma.cuh's layout table).
template <typename Tr>
COURSE_INLINE void to_a_fragments(uint32_t (&p)[Tr::S_K16][4], const float (&s)[Tr::S_N8][4]) {
#pragma unroll
  for (int kk = 0; kk < Tr::S_K16; ++kk) {
    p[kk][0] = mma::pack2<half>(s[2 * kk][0], s[2 * kk][1]);
    p[kk][1] = mma::pack2<half>(s[2 * kk][2], s[2 * kk][3]);
    p[kk][2] = mma::pack2<half>(s[2 * kk + 1][0], s[2 * kk + 1][1]);
    p[kk][3] = mma::pack2<half>(s[2 * kk + 1][2], s[2 * kk + 1][3]);
  }
}

// ---- masks --------------------------------------------------------------------------------------

// Set to -inf the scores this thread holds that a query may not see: keys at or past kv_len, and with
// CAUSAL keys after the query's diagonal (key j > query i + causal_offset, causal_offset = kv_len -
// q_len). q_row: the query index of fragment row 0 of this warp; kv0: the key index of column 0.
template <typename Tr, bool CAUSAL>
COURSE_INLINE void mask_scores(float (&s)[Tr::S_N8][4], int q_row, int kv0, int kv_len, int causal_offset,
                               int lane) {
#pragma unroll
  for (int n = 0; n < Tr::S_N8; ++n) {
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const int row = q_row + mma::frag_c_row(lane, i);
      const int col = kv0 + 8 * n + mma::frag_c_col(lane, i);
      if (col >= kv_len || (CAUSAL && col > row + causal_offset)) s[n][i] = -math::inf;
    }
  }
}

// ---- the online softmax, in registers ---------------------------------------------------------

// Row r = 0, 1 of a thread's fragments is fragment row g + 8r (g = lane / 4); the 4 threads of a
// group hold the same two rows, so row-wide max and sum take two shuffles (lane ^ 1, lane ^ 2).
COURSE_INLINE float quad_max(float x) {
  x = fmaxf(x, math::shfl_xor_sync(x, 1));
  return fmaxf(x, math::shfl_xor_sync(x, 2));
}
COURSE_INLINE float quad_sum(float x) {
  x += math::shfl_xor_sync(x, 1);
  return x + math::shfl_xor_sync(x, 2);
}

// The online-softmax state of this thread's 2 rows, one course::attention::state_t (state.cuh, day
// 11) per row: row[r] is fragment row g + 8r, and row[r].o[2n + c] is output column 8n + 2t + c, the
// element that c[2r + c] of the n-th C fragment of o holds (get_c / set_c translate). m is in the log2
// domain (scores times sm_scale * log2 e). d is this thread's partial sum (its 2 columns of each n8
// tile of scores) until finalize_and_store adds up the group's 4; o is the full row already (the mma
// sums over all keys).
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

  // Fold one tile of raw scores s into the state, and turn s into p = exp2(s * scale_log2 - m_new)
  // in place. scale_log2 = sm_scale * log2(e) > 0. Masked scores (-inf) give p = 0.
  COURSE_INLINE void update(float (&s)[Tr::S_N8][4], float scale_log2) {
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      auto& st = row[r];
      float mx = -math::inf;
#pragma unroll
      for (int n = 0; n < Tr::S_N8; ++n) mx = fmaxf(mx, fmaxf(s[n][2 * r], s[n][2 * r + 1]));
      const float m_new = fmaxf(st.m, quad_max(mx) * scale_log2);
      // A row that has seen only masked keys keeps m = -inf: subtract 0 then, never inf - inf.
      const float m_use = m_new == -math::inf ? 0.f : m_new;
      const float alpha = math::ptx_exp2(st.m - m_use);  // exp2(-inf) = 0 on the first tile
      st.m = m_new;
      st.d *= alpha;
#pragma unroll
      for (int i = 0; i < 2 * Tr::D_N8; ++i) st.o[i] *= alpha;
#pragma unroll
      for (int n = 0; n < Tr::S_N8; ++n) {
#pragma unroll
        for (int c = 2 * r; c < 2 * r + 2; ++c) {
          s[n][c] = math::ptx_exp2(fmaf(s[n][c], scale_log2, -m_use));
          st.d += s[n][c];
        }
      }
    }
  }

  // o / d, and write this warp's rows (query index q_row + fragment row) that are < q_len:
  // out points at query row 0 of the head. Rows that saw no key at all get 0.
  COURSE_INLINE void finalize_and_store(half* out, int q_row, int q_len, int lane) {
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      auto& st = row[r];
      st.d = quad_sum(st.d);
      st.normalize();
      const int q_idx = q_row + lane / 4 + 8 * r;
      if (q_idx < q_len) {
#pragma unroll
        for (int n = 0; n < Tr::D_N8; ++n) {
          const int col = 8 * n + 2 * (lane % 4);
          *reinterpret_cast<half2*>(out + static_cast<int64_t>(q_idx) * Tr::HEAD_DIM + col) =
              __floats2half2_rn(st.o[2 * n], st.o[2 * n + 1]);
        }
      }
    }
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
