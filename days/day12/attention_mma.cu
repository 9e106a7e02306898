// Your exercise file. Generated from solutions/day12/attention_mma.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: da6ab4e85faa39f4
// Day 12, exercise 3: prefill attention on the tensor cores (mma.sync), without a pipeline.
//
//   q, o: [heads, q_len, head_dim]   k, v: [heads, kv_len, head_dim]   fp16, head_dim 64 or 128
//   o[h, i] = softmax_j(q[h, i] . k[h, j] * sm_scale) v[h, j]   over the keys j that query i sees:
//   all of them, or with `causal` those with j <= i + (kv_len - q_len).
//
// FlashAttention-2's forward, one block of 4 warps per 64 query rows of one head: each warp keeps its
// 16 query rows in registers (mma A fragments) and walks over the keys in tiles of 64. For each tile:
// the block loads K and V into shared memory, waits, and every warp computes s = q k^T with mma.sync,
// masks it, folds it into its online-softmax state and accumulates o += p v, all in registers.
// You write each of these steps once, in prefill_steps.cuh beside this file (exercises 4 to 6 reuse
// them), then here the loop over the tiles. course/attention/prefill.cuh holds the tile sizes
// (Traits), the copies into shared memory and the layout of the softmax state. The loads here go
// through registers and the block waits for them: while a tile loads, the tensor cores idle.
// Exercise 4 (attention_prefill.cu) fixes that.
// The grader launches grid = (ceil(q_len / 64), heads), block = (128,). The test (of this loop and of
// every step of prefill_steps.cuh): o against a float64 reference at fp16's tolerance, causal and not,
// q_len != kv_len, lengths that are no multiple of 64; the technique: HMMA, LDSM, SHFL and MUFU.EX2
// in the SASS, no spills.
#include "prefill_steps.cuh"

namespace {

using namespace course;
using namespace course::prefill;
using namespace steps;  // your warp steps (prefill_steps.cuh)

constexpr int NUM_WARPS = 4;
constexpr int BLOCK_N = 64;

template <typename Tr, bool CAUSAL>
__device__ void attention(const half* __restrict__ q, const half* __restrict__ k, const half* __restrict__ v,
                          half* __restrict__ o, int q_len, int kv_len, float sm_scale, half* k_smem,
                          half* v_smem) {
  static_assert(Tr::BLOCK_M == Tr::BLOCK_N, "the q tile is staged in the K buffer: same size");
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int q0 = blockIdx.x * Tr::BLOCK_M;
  const int64_t head = blockIdx.y;
  q += (head * q_len + q0) * Tr::HEAD_DIM;
  o += head * q_len * Tr::HEAD_DIM;
  k += head * kv_len * Tr::HEAD_DIM;
  v += head * kv_len * Tr::HEAD_DIM;

  const int kv_end = visible_kv<CAUSAL>(q0, Tr::BLOCK_M, q_len, kv_len);
  const int num_tiles = ceil_div(kv_end, Tr::BLOCK_N);
  const int mask_from = first_masked_tile<CAUSAL>(q0, Tr::BLOCK_N, q_len, kv_len);
  const float scale_log2 = sm_scale * math::log2e;

  // The q tile passes through the K buffer on its way to registers.
  uint32_t q_frag[Tr::D_K16][4];
  load_tile_sync<Tr::BLOCK_M, Tr::HEAD_DIM, Tr::THREADS>(k_smem, q, q_len - q0);
  __syncthreads();
  load_q_fragments<Tr>(q_frag, k_smem, warp, lane);

  float s[Tr::S_N8][4];
  uint32_t p_frag[Tr::S_K16][4];
  SoftmaxState<Tr> state;
  state.init();
  // TODO: your code here.
  //   Hint: Every warp reads the whole K and V tile, but the block loads it together. When may the buffers be
  //   Hint: refilled, and when may a warp start reading them? The test: o at fp16's tolerance, causal and
  //   Hint: not, q_len != kv_len; the technique: HMMA and LDSM in the SASS, no spills.
}

template <int HEAD_DIM>
__device__ void dispatch(const half* q, const half* k, const half* v, half* o, int q_len, int kv_len,
                         int causal, float sm_scale) {
  using Tr = Traits<HEAD_DIM, NUM_WARPS, BLOCK_N>;
  // Declared once here: both instantiations below share the same two tiles.
  __shared__ __align__(16) half k_smem[Tr::KV_TILE];
  __shared__ __align__(16) half v_smem[Tr::KV_TILE];
  if (causal) {
    attention<Tr, true>(q, k, v, o, q_len, kv_len, sm_scale, k_smem, v_smem);
  } else {
    attention<Tr, false>(q, k, v, o, q_len, kv_len, sm_scale, k_smem, v_smem);
  }
}

}  // namespace

extern "C" __global__ void __launch_bounds__(32 * NUM_WARPS)
attention_mma_d64(const half* q, const half* k, const half* v, half* o, int q_len, int kv_len, int causal,
                  float sm_scale) {
  dispatch<64>(q, k, v, o, q_len, kv_len, causal, sm_scale);
}

extern "C" __global__ void __launch_bounds__(32 * NUM_WARPS)
attention_mma_d128(const half* q, const half* k, const half* v, half* o, int q_len, int kv_len, int causal,
                   float sm_scale) {
  dispatch<128>(q, k, v, o, q_len, kv_len, causal, sm_scale);
}
