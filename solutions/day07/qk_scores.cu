// Day 7, exercise 4: the pipeline with 2D tiles, streaming the rows of K past one query vector.
//
//   scores[j] = q . K[j, :] = sum_c q[c] * K[j, c],  q: [64] float32, K: [n, 64] float32 (row-major)
//   grid = (any number of blocks,), block = (256,)
//
// The first half of a decode attention step (day 11): one query against a long K, each row of K read
// once. Tiles are ROWS = 32 rows of K (8 KiB); block b handles tiles b, b + gridDim.x, ... through a
// ring of STAGES = 4 tiles in shared memory, exactly the ring of pipeline.cu. What is new is the copy
// of a 2D tile: a row is 64 floats = 16 chunks of 16 bytes, the tile 512 chunks, two per thread; the
// rows past n are zero-filled (cpa::load_128b with a false predicate reads nothing and writes zeros).
//
// The compute: warp w takes rows w * 4 .. w * 4 + 3 of the tile. Lane l holds q[2l], q[2l + 1] in
// registers (loaded once), multiplies them with K[row, 2l], K[row, 2l + 1] from shared memory, and
// the warp adds its 32 partial sums with shuffles; lane 0 writes the score.
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
  // HINT: the tile is ROWS * CHUNKS = 512 chunks of 16 bytes, two per thread; chunk c is row
  // HINT: c / CHUNKS, floats 4 * (c % CHUNKS) .. + 3 of that row. A row past n is zero-filled.
  // HINT2: if (t < num_tiles) for i = 0, 1: c = threadIdx.x + i * BLOCK; row = c / CHUNKS;
  // HINT2: col = 4 * (c % CHUNKS); j = t * ROWS + row (the row of K);
  // HINT2: cpa::load_128b(stage + row * D + col, k + j * D + col, j < n).
  // HINT3: consecutive threads take consecutive chunks of a row: 16 threads read one 256-byte row,
  // HINT3: so every warp's copies are two whole rows, coalesced.
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
  // HINT: per row of this warp: each lane multiplies its two elements, then the warp adds the 32
  // HINT: partial sums with __shfl_xor_sync (a butterfly: every lane ends with the sum).
  // HINT2: lane = threadIdx.x % 32, warp = threadIdx.x / 32; for i = 0 .. ROWS_PER_WARP - 1:
  // HINT2:   r = warp * ROWS_PER_WARP + i; kr = the float2 at stage + r * D + 2 * lane (one LDS.64);
  // HINT2:   s = q0 * kr.x + q1 * kr.y;
  // HINT2:   for (o = 16; o > 0; o /= 2) s += __shfl_xor_sync(0xffffffffu, s, o);
  // HINT2:   if (lane == 0 && first_row + r < n) scores[first_row + r] = s;
  // HINT3: every lane of the warp must reach the shuffles, also for rows past n (their zero-filled
  // HINT3: rows give 0): only the final store is guarded.
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
  // HINT: pipeline.cu's ring with STAGES = 4, tile t of K going through issue_tile and score_tile;
  // HINT: each lane loads its two elements of q into registers once, before the loop.
  // HINT2: num_tiles = ceil(n / ROWS); q0 = q[2 * lane], q1 = q[2 * lane + 1] (lane = threadIdx.x % 32).
  // HINT2: prologue: for s = 0 .. STAGES - 2: issue_tile(smem[s], k, first_tile + s * step, ...);
  // HINT2: cpa::commit_group(). Then for i = 0 while t = first_tile + i * step < num_tiles:
  // HINT2:   issue tile t + (STAGES - 1) * step into smem[(i + STAGES - 1) % STAGES]; commit;
  // HINT2:   cpa::wait_group<STAGES - 1>(); __syncthreads();
  // HINT2:   score_tile(smem[i % STAGES], q0, q1, scores, t * ROWS, n); __syncthreads();
  // HINT3: name the step counter i, not k: k is the pointer to K here.
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
