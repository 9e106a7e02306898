// Your exercise file. Generated from solutions/day07/qk_scores.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: ae4aad19a214c733
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
  // TODO: your code here.
  //   Hint: the tile is ROWS * CHUNKS = 512 chunks of 16 bytes, two per thread; chunk c is row
  //   Hint: c / CHUNKS, floats 4 * (c % CHUNKS) .. + 3 of that row. A row past n is zero-filled.
}

// The dot products of the tile's rows with q (q0, q1: this lane's two elements of q), written to
// scores[first_row + r] for the rows r of this warp that exist.
COURSE_INLINE void score_tile(const float* stage, float q0, float q1, float* __restrict__ scores,
                              int64_t first_row, int64_t n) {
  // TODO: your code here.
  //   Hint: per row of this warp: each lane multiplies its two elements, then the warp adds the 32
  //   Hint: partial sums with __shfl_xor_sync (a butterfly: every lane ends with the sum).
}

}  // namespace

extern "C" __global__ void __launch_bounds__(BLOCK)
qk_scores(const float* __restrict__ q, const float* __restrict__ k, float* __restrict__ scores, int64_t n) {
  __shared__ __align__(16) float smem[STAGES][ROWS * D];
  // TODO: your code here.
  //   Hint: pipeline.cu's ring with STAGES = 4, tile t of K going through issue_tile and score_tile;
  //   Hint: each lane loads its two elements of q into registers once, before the loop.
}
