// Day 12, exercise 2: one tile of scores on the tensor cores, s = q k^T for one warp.
//
//   q: [heads, 16, head_dim]   k: [heads, 64, head_dim]   fp16     s: [heads, 16, 64] float
//   s[h, i, j] = q[h, i] . k[h, j]          head_dim 64 or 128, no scale, no mask
//
// The first step of the FlashAttention-2 kernels of exercises 3 and 4, on its own: a warp keeps its
// 16 query rows in registers as mma A fragments (loaded once with ldmatrix) and computes the 16 x 64
// scores of a K tile with mma.sync.m16n8k16 over the head dimension, 8 keys per C fragment. The tiles
// are copied into shared memory for you (course/attention/prefill.cuh, padded rows: Tr::STRIDE halves
// apart); you write the two steps and the store of the C fragments. The grader launches
// grid = (heads,), block = (32,).
#include <course/attention/prefill.cuh>

namespace {

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
