// Your exercise file. Generated from solutions/day12/attention_prefill.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: f2dae49bad6aad76
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
  // TODO: your code here.
  //   Hint: one ldmatrix .x4 per 16 x 16 block gives the whole A fragment: lane l points at row l % 16,
  //   Hint: column 8 * (l / 16) of the block (course/mma.cuh's recipes). Rows are Tr::STRIDE halves apart.
}

// s = q k^T for one K tile [BLOCK_N, HEAD_DIM] in shared memory: s[n] is the C fragment of keys
// 8 n .. 8 n + 7. k^T is the B operand (col-major [K, N]): K's rows are its columns.
template <typename Tr>
__device__ __forceinline__ void compute_qk(float (&s)[Tr::S_N8][4], const uint32_t (&q)[Tr::D_K16][4],
                                           const half* k_smem, int lane) {
  // TODO: your code here.
  //   Hint: zero s, then for each k16 step kk of the head dim and each pair of n8 tiles: ONE ldmatrix .x4
  //   Hint: (no .trans: a row of K is a column of k^T, stored contiguously) gives the B fragments of two
  //   Hint: n8 tiles (b[0..1] for keys 8n.., b[2..3] for keys 8n + 8..), then two mma.sync.
}

// Set to -inf the scores this lane holds that its query may not see: keys at or past kv_len, and with
// CAUSAL keys past the query's diagonal. q_row: the query index of fragment row 0 of this warp; kv0:
// the key index of column 0 of the tile; causal_offset = kv_len - q_len.
template <typename Tr, bool CAUSAL>
__device__ __forceinline__ void mask_scores(float (&s)[Tr::S_N8][4], int q_row, int kv0, int kv_len,
                                            int causal_offset, int lane) {
  // TODO: your code here.
  //   Hint: the C layout: s[n][i] is row lane / 4 + 8 (i / 2), column 8 n + 2 (lane % 4) + i % 2
  //   Hint: (mma::frag_c_row / frag_c_col). The queries are the LAST q_len tokens of the sequence:
  //   Hint: query i sees key j iff j <= i + kv_len - q_len.
}

// The 4 lanes of a group (lane / 4 equal) hold the same two fragment rows: a row's max and sum over
// the tile are the max and sum of these 4 lanes' values.
__device__ __forceinline__ float quad_max(float x) {
  // TODO: your code here.
  //   Hint: two butterfly shuffles stay inside the group of 4: lane ^ 1, then lane ^ 2.
  return x;
}

__device__ __forceinline__ float quad_sum(float x) {
  // TODO: your code here.
  //   Hint: as quad_max, with +.
  return x;
}

// Fold one tile of raw scores s into the state (prefill.cuh's SoftmaxState: row[r] is fragment row
// lane / 4 + 8 r, with its m, d and o), and turn s into p = 2^(s * scale_log2 - m_new) in place.
// scale_log2 = sm_scale * log2(e) > 0. Masked scores (-inf) give p = 0.
template <typename Tr>
__device__ __forceinline__ void online_softmax(SoftmaxState<Tr>& state, float (&s)[Tr::S_N8][4],
                                               float scale_log2) {
  // TODO: your code here.
  //   Hint: per row r (0, 1; its scores are s[n][2r], s[n][2r + 1]): the tile's max over the row (this
  //   Hint: lane's 2 S_N8 values, then quad_max), in the log2 domain: m_new = max(m, max * scale_log2).
  //   Hint: Rescale what the state holds, d and EVERY o, by alpha = 2^(m - m_new); then p = 2^(s scale -
  //   Hint: m_new) for each score, added to d (this lane's partial sum; the group adds up at the end).
}

// The probabilities p (C fragments of s, two n8 tiles per k16 step) as the A fragments of p v, in
// fp16, without a trip through shared memory.
template <typename Tr>
__device__ __forceinline__ void to_a_fragments(uint32_t (&p)[Tr::S_K16][4], const float (&s)[Tr::S_N8][4]) {
  // TODO: your code here.
  //   Hint: a C register pair (row g, cols 2t, 2t + 1) holds exactly what an A register holds (row g,
  //   Hint: k = 2t, 2t + 1): compare the two layouts in course/mma.cuh. A's k16 step kk spans the
  //   Hint: n8 tiles 2 kk (its registers 0, 1) and 2 kk + 1 (registers 2, 3).
}

// o += p v for one V tile [BLOCK_N, HEAD_DIM] in shared memory; o is the state's (get_c / set_c give
// its n-th C fragment: output columns 8 n .. 8 n + 7).
template <typename Tr>
__device__ __forceinline__ void compute_pv(SoftmaxState<Tr>& state, const uint32_t (&p)[Tr::S_K16][4],
                                           const half* v_smem, int lane) {
  // TODO: your code here.
  //   Hint: V is a row-major [K = keys, N = dims] B operand: ldmatrix .trans reads it. For each k16 step
  //   Hint: of the keys and each pair of n8 tiles of the output: one ldmatrix_m8n8x4_trans gives two B
  //   Hint: fragments (b, b + 2), then per tile get_c, mma.sync with p[kk], set_c.
}

// o / d, written to this warp's query rows (q_row + fragment row) that are < q_len; out points at query
// row 0 of the head. Rows that saw no key at all get 0.
template <typename Tr>
__device__ __forceinline__ void finalize_and_store(SoftmaxState<Tr>& state, half* out, int q_row, int q_len,
                                                   int lane) {
  // TODO: your code here.
  //   Hint: per row r: d is still this lane's partial sum: add up the group's 4 (quad_sum). Multiply o
  //   Hint: by 1 / d (0 when d = 0: a row that saw no key), then store each pair o[2n], o[2n + 1] as one
  //   Hint: half2 at output column 8 n + 2 (lane % 4) of query q_row + lane / 4 + 8 r.
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

  // TODO: your code here.
  //   Hint: the pipeline, with one cp.async group per tile (course/cp_async.cuh):
  //   Hint: 1. prologue: load the q tile (load_tile_async<BLOCK_M, ...>(q_smem, q, q_len - q0)) and tiles
  //   Hint:    0 .. STAGES-2 (load_kv(t, t) when t < num_tiles); commit_group() once per tile, ALWAYS,
  //   Hint:    even for a tile past the end (an empty group), so the group count stays predictable.
  //   Hint:    The q tile may share tile 0's group. Wait for that group (wait_group<STAGES - 2>()),
  //   Hint:    __syncthreads(), then load_q_fragments<Tr>(q_frag, q_smem, warp, lane).
  //   Hint: 2. for each tile j < num_tiles: wait_group<STAGES - 2>() then __syncthreads(): tile j has
  //   Hint:    landed for every thread, AND every warp has finished tile j - 1, so its stage
  //   Hint:    ((j + STAGES - 1) % STAGES) may be refilled: load_kv(j + STAGES - 1, that stage) when it
  //   Hint:    exists, then commit_group() (always). Then compute on stage j % STAGES exactly as in
  //   Hint:    exercise 3: compute_qk, mask_scores<Tr, CAUSAL> only for j >= mask_from (query row of
  //   Hint:    this warp: q0 + 16 * warp; causal offset kv_len - q_len), online_softmax,
  //   Hint:    to_a_fragments, compute_pv (V follows K in the stage).
  //   Hint: 3. finalize_and_store(state, o, q0 + 16 * warp, q_len, lane).
  //   Hint: One barrier per tile is enough here; count why before you remove any.
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
