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
  // BEGIN EXERCISE
  // HINT: An mma A fragment of a 16 x 16 block is spread over the 32 lanes in a fixed pattern, and ldmatrix
  // HINT: .x4 builds it from 32 row addresses, one per lane. Which row, and which 8-column half of the block,
  // HINT: must each lane point at? (course/mma.cuh draws the fragment layouts.)
  // HINT2: One pointer per lane into its row of the warp's 16 query rows (Tr::STRIDE halves apart) and its
  // HINT2: 8-column half; then one ldmatrix .x4 per 16 columns of the head dimension, the pointer moved
  // HINT2: along the row.
  // HINT3: ldmatrix .x4 loads four 8 x 8 matrices; lanes 8m .. 8m + 7 give the row addresses of matrix m. An
  // HINT3: A fragment's matrices are (rows 0-7, cols 0-7), (rows 8-15, cols 0-7), (rows 0-7, cols 8-15),
  // HINT3: (rows 8-15, cols 8-15): so lane l addresses row l % 16 of those 16 rows, column half l / 16.
  const half* row = q_smem + (16 * warp + lane % 16) * Tr::STRIDE + 8 * (lane / 16);
#pragma unroll
  for (int kk = 0; kk < Tr::D_K16; ++kk) mma::ldmatrix_m8n8x4(q[kk], row + 16 * kk);
  // END EXERCISE
}

// s = q k^T for one K tile [BLOCK_N, HEAD_DIM] in shared memory: s[n] is the C fragment of keys
// 8 n .. 8 n + 7. k^T is the B operand (col-major [K, N]): K's rows are its columns.
template <typename Tr>
__device__ __forceinline__ void compute_qk(float (&s)[Tr::S_N8][4], const uint32_t (&q)[Tr::D_K16][4],
                                           const half* k_smem, int lane) {
  // BEGIN EXERCISE
  // HINT: k^T is the B operand (col-major [K, N]): a row of K, stored contiguously, is a column of k^T. Which
  // HINT: ldmatrix variant (with or without .trans) then yields B fragments, and how many n8 key tiles can
  // HINT: one .x4 serve?
  // HINT2: Zero the accumulators; then over the k16 steps of the head dimension and over pairs of n8 key tiles:
  // HINT2: one ldmatrix .x4 gives the B fragments of two tiles, then one mma.sync per tile. Each lane addresses
  // HINT2: one key row and one 8-dim half of a 16 x 16 block of K.
  // HINT3: The four matrices must come out as (keys 0-7, dims 0-7), (keys 0-7, dims 8-15), (keys 8-15, dims
  // HINT3: 0-7), (keys 8-15, dims 8-15): a B fragment is two registers, dims 0-7 then 8-15 of its 8 keys. So
  // HINT3: lane l addresses key row l % 8 + 8 (l / 16) and dim half (l / 8) % 2; registers 0-1 feed the first
  // HINT3: tile's mma, 2-3 the second's.
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
  // END EXERCISE
}

// Set to -inf the scores this lane holds that its query may not see: keys at or past kv_len, and with
// CAUSAL keys past the query's diagonal. q_row: the query index of fragment row 0 of this warp; kv0:
// the key index of column 0 of the tile; causal_offset = kv_len - q_len.
template <typename Tr, bool CAUSAL>
__device__ __forceinline__ void mask_scores(float (&s)[Tr::S_N8][4], int q_row, int kv0, int kv_len,
                                            int causal_offset, int lane) {
  // BEGIN EXERCISE
  // HINT: The queries are the LAST q_len tokens of the sequence. Which keys may query i see, causal and not,
  // HINT: and where in the tile does accumulator i of n8 tile n sit (the C layout, course/mma.cuh)?
  // HINT2: Two loops, over the fragment's n8 tiles and their 4 accumulators: the value's query row and key
  // HINT2: column (mma::frag_c_row / frag_c_col), then -inf where the key is past kv_len or, causal, past
  // HINT2: that query's diagonal.
  // HINT3: Query i (counted among the q_len) is token i + (kv_len - q_len) of the sequence, so it sees key j
  // HINT3: iff j <= i + (kv_len - q_len): the causal_offset argument is that difference.
#pragma unroll
  for (int n = 0; n < Tr::S_N8; ++n) {
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const int row = q_row + mma::frag_c_row(lane, i);
      const int col = kv0 + 8 * n + mma::frag_c_col(lane, i);
      if (col >= kv_len || (CAUSAL && col > row + causal_offset)) s[n][i] = -math::inf;
    }
  }
  // END EXERCISE
}

// The 4 lanes of a group (lane / 4 equal) hold the same two fragment rows: a row's max and sum over
// the tile are the max and sum of these 4 lanes' values.
__device__ __forceinline__ float quad_max(float x) {
  // BEGIN EXERCISE
  // HINT: The 4 lanes that share a row are lane ^ 1 and lane ^ 2 of one another. How many shuffle steps leave
  // HINT: all four holding the max?
  // HINT2: A two-step butterfly of xor shuffles (math::shfl_xor_sync), combining with the max after each step.
  // STUB: return x;
  x = fmaxf(x, math::shfl_xor_sync(x, 1));
  return fmaxf(x, math::shfl_xor_sync(x, 2));
  // END EXERCISE
}

__device__ __forceinline__ float quad_sum(float x) {
  // BEGIN EXERCISE
  // HINT: as quad_max, with +.
  // HINT2: The same two steps as quad_max, adding instead of taking the max.
  // STUB: return x;
  x += math::shfl_xor_sync(x, 1);
  return x + math::shfl_xor_sync(x, 2);
  // END EXERCISE
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
  // BEGIN EXERCISE
  // HINT: Day 11's online softmax on the C fragment: each lane holds scores of 2 rows, 4 lanes share a row.
  // HINT: What must the 4 agree on, when must the state be rescaled (rescale_state), and what must a row
  // HINT: that has seen only masked keys produce? Rescaling is the expensive part: can the warp skip it?
  // HINT2: Per row of the lane: the tile's row max (own values, then quad_max), scaled to the log2 domain,
  // HINT2: and whether it exceeds the row's max by more than SLACK. If any lane of the warp says so
  // HINT2: (__any_sync), rescale_state. Then each score replaced in s by its weight (one FMA into
  // HINT2: math::ptx_exp2: MUFU.EX2) and added to d, which stays this lane's partial sum until
  // HINT2: finalize_and_store.
  // HINT3: -inf + SLACK is -inf: a row's first visible tile always rescales, a tile of masked keys never does.
  // HINT3: A row whose max is still -inf exponentiates relative to 0 (2^(-inf - 0) = 0, never NaN). The vote
  // HINT3: keeps the branch uniform: a lane whose rows did not grow gets the factor 1 from rescale_state.
  // HINT3: Row r's scores are accumulators 2r and 2r + 1 of every n8 tile.
  float m_tile[2];
  bool grows = false;
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    float mx = -math::inf;
#pragma unroll
    for (int n = 0; n < Tr::S_N8; ++n) mx = fmaxf(mx, fmaxf(s[n][2 * r], s[n][2 * r + 1]));
    m_tile[r] = quad_max(mx) * scale_log2;
    grows |= m_tile[r] > state.row[r].m + SLACK;
  }
  if (__any_sync(0xffffffffu, grows)) rescale_state<Tr>(state, m_tile);
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    auto& st = state.row[r];
    const float m_use = st.m == -math::inf ? 0.f : st.m;
#pragma unroll
    for (int n = 0; n < Tr::S_N8; ++n) {
#pragma unroll
      for (int c = 2 * r; c < 2 * r + 2; ++c) {
        s[n][c] = math::ptx_exp2(fmaf(s[n][c], scale_log2, -m_use));
        st.d += s[n][c];
      }
    }
  }
  // END EXERCISE
}

// The probabilities p (C fragments of s, two n8 tiles per k16 step) as the A fragments of p v, in
// fp16, without a trip through shared memory.
template <typename Tr>
__device__ __forceinline__ void to_a_fragments(uint32_t (&p)[Tr::S_K16][4], const float (&s)[Tr::S_N8][4]) {
  // BEGIN EXERCISE
  // HINT: Compare the C layout of m16n8 with the A layout of m16n8k16 in course/mma.cuh: what does a C register
  // HINT: pair hold, and what does an A register hold? How many n8 tiles does one k16 step of P span?
  // HINT2: One loop over the k16 steps of the keys; each fills the 4 registers of one A fragment from two n8
  // HINT2: tiles, each register two floats rounded into one half2 (mma::pack2<half>).
  // HINT3: A C pair (row g, columns 2t, 2t + 1) is exactly an A register (row g, k = 2t, 2t + 1). A's registers
  // HINT3: 0, 1 are rows g and g + 8 of its first 8 k-columns, registers 2, 3 the same rows of the next 8: so
  // HINT3: k16 step kk takes registers 0-1 from n8 tile 2 kk (pairs 0-1 and 2-3) and 2-3 from tile 2 kk + 1.
#pragma unroll
  for (int kk = 0; kk < Tr::S_K16; ++kk) {
    p[kk][0] = mma::pack2<half>(s[2 * kk][0], s[2 * kk][1]);
    p[kk][1] = mma::pack2<half>(s[2 * kk][2], s[2 * kk][3]);
    p[kk][2] = mma::pack2<half>(s[2 * kk + 1][0], s[2 * kk + 1][1]);
    p[kk][3] = mma::pack2<half>(s[2 * kk + 1][2], s[2 * kk + 1][3]);
  }
  // END EXERCISE
}

// o += p v for one V tile [BLOCK_N, HEAD_DIM] in shared memory; o is the state's (get_c / set_c give
// its n-th C fragment: output columns 8 n .. 8 n + 7).
template <typename Tr>
__device__ __forceinline__ void compute_pv(SoftmaxState<Tr>& state, const uint32_t (&p)[Tr::S_K16][4],
                                           const half* v_smem, int lane) {
  // BEGIN EXERCISE
  // HINT: V is [keys, dims] row-major: as the B operand [K = keys, N = dims] it is row-major, not the col-major
  // HINT: layout mma's B wants. Which ldmatrix variant transposes on the way, and how many n8 output tiles
  // HINT: does one .x4 serve?
  // HINT2: Over the k16 steps of the keys and pairs of n8 tiles of the output dims: one transposing ldmatrix .x4
  // HINT2: gives the B fragments of two tiles; for each, take its accumulators from the state (get_c), one
  // HINT2: mma.sync with this step's P fragment, put them back (set_c).
  // HINT3: With .trans the matrices are addressed by their key rows: matrices 0, 1 are keys 0-7 and 8-15 of
  // HINT3: dims 0-7 (the first tile's B registers), 2, 3 the same keys of dims 8-15. So lane l addresses key
  // HINT3: row l % 16 and dim half l / 16 of the 16 x 16 block.
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
  // END EXERCISE
}

// o / d, written to this warp's query rows (q_row + fragment row) that are < q_len; out points at query
// row 0 of the head. Rows that saw no key at all get 0.
template <typename Tr>
__device__ __forceinline__ void finalize_and_store(SoftmaxState<Tr>& state, half* out, int q_row, int q_len,
                                                   int lane) {
  // BEGIN EXERCISE
  // HINT: d is still each lane's partial sum: who holds the rest of the row's sum? What must a row that saw no
  // HINT: key store, and which rows of the last query tile must not be stored at all?
  // HINT2: Per row of the lane: the quad's sum of d; o scaled by its reciprocal (0 for an empty row); then,
  // HINT2: for a row inside q_len, each accumulator pair stored as one half2 at its column of the output row.
  // HINT3: Row r of the lane is query q_row + lane / 4 + 8 r; accumulator pair (2n, 2n + 1) is output columns
  // HINT3: 8 n + 2 (lane % 4) and the next one. __floats2half2_rn rounds the pair into one 4-byte store.
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    auto& st = state.row[r];
    st.d = quad_sum(st.d);
    const float inv = st.d > 0.f ? math::ptx_rcp(st.d) : 0.f;
#pragma unroll
    for (int i = 0; i < 2 * Tr::D_N8; ++i) st.o[i] *= inv;
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
  // END EXERCISE
}

// online_softmax's rescale (declared above it): row r's max becomes max(m, m_tile[r]) (log2 domain) and its d and o,
// kept relative to the old max, are rescaled to the new one. A row whose max does not grow gets the
// factor 1; a row that has seen only masked keys keeps m = -inf.
template <typename Tr>
__device__ __forceinline__ void rescale_state(SoftmaxState<Tr>& state, const float (&m_tile)[2]) {
  // BEGIN EXERCISE
  // HINT: Day 11's rescale, on the two rows this lane holds: by what factor must d and o be multiplied
  // HINT: when a row's max grows from m to m_new, and what is that factor on the first tile (m = -inf)?
  // HINT2: Per row of the lane: the new max, the factor 2^(m - m_new) (one math::ptx_exp2), then m, d and
  // HINT2: every o accumulator of the row updated.
  // HINT3: While the new max is still -inf (only masked keys so far) exponentiate relative to 0, so that
  // HINT3: 2^(-inf - (-inf)) = NaN never happens; on a row's first visible tile the factor 2^(-inf) = 0
  // HINT3: clears the empty state.
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    auto& st = state.row[r];
    const float m_new = fmaxf(st.m, m_tile[r]);
    const float alpha = math::ptx_exp2(st.m - (m_new == -math::inf ? 0.f : m_new));
    st.m = m_new;
    st.d *= alpha;
#pragma unroll
    for (int i = 0; i < 2 * Tr::D_N8; ++i) st.o[i] *= alpha;
  }
  // END EXERCISE
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
  // BEGIN EXERCISE
  // HINT: Your compute_qk for two 16-row halves at once: which fragments do the halves share, and which
  // HINT: must each half have of its own?
  // HINT2: Per k16 step: the two halves' A fragments (ldmatrix .x4 from the q tile, as load_q_fragments), then
  // HINT2: per pair of n8 key tiles one ldmatrix .x4 of K and four mma.sync, two per half.
#pragma unroll
  for (int h = 0; h < 2; ++h)
#pragma unroll
    for (int n = 0; n < Tr::S_N8; ++n) s[h][n][0] = s[h][n][1] = s[h][n][2] = s[h][n][3] = 0.f;
  const half* q_row = q_smem + (32 * warp + lane % 16) * Tr::STRIDE + 8 * (lane / 16);
  const half* k_row = k_smem + (lane % 8 + 8 * (lane / 16)) * Tr::STRIDE + 8 * ((lane / 8) % 2);
#pragma unroll
  for (int kk = 0; kk < Tr::D_K16; ++kk) {
    uint32_t a[2][4];
    mma::ldmatrix_m8n8x4(a[0], q_row + 16 * kk);
    mma::ldmatrix_m8n8x4(a[1], q_row + 16 * Tr::STRIDE + 16 * kk);
#pragma unroll
    for (int n = 0; n < Tr::S_N8; n += 2) {
      uint32_t b[4];
      mma::ldmatrix_m8n8x4(b, k_row + 8 * n * Tr::STRIDE + 16 * kk);
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        mma::mma_sync_m16n8k16_row_col_f16f16f32(s[h][n], a[h], b);
        mma::mma_sync_m16n8k16_row_col_f16f16f32(s[h][n + 1], a[h], b + 2);
      }
    }
  }
  // END EXERCISE
}

// o += p v for both halves: one transposing ldmatrix of V serves two mma.sync.
template <typename Tr>
__device__ __forceinline__ void compute_pv_m32(SoftmaxState<Tr> (&state)[2], const uint32_t (&p)[2][Tr::S_K16][4],
                                               const half* v_smem, int lane) {
  // BEGIN EXERCISE
  // HINT: Your compute_pv for two 16-row halves: one transposing ldmatrix of V, then an mma.sync per half.
  // HINT2: The loops of compute_pv, with the two halves' mma.sync (and their state[h]) inside the innermost.
  const half* row = v_smem + (lane % 16) * Tr::STRIDE + 8 * (lane / 16);
#pragma unroll
  for (int kk = 0; kk < Tr::S_K16; ++kk) {
#pragma unroll
    for (int n = 0; n < Tr::D_N8; n += 2) {
      uint32_t b[4];
      mma::ldmatrix_m8n8x4_trans(b, row + 16 * kk * Tr::STRIDE + 8 * n);
#pragma unroll
      for (int h = 0; h < 2; ++h) {
#pragma unroll
        for (int hh = 0; hh < 2; ++hh) {
          float c[4];
          state[h].get_c(n + hh, c);
          mma::mma_sync_m16n8k16_row_col_f16f16f32(c, p[h][kk], b + 2 * hh);
          state[h].set_c(n + hh, c);
        }
      }
    }
  }
  // END EXERCISE
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
