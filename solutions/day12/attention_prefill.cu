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
// Each warp owns 32 query rows (two 16-row halves), so every K and V fragment ldmatrix brings in feeds
// two mma.sync, and q is re-read from shared memory each tile instead of held in registers: 0.31
// ldmatrix per mma instead of 0.5 with 16 rows a warp, which is what shared memory's bandwidth allows.
// One thread block owns BLOCK_M = 32 * NUM_WARPS query rows; the grader launches
// grid = (ceil(q_len / BLOCK_M), heads), block = (32 * NUM_WARPS,) and SMEM_BYTES of dynamic shared
// memory, reading those numbers from the kernel `prefill_config` below, so a configuration can be
// changed here (or with -DPREFILL_WARPS=... at compile time) without touching the grader.
// The test: o against a float64 reference at fp16's tolerance, causal and not, awkward lengths; the
// technique: HMMA, LDSM, LDGSTS (cp.async), SHFL and MUFU.EX2 in the SASS, no spills.
#include "prefill_steps.cuh"

#ifndef PREFILL_WARPS
#define PREFILL_WARPS 4  // warps per block (32 query rows each)
#endif
#ifndef PREFILL_STAGES
#define PREFILL_STAGES 2  // K/V tiles in flight (>= 2)
#endif
#ifndef PREFILL_BLOCK_N
#define PREFILL_BLOCK_N 64  // keys per K/V tile
#endif
#ifndef PREFILL_RESCALE_SLACK
#define PREFILL_RESCALE_SLACK 4  // log2 units a row's max may grow before o is rescaled (prefill_steps.cuh):
                                 // on the H100 4 skips enough rescales to gain 2 points over 0 (question 2)
#endif
#ifndef PREFILL_MIN_BLOCKS
#define PREFILL_MIN_BLOCKS 1  // blocks per SM asked of ptxas (__launch_bounds__): 3 caps d128 at 168 registers
#endif

namespace {

using namespace course;
using namespace course::prefill;
using namespace steps;  // your warp steps (prefill_steps.cuh)

// 32 query rows per warp (two m16 halves): BLOCK_M = 32 * PREFILL_WARPS, the q tile twice as tall.
template <int HEAD_DIM>
using Config = Traits<HEAD_DIM, PREFILL_WARPS, PREFILL_BLOCK_N, PREFILL_STAGES, 32>;

// compute_qk_m32 and compute_pv_m32, the two products of 32 rows a warp, are yours in prefill_steps.cuh
// (exercises 5 and 6 call them too).

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
  k += head * kv_len * Tr::HEAD_DIM;
  v += head * kv_len * Tr::HEAD_DIM;

  // The block loads and computes the K/V tiles [0, num_tiles) that any of its rows sees; this warp masks from
  // warp_mask_from on (the partial tile, and causal the tiles its own rows' diagonals cross). (Skipping the
  // tiles wholly past a warp's diagonal, as the 16-row kernel does, costs m32 the one register it lacks:
  // ptxas spills then.)
  const int kv_end = visible_kv<CAUSAL>(q0, Tr::BLOCK_M, q_len, kv_len);
  const int num_tiles = ceil_div(kv_end, Tr::BLOCK_N);
  const int warp_mask_from = first_masked_tile<CAUSAL>(q0 + 32 * warp, Tr::BLOCK_N, q_len, kv_len);
  const float scale_log2 = sm_scale * math::log2e;

  // Tile t of K and V into stage `stage` with cp.async. Every tile but the last of the sequence is full
  // and takes the short path; the last one is zero-filled past kv_len.
  const int full_tiles = kv_len / Tr::BLOCK_N;
  auto load_kv = [&](int t, int stage) {
    half* k_dst = kv_smem + 2 * stage * Tr::KV_TILE;
    const int64_t offset = static_cast<int64_t>(t) * Tr::BLOCK_N * Tr::HEAD_DIM;
    if (t < full_tiles) {
      load_kv_tile_async<Tr, true>(k_dst, k + offset, v + offset, Tr::BLOCK_N, Tr::HEAD_DIM);
    } else {
      load_kv_tile_async<Tr, false>(k_dst, k + offset, v + offset, kv_len - t * Tr::BLOCK_N, Tr::HEAD_DIM);
    }
  };

  float s[2][Tr::S_N8][4];
  uint32_t p_frag[2][Tr::S_K16][4];
  SoftmaxState<Tr> state[2];
  state[0].init();
  state[1].init();

  // BEGIN EXERCISE
  // HINT: Exercise 3's loop with the tensor cores never waiting for a load: while tile j is computed, tiles
  // HINT: j + 1 .. j + STAGES - 1 are in flight with cp.async. When is a stage safe to refill, and what makes
  // HINT: the count of cp.async groups predictable?
  // HINT2: A prologue (the q tile and the first STAGES - 1 tiles, one committed group per tile, then wait,
  // HINT2: barrier); a loop per tile (wait for its group, one barrier, refill the stage the previous tile
  // HINT2: used, commit always, then on this tile's stage compute_qk_m32, per half the mask, online_softmax
  // HINT2: and to_a_fragments, then compute_pv_m32); finalize_and_store for each half.
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

  for (int j = 0; j < num_tiles; ++j) {
    cp_async::wait_group<Tr::STAGES - 2>();
    __syncthreads();
    const int next = j + Tr::STAGES - 1;
    if (next < num_tiles) load_kv(next, next % Tr::STAGES);
    cp_async::commit_group();

    {
      const half* k_smem = kv_smem + 2 * (j % Tr::STAGES) * Tr::KV_TILE;
      compute_qk_m32<Tr>(s, q_smem, k_smem, warp, lane);
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        if (j >= warp_mask_from) {
          mask_scores<Tr, CAUSAL>(s[h], q0 + 32 * warp + 16 * h, j * Tr::BLOCK_N, kv_len, kv_len - q_len, lane);
        }
        online_softmax<Tr, PREFILL_RESCALE_SLACK>(state[h], s[h], scale_log2);
        to_a_fragments<Tr>(p_frag[h], s[h]);
      }
      compute_pv_m32<Tr>(state, p_frag, k_smem + Tr::KV_TILE, lane);
    }
  }
  o += static_cast<int64_t>(blockIdx.y) * q_len * Tr::HEAD_DIM;  // here, not at the top: 2 registers less in the loop
#pragma unroll
  for (int h = 0; h < 2; ++h) finalize_and_store<Tr>(state[h], o, q0 + 32 * warp + 16 * h, q_len, lane);
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

extern "C" __global__ void __launch_bounds__(Config<64>::THREADS, PREFILL_MIN_BLOCKS)
prefill_d64(const half* q, const half* k, const half* v, half* o, int q_len, int kv_len, int causal,
            float sm_scale) {
  prefill_dispatch<Config<64>>(q, k, v, o, q_len, kv_len, causal, sm_scale);
}

extern "C" __global__ void __launch_bounds__(Config<128>::THREADS, PREFILL_MIN_BLOCKS)
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
