// Day 12, exercise 4: pipelined prefill attention, FlashAttention-2 forward with a cp.async pipeline.
//
//   q, o: [heads, q_len, head_dim]   k, v: [heads, kv_len, head_dim]   fp16, head_dim 64 or 128
//   o[h, i] = softmax_j(q[h, i] . k[h, j] * sm_scale) v[h, j]   over the keys j that query i sees:
//   all of them, or with `causal` those with j <= i + (kv_len - q_len) (the mask aligned to the end of
//   the KV, as FlashInfer aligns it when queries are appended to a cache).
//
// The same computation as exercise 3 (attention_mma.cu: its warp steps come here unchanged, bring
// yours), with the K/V loads taken off the critical path: STAGES tiles of K and V are in flight at
// once through cp.async (course/cp_async.cuh), so the tensor cores work on tile j while tiles
// j + 1 .. j + STAGES - 1 are still travelling from memory.
// One thread block owns BLOCK_M = 16 * NUM_WARPS query rows; the grader launches
// grid = (ceil(q_len / BLOCK_M), heads), block = (32 * NUM_WARPS,) and SMEM_BYTES of dynamic shared
// memory, reading those numbers from the kernel `prefill_config` below, so a configuration can be
// changed here (or with -DPREFILL_WARPS=... at compile time) without touching the grader.
#include <course/attention/prefill.cuh>

#ifndef PREFILL_WARPS
#define PREFILL_WARPS 4  // warps per block (16 query rows each)
#endif
#ifndef PREFILL_STAGES
#define PREFILL_STAGES 2  // K/V tiles in flight (>= 2)
#endif
#ifndef PREFILL_BLOCK_N
#define PREFILL_BLOCK_N 64  // keys per K/V tile
#endif

namespace {

using namespace course;
using namespace course::prefill;

template <int HEAD_DIM>
using Config = Traits<HEAD_DIM, PREFILL_WARPS, PREFILL_BLOCK_N, PREFILL_STAGES>;
static_assert(PREFILL_STAGES >= 2, "the pipeline needs at least 2 stages");

// ---- the warp's steps: the same as in attention_mma.cu ------------------------------------------

// This warp's 16 query rows (rows 16 * warp .. 16 * warp + 15 of the q tile in shared memory) as mma
// A fragments: q[kk] is the 16 x 16 block of head-dim columns 16 kk .. 16 kk + 15.
template <typename Tr>
__device__ __forceinline__ void load_q_fragments(uint32_t (&q)[Tr::D_K16][4], const half* q_smem, int warp,
                                                 int lane) {
  // BEGIN EXERCISE
  // HINT: one ldmatrix .x4 per 16 x 16 block gives the whole A fragment: lane l points at row l % 16,
  // HINT: column 8 * (l / 16) of the block (course/mma.cuh's recipes). Rows are Tr::STRIDE halves apart.
  // HINT2: a pointer `row` to this lane's row of the warp's 16 (16 * warp + lane % 16) and its 8-column
  // HINT2: half; then for kk < Tr::D_K16: mma::ldmatrix_m8n8x4(q[kk], row + 16 * kk).
  // HINT3: const half* row = q_smem + (16 * warp + lane % 16) * Tr::STRIDE + 8 * (lane / 16);
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
  // HINT: zero s, then for each k16 step kk of the head dim and each pair of n8 tiles: ONE ldmatrix .x4
  // HINT: (no .trans: a row of K is a column of k^T, stored contiguously) gives the B fragments of two
  // HINT: n8 tiles (b[0..1] for keys 8n.., b[2..3] for keys 8n + 8..), then two mma.sync.
  // HINT2: lane l points at key row (l % 8) + 8 * (l / 16) and head-dim column 8 * ((l / 8) % 2) of the
  // HINT2: 16 x 16 block: matrices 0, 1 are keys 0-7 (dims 0-7, 8-15), matrices 2, 3 keys 8-15.
  // HINT2: for kk < D_K16, for n < S_N8 step 2: ldmatrix_m8n8x4(b, row + 8 n STRIDE + 16 kk);
  // HINT2: mma_sync_m16n8k16_row_col_f16f16f32(s[n], q[kk], b) and (s[n + 1], q[kk], b + 2).
  // HINT3: const half* row = k_smem + (lane % 8 + 8 * (lane / 16)) * Tr::STRIDE + 8 * ((lane / 8) % 2);
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
  // HINT: the C layout: s[n][i] is row lane / 4 + 8 (i / 2), column 8 n + 2 (lane % 4) + i % 2
  // HINT: (mma::frag_c_row / frag_c_col). The queries are the LAST q_len tokens of the sequence:
  // HINT: query i sees key j iff j <= i + kv_len - q_len.
  // HINT2: for n < S_N8, i < 4: row = q_row + frag_c_row(lane, i); col = kv0 + 8 n + frag_c_col(lane, i);
  // HINT2: masked: col >= kv_len, or CAUSAL and col past the diagonal.
  // HINT3: if (col >= kv_len || (CAUSAL && col > row + causal_offset)) s[n][i] = -math::inf;
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
  // HINT: two butterfly shuffles stay inside the group of 4: lane ^ 1, then lane ^ 2.
  // HINT2: x = fmaxf(x, math::shfl_xor_sync(x, 1)); then the same with 2.
  // STUB: return x;
  x = fmaxf(x, math::shfl_xor_sync(x, 1));
  return fmaxf(x, math::shfl_xor_sync(x, 2));
  // END EXERCISE
}

__device__ __forceinline__ float quad_sum(float x) {
  // BEGIN EXERCISE
  // HINT: as quad_max, with +.
  // HINT2: x += math::shfl_xor_sync(x, 1); return x + math::shfl_xor_sync(x, 2);
  // STUB: return x;
  x += math::shfl_xor_sync(x, 1);
  return x + math::shfl_xor_sync(x, 2);
  // END EXERCISE
}

// Fold one tile of raw scores s into the state (prefill.cuh's SoftmaxState: row[r] is fragment row
// lane / 4 + 8 r, with its m, d and o), and turn s into p = 2^(s * scale_log2 - m_new) in place.
// scale_log2 = sm_scale * log2(e) > 0. Masked scores (-inf) give p = 0.
template <typename Tr>
__device__ __forceinline__ void online_softmax(SoftmaxState<Tr>& state, float (&s)[Tr::S_N8][4],
                                               float scale_log2) {
  // BEGIN EXERCISE
  // HINT: per row r (0, 1; its scores are s[n][2r], s[n][2r + 1]): the tile's max over the row (this
  // HINT: lane's 2 S_N8 values, then quad_max), in the log2 domain: m_new = max(m, max * scale_log2).
  // HINT: Rescale what the state holds, d and EVERY o, by alpha = 2^(m - m_new); then p = 2^(s scale -
  // HINT: m_new) for each score, added to d (this lane's partial sum; the group adds up at the end).
  // HINT2: a row that has seen only masked keys has m_new = -inf: subtract 0 instead (m_use), so that
  // HINT2: 2^(-inf - -inf) = NaN never happens; the first tile then has alpha = 2^(-inf) = 0.
  // HINT2: math::ptx_exp2 is one MUFU.EX2; fmaf(s, scale_log2, -m_use) folds the scale into one FMA.
  // HINT3: const float alpha = math::ptx_exp2(st.m - m_use);  st.m = m_new;  st.d *= alpha;
  // HINT3: for (i < 2 * Tr::D_N8) st.o[i] *= alpha;
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    auto& st = state.row[r];
    float mx = -math::inf;
#pragma unroll
    for (int n = 0; n < Tr::S_N8; ++n) mx = fmaxf(mx, fmaxf(s[n][2 * r], s[n][2 * r + 1]));
    const float m_new = fmaxf(st.m, quad_max(mx) * scale_log2);
    const float m_use = m_new == -math::inf ? 0.f : m_new;
    const float alpha = math::ptx_exp2(st.m - m_use);
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
  // END EXERCISE
}

// The probabilities p (C fragments of s, two n8 tiles per k16 step) as the A fragments of p v, in
// fp16, without a trip through shared memory.
template <typename Tr>
__device__ __forceinline__ void to_a_fragments(uint32_t (&p)[Tr::S_K16][4], const float (&s)[Tr::S_N8][4]) {
  // BEGIN EXERCISE
  // HINT: a C register pair (row g, cols 2t, 2t + 1) holds exactly what an A register holds (row g,
  // HINT: k = 2t, 2t + 1): compare the two layouts in course/mma.cuh. A's k16 step kk spans the
  // HINT: n8 tiles 2 kk (its registers 0, 1) and 2 kk + 1 (registers 2, 3).
  // HINT2: p[kk][0] = rows g of tile 2kk, p[kk][1] = rows g + 8 of tile 2kk, p[kk][2], p[kk][3] the
  // HINT2: same of tile 2kk + 1; mma::pack2<half>(lo, hi) rounds two floats into one register.
  // HINT3: p[kk][1] = mma::pack2<half>(s[2 * kk][2], s[2 * kk][3]);
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
  // HINT: V is a row-major [K = keys, N = dims] B operand: ldmatrix .trans reads it. For each k16 step
  // HINT: of the keys and each pair of n8 tiles of the output: one ldmatrix_m8n8x4_trans gives two B
  // HINT: fragments (b, b + 2), then per tile get_c, mma.sync with p[kk], set_c.
  // HINT2: lane l points at key row l % 16 and column 8 (l / 16) of the 16 x 16 block; for kk < S_K16,
  // HINT2: n < D_N8 step 2: ldmatrix_m8n8x4_trans(b, row + 16 kk STRIDE + 8 n); h = 0, 1: tile n + h.
  // HINT3: const half* row = v_smem + (lane % 16) * Tr::STRIDE + 8 * (lane / 16);
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
  // HINT: per row r: d is still this lane's partial sum: add up the group's 4 (quad_sum). Multiply o
  // HINT: by 1 / d (0 when d = 0: a row that saw no key), then store each pair o[2n], o[2n + 1] as one
  // HINT: half2 at output column 8 n + 2 (lane % 4) of query q_row + lane / 4 + 8 r.
  // HINT2: const float inv = st.d > 0.f ? math::ptx_rcp(st.d) : 0.f; skip rows >= q_len (the last,
  // HINT2: partial query tile); __floats2half2_rn(lo, hi) rounds a pair.
  // HINT3: *reinterpret_cast<half2*>(out + static_cast<int64_t>(q_idx) * Tr::HEAD_DIM + col) = ...
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

// ---- the pipelined kernel -----------------------------------------------------------------------

template <typename Tr, bool CAUSAL>
__device__ void prefill(const half* __restrict__ q, const half* __restrict__ k, const half* __restrict__ v,
                        half* __restrict__ o, int q_len, int kv_len, float sm_scale) {
  extern __shared__ uint4 smem_raw[];  // uint4: 16-byte aligned, as cp.async and ldmatrix need
  half* q_smem = reinterpret_cast<half*>(smem_raw);
  half* kv_smem = q_smem + Tr::Q_TILE;  // stage s: K at 2 s KV_TILE, V right after it
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  // Causal: the last query tiles see the most keys; starting them first evens out the SMs' work.
  const int q_tile = CAUSAL ? gridDim.x - 1 - blockIdx.x : blockIdx.x;
  const int q0 = q_tile * Tr::BLOCK_M;
  const int64_t head = blockIdx.y;
  q += (head * q_len + q0) * Tr::HEAD_DIM;
  o += head * q_len * Tr::HEAD_DIM;
  k += head * kv_len * Tr::HEAD_DIM;
  v += head * kv_len * Tr::HEAD_DIM;

  const int kv_end = visible_kv<CAUSAL>(q0, Tr::BLOCK_M, q_len, kv_len);
  const int num_tiles = ceil_div(kv_end, Tr::BLOCK_N);
  const int mask_from = first_masked_tile<CAUSAL>(q0, Tr::BLOCK_N, q_len, kv_len);
  const float scale_log2 = sm_scale * math::log2e;

  // Tile t of K and V into stage `stage`: cp.async, zero-filled past kv_len.
  auto load_kv = [&](int t, int stage) {
    half* k_dst = kv_smem + 2 * stage * Tr::KV_TILE;
    const int rows = kv_len - t * Tr::BLOCK_N;
    load_tile_async<Tr::BLOCK_N, Tr::HEAD_DIM, Tr::THREADS>(k_dst, k + t * Tr::BLOCK_N * Tr::HEAD_DIM, rows);
    load_tile_async<Tr::BLOCK_N, Tr::HEAD_DIM, Tr::THREADS>(k_dst + Tr::KV_TILE,
                                                            v + t * Tr::BLOCK_N * Tr::HEAD_DIM, rows);
  };

  uint32_t q_frag[Tr::D_K16][4];
  float s[Tr::S_N8][4];
  uint32_t p_frag[Tr::S_K16][4];
  SoftmaxState<Tr> state;
  state.init();

  // BEGIN EXERCISE
  // HINT: the pipeline, with one cp.async group per tile (course/cp_async.cuh):
  // HINT: 1. prologue: load the q tile (load_tile_async<BLOCK_M, ...>(q_smem, q, q_len - q0)) and tiles
  // HINT:    0 .. STAGES-2 (load_kv(t, t) when t < num_tiles); commit_group() once per tile, ALWAYS,
  // HINT:    even for a tile past the end (an empty group), so the group count stays predictable.
  // HINT:    The q tile may share tile 0's group. Wait for that group (wait_group<STAGES - 2>()),
  // HINT:    __syncthreads(), then load_q_fragments<Tr>(q_frag, q_smem, warp, lane).
  // HINT: 2. for each tile j < num_tiles: wait_group<STAGES - 2>() then __syncthreads(): tile j has
  // HINT:    landed for every thread, AND every warp has finished tile j - 1, so its stage
  // HINT:    ((j + STAGES - 1) % STAGES) may be refilled: load_kv(j + STAGES - 1, that stage) when it
  // HINT:    exists, then commit_group() (always). Then compute on stage j % STAGES exactly as in
  // HINT:    exercise 3: compute_qk, mask_scores<Tr, CAUSAL> only for j >= mask_from (query row of
  // HINT:    this warp: q0 + 16 * warp; causal offset kv_len - q_len), online_softmax,
  // HINT:    to_a_fragments, compute_pv (V follows K in the stage).
  // HINT: 3. finalize_and_store(state, o, q0 + 16 * warp, q_len, lane).
  // HINT2: prologue: for t < STAGES - 1 (#pragma unroll): if (t < num_tiles) load_kv(t, t); commit.
  // HINT2: loop: wait_group, __syncthreads(), next = j + STAGES - 1, refill, commit, then compute on
  // HINT2: k_smem = kv_smem + 2 * (j % STAGES) * KV_TILE and v = k_smem + KV_TILE.
  // HINT3: cp_async::wait_group<Tr::STAGES - 2>() leaves the STAGES - 2 newest groups in flight.
  // HINT: One barrier per tile is enough here; count why before you remove any.
  load_tile_async<Tr::BLOCK_M, Tr::HEAD_DIM, Tr::THREADS>(q_smem, q, q_len - q0);
#pragma unroll
  for (int t = 0; t < Tr::STAGES - 1; ++t) {
    if (t < num_tiles) load_kv(t, t);
    cp_async::commit_group();
  }
  cp_async::wait_group<Tr::STAGES - 2>();
  __syncthreads();
  load_q_fragments<Tr>(q_frag, q_smem, warp, lane);

  for (int j = 0; j < num_tiles; ++j) {
    cp_async::wait_group<Tr::STAGES - 2>();
    __syncthreads();
    const int next = j + Tr::STAGES - 1;
    if (next < num_tiles) load_kv(next, next % Tr::STAGES);
    cp_async::commit_group();

    const half* k_smem = kv_smem + 2 * (j % Tr::STAGES) * Tr::KV_TILE;
    compute_qk<Tr>(s, q_frag, k_smem, lane);
    if (j >= mask_from) {
      mask_scores<Tr, CAUSAL>(s, q0 + 16 * warp, j * Tr::BLOCK_N, kv_len, kv_len - q_len, lane);
    }
    online_softmax<Tr>(state, s, scale_log2);
    to_a_fragments<Tr>(p_frag, s);
    compute_pv<Tr>(state, p_frag, k_smem + Tr::KV_TILE, lane);
  }
  finalize_and_store<Tr>(state, o, q0 + 16 * warp, q_len, lane);
  // END EXERCISE
}

template <typename Tr>
__device__ void prefill_dispatch(const half* q, const half* k, const half* v, half* o, int q_len,
                                 int kv_len, int causal, float sm_scale) {
  if (causal) {
    prefill<Tr, true>(q, k, v, o, q_len, kv_len, sm_scale);
  } else {
    prefill<Tr, false>(q, k, v, o, q_len, kv_len, sm_scale);
  }
}

}  // namespace

extern "C" __global__ void __launch_bounds__(Config<64>::THREADS)
prefill_d64(const half* q, const half* k, const half* v, half* o, int q_len, int kv_len, int causal,
            float sm_scale) {
  prefill_dispatch<Config<64>>(q, k, v, o, q_len, kv_len, causal, sm_scale);
}

extern "C" __global__ void __launch_bounds__(Config<128>::THREADS)
prefill_d128(const half* q, const half* k, const half* v, half* o, int q_len, int kv_len, int causal,
             float sm_scale) {
  prefill_dispatch<Config<128>>(q, k, v, o, q_len, kv_len, causal, sm_scale);
}

// The launch geometry, for the grader: per head dim (64, then 128) BLOCK_M, threads, shared bytes.
extern "C" __global__ void prefill_config(int* out) {
  const int values[6] = {Config<64>::BLOCK_M, Config<64>::THREADS, Config<64>::SMEM_BYTES,
                         Config<128>::BLOCK_M, Config<128>::THREADS, Config<128>::SMEM_BYTES};
  for (int i = 0; i < 6; ++i) out[i] = values[i];
}
