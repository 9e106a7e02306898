// Day 12, exercise 4: pipelined prefill attention, FlashAttention-2 forward with a cp.async pipeline.
//
//   q, o: [heads, q_len, head_dim]   k, v: [heads, kv_len, head_dim]   fp16, head_dim 64 or 128
//   o[h, i] = softmax_j(q[h, i] . k[h, j] * sm_scale) v[h, j]   over the keys j that query i sees:
//   all of them, or with `causal` those with j <= i + (kv_len - q_len) (the mask aligned to the end of
//   the KV, as FlashInfer aligns it when queries are appended to a cache).
//
// The same computation as exercise 3 (attention_mma.cu: the same warp steps, your prefill_steps.cuh
// beside this file), with the K/V loads taken off the critical path: STAGES tiles of K and V are in flight at
// once through cp.async (course/cp_async.cuh), so the tensor cores work on tile j while tiles
// j + 1 .. j + STAGES - 1 are still travelling from memory.
// One thread block owns BLOCK_M = 16 * NUM_WARPS query rows; the grader launches
// grid = (ceil(q_len / BLOCK_M), heads), block = (32 * NUM_WARPS,) and SMEM_BYTES of dynamic shared
// memory, reading those numbers from the kernel `prefill_config` below, so a configuration can be
// changed here (or with -DPREFILL_WARPS=... at compile time) without touching the grader.
// The test: o against a float64 reference at fp16's tolerance, causal and not, awkward lengths; the
// technique: HMMA, LDSM, LDGSTS (cp.async), SHFL and MUFU.EX2 in the SASS, no spills.
#include "prefill_steps.cuh"

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
using namespace steps;  // your warp steps (prefill_steps.cuh)

template <int HEAD_DIM>
using Config = Traits<HEAD_DIM, PREFILL_WARPS, PREFILL_BLOCK_N, PREFILL_STAGES>;
static_assert(PREFILL_STAGES >= 2, "the pipeline needs at least 2 stages");

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
  // HINT: Exercise 3's loop with the tensor cores never waiting for a load: while tile j is computed, tiles
  // HINT: j + 1 .. j + STAGES - 1 are in flight with cp.async. When is a stage safe to refill, and what makes
  // HINT: the count of cp.async groups predictable?
  // HINT2: A prologue (the q tile and the first STAGES - 1 tiles, one committed group per tile, then wait,
  // HINT2: barrier, q into fragments); a loop per tile (wait for its group, one barrier, refill the stage the
  // HINT2: previous tile used, commit always, then exercise 3's steps on this tile's stage); finalize.
  // HINT3: wait_group<STAGES - 2> leaves the STAGES - 2 newest groups in flight: it returns when tile j's group
  // HINT3: has landed, provided every iteration (and the prologue) committed exactly one group, even an
  // HINT3: empty one past the end. The barrier after it proves two things: tile j landed for every thread,
  // HINT3: and every warp finished tile j - 1, whose stage is (j + STAGES - 1) % STAGES.
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
