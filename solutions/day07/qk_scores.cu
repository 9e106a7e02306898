// Day 7, exercise 4: the pipeline with 2D tiles, streaming the rows of K past one query vector.
//
//   scores[j] = q . K[j, :] = sum_c q[c] * K[j, c],  q: [64] float32, K: [n, 64] float32 (row-major)
//   grid = (any number of blocks,), block = (256,)
//
// The first half of a decode attention step (day 11): one query against a long K, each row of K read
// once. Tiles are ROWS = 32 rows of K (8 KiB); block b handles tiles b, b + gridDim.x, ... through a
// ring of STAGES = 4 tiles in shared memory, the ring of pipeline.cu. What is new is the copy of a 2D
// tile: a row is 64 floats = 16 chunks of 16 bytes, the tile 512 chunks; rows past n are zero-filled
// (cpa::load_128b with a false predicate reads nothing and writes zeros). score_tile's warp w scores
// rows w * ROWS_PER_WARP .. of the tile, lane l holding q[2l] and q[2l + 1] in registers (loaded once).
// The test: n from 1 to 10^6 + 1 with 1 to 264 blocks, within a bound on float32 rounding of a
// 64-term dot product. The SASS must show cp.async (LDGSTS, LDGDEPBAR, DEPBAR) and a butterfly
// (SHFL.BFLY), and no 16-byte plain global load.
#include <course/cp_async.cuh>

namespace {

constexpr int BLOCK = 256;                  // the grader launches exactly this many threads per block
constexpr int D = 64;                       // floats per row of K and of q
constexpr int ROWS = 32;                    // rows of K per tile
constexpr int CHUNKS = D / 4;               // 16-byte chunks per row
constexpr int STAGES = 4;
constexpr int ROWS_PER_WARP = ROWS / (BLOCK / 32);

namespace cpa = course::cp_async;

// Issue the copies of tile `t` of K into `stage` ([ROWS][D] floats), zero rows past the end of K.
// Nothing when the tile does not exist: the caller still commits (an empty group).
COURSE_INLINE void issue_tile(float* stage, const float* __restrict__ k, int64_t t, int64_t num_tiles,
                              int64_t n) {
  // BEGIN EXERCISE
  // HINT: 512 chunks, 256 threads: which chunks should a thread copy so that every warp's copies read
  // HINT: whole rows of K (coalesced)? What happens to a chunk of a row past n?
  // HINT2: If the tile exists: two chunks per thread, chunk c of the tile being a row and a 16-byte column
  // HINT2: of it; the row of K it comes from; one predicated 16-byte copy, the predicate saying whether
  // HINT2: that row exists.
  // HINT3: Let consecutive threads take consecutive chunks: 16 threads then read one 256-byte row and a
  // HINT3: warp's copies are two whole rows. The chunk's row is c / CHUNKS and its first float
  // HINT3: 4 * (c % CHUNKS); the K offset is 64-bit (n * 64 floats can pass 2^31 bytes).
  if (t < num_tiles) {
#pragma unroll
    for (int i = 0; i < ROWS * CHUNKS / BLOCK; ++i) {
      const int c = threadIdx.x + i * BLOCK;
      const int row = c / CHUNKS, col = 4 * (c % CHUNKS);
      const int64_t j = t * ROWS + row;
      cpa::load_128b(stage + row * D + col, k + j * D + col, j < n);
    }
  }
  // END EXERCISE
}

// The dot products of the tile's rows with q (q0, q1: this lane's two elements of q), written to
// scores[first_row + r] for the rows r of this warp that exist.
COURSE_INLINE void score_tile(const float* stage, float q0, float q1, float* __restrict__ scores,
                              int64_t first_row, int64_t n) {
  // BEGIN EXERCISE
  // HINT: Each row of this warp is one 64-element dot product spread over 32 lanes: what does one lane
  // HINT: contribute, and how does the warp combine the 32 contributions?
  // HINT2: A loop over this warp's rows of the tile: each lane reads its two elements of the row from
  // HINT2: shared memory as one 8-byte value, multiplies with its q0, q1; the warp butterfly-sums; one
  // HINT2: lane stores the score if the row exists.
  // HINT3: Every lane must reach the shuffles, also for rows past n (their zero-filled rows give 0): only
  // HINT3: the final store is guarded. Reading a float2 at lane's offset gives one LDS.64 per row, with
  // HINT3: no bank conflict (32 lanes x 8 bytes = 256 contiguous bytes).
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
#pragma unroll
  for (int i = 0; i < ROWS_PER_WARP; ++i) {
    const int r = warp * ROWS_PER_WARP + i;
    const float2 kr = reinterpret_cast<const float2*>(stage + r * D)[lane];  // K[row, 2 lane .. + 1]
    float s = q0 * kr.x + q1 * kr.y;
#pragma unroll
    for (int o = 16; o > 0; o /= 2) s += __shfl_xor_sync(0xffffffffu, s, o);
    if (lane == 0 && first_row + r < n) scores[first_row + r] = s;
  }
  // END EXERCISE
}

}  // namespace

extern "C" __global__ void __launch_bounds__(BLOCK)
qk_scores(const float* __restrict__ q, const float* __restrict__ k, float* __restrict__ scores, int64_t n) {
  __shared__ __align__(16) float smem[STAGES][ROWS * D];
  // BEGIN EXERCISE
  // HINT: pipeline.cu's ring, now with issue_tile and score_tile doing the copy and the compute. What
  // HINT: does each lane need from q, and when should it load it?
  // HINT2: This lane's two elements of q, once, before the ring. Then pipeline.cu's prologue and steps
  // HINT2: with STAGES = 4: issue the tile STAGES - 1 ahead and commit, wait, barrier, score_tile on the
  // HINT2: current stage (its first row being the tile's first row of K), barrier.
  // HINT3: Name the step counter something else than k: k is the pointer to K here. The tile's first
  // HINT3: row of K is the tile index times ROWS, in 64 bits.
  const int64_t num_tiles = (n + ROWS - 1) / ROWS;
  const int64_t first_tile = blockIdx.x, step = gridDim.x;
  const float q0 = q[2 * (threadIdx.x % 32)], q1 = q[2 * (threadIdx.x % 32) + 1];
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    issue_tile(smem[s], k, first_tile + s * step, num_tiles, n);
    cpa::commit_group();
  }
  for (int i = 0; first_tile + i * step < num_tiles; ++i) {
    const int64_t t = first_tile + i * step;
    issue_tile(smem[(i + STAGES - 1) % STAGES], k, t + (STAGES - 1) * step, num_tiles, n);
    cpa::commit_group();
    cpa::wait_group<STAGES - 1>();
    __syncthreads();
    score_tile(smem[i % STAGES], q0, q1, scores, t * ROWS, n);
    __syncthreads();
  }
  // END EXERCISE
}
