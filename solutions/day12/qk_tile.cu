// Day 12, exercise 2: one tile of scores on the tensor cores, s = q k^T for one warp.
//
//   q: [heads, 16, head_dim]   k: [heads, 64, head_dim]   fp16     s: [heads, 16, 64] float
//   s[h, i, j] = q[h, i] . k[h, j]          head_dim 64 or 128, no scale, no mask
//
// The first step of the FlashAttention-2 kernels of exercises 3 and 4, on its own: a warp keeps its
// 16 query rows in registers as mma A fragments (loaded once with ldmatrix) and computes the 16 x 64
// scores of a K tile with mma.sync.m16n8k16 over the head dimension, 8 keys per C fragment. The tiles
// are copied into shared memory for you (course/attention/prefill.cuh, padded rows: Tr::STRIDE halves
// apart). You write the two steps, load_q_fragments and compute_qk, in prefill_steps.cuh beside this
// file (where exercises 3 to 6 find them and the steps that follow), and here the store of the C
// fragments. The grader launches grid = (heads,), block = (32,).
#include "prefill_steps.cuh"

namespace {

using namespace course;
using namespace course::prefill;
using namespace steps;  // your warp steps (prefill_steps.cuh)

// The scores to global memory, s: [16, BLOCK_N] row-major (this head's).
template <typename Tr>
__device__ __forceinline__ void store_scores(float* s, const float (&acc)[Tr::S_N8][4], int lane) {
  // BEGIN EXERCISE
  // HINT: Where does accumulator i of n8 tile n sit in the 16 x 64 tile of scores? course/mma.cuh draws the
  // HINT: m16n8 C layout. The test: s against float64 at fp16-input tolerance; the technique: HMMA and LDSM.
  // HINT2: Two loops, over the n8 tiles and the 4 accumulators of each: each value to its row and column of this
  // HINT2: head's [16, BLOCK_N] scores. Work the row and column out yourself once before using mma::frag_c_row
  // HINT2: / frag_c_col.
  // HINT3: The 32 lanes form 8 groups of 4: lane / 4 is the row among the upper 8, lane % 4 the column pair;
  // HINT3: accumulators 0-1 are that column pair in row lane / 4, accumulators 2-3 the same columns 8 rows lower.
#pragma unroll
  for (int n = 0; n < Tr::S_N8; ++n) {
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const int row = lane / 4 + 8 * (i / 2), col = 8 * n + 2 * (lane % 4) + i % 2;
      s[row * Tr::BLOCK_N + col] = acc[n][i];
    }
  }
  // END EXERCISE
}

template <int HEAD_DIM>
__device__ void qk_tile(const half* __restrict__ q, const half* __restrict__ k, float* __restrict__ s) {
  using Tr = Traits<HEAD_DIM, 1, 64>;  // one warp, 16 query rows, 64 keys
  __shared__ __align__(16) half q_smem[Tr::Q_TILE];
  __shared__ __align__(16) half k_smem[Tr::KV_TILE];
  const int lane = threadIdx.x;
  const int64_t head = blockIdx.x;
  load_tile_sync<Tr::BLOCK_M, HEAD_DIM, Tr::THREADS>(q_smem, q + head * Tr::BLOCK_M * HEAD_DIM, Tr::BLOCK_M);
  load_tile_sync<Tr::BLOCK_N, HEAD_DIM, Tr::THREADS>(k_smem, k + head * Tr::BLOCK_N * HEAD_DIM, Tr::BLOCK_N);
  __syncwarp();

  uint32_t q_frag[Tr::D_K16][4];
  float acc[Tr::S_N8][4];
  load_q_fragments<Tr>(q_frag, q_smem, 0, lane);
  compute_qk<Tr>(acc, q_frag, k_smem, lane);
  store_scores<Tr>(s + head * Tr::BLOCK_M * Tr::BLOCK_N, acc, lane);
}

}  // namespace

extern "C" __global__ void __launch_bounds__(32) qk_tile_d64(const half* q, const half* k, float* s) {
  qk_tile<64>(q, k, s);
}

extern "C" __global__ void __launch_bounds__(32) qk_tile_d128(const half* q, const half* k, float* s) {
  qk_tile<128>(q, k, s);
}
