// Your exercise file. Generated from solutions/day12/attention_prefill.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: c6ad19137fd86032
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
// The test: o against a float64 reference at fp16's tolerance, causal and not, awkward lengths; the
// technique: HMMA, LDSM, LDGSTS (cp.async), SHFL and MUFU.EX2 in the SASS, no spills, your own warp steps.
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

// Fold one tile of raw scores s into the state (prefill.cuh's SoftmaxState: row[r] is fragment row
// lane / 4 + 8 r, with its m, d and o), and turn s into p = 2^(s * scale_log2 - m_new) in place.
// scale_log2 = sm_scale * log2(e) > 0. Masked scores (-inf) give p = 0.
template <typename Tr>
__device__ __forceinline__ void online_softmax(SoftmaxState<Tr>& state, float (&s)[Tr::S_N8][4],
                                               float scale_log2) {
  // TODO: your code here.
  //   Hint: Day 11's online softmax on the C fragment: each lane holds scores of 2 rows, 4 lanes share a row.
  //   Hint: What must the 4 agree on, what must be rescaled when a row's max grows, and what must a row that
  //   Hint: has seen only masked keys produce?
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
  //   Hint: Exercise 3's loop with the tensor cores never waiting for a load: while tile j is computed, tiles
  //   Hint: j + 1 .. j + STAGES - 1 are in flight with cp.async. When is a stage safe to refill, and what makes
  //   Hint: the count of cp.async groups predictable?
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
