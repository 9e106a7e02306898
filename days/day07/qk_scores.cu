// Your exercise file. Generated from solutions/day07/qk_scores.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: 72896f6fcfc6fea8
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
  // TODO: your code here.
  //   Hint: 512 chunks, 256 threads: which chunks should a thread copy so that every warp's copies read
  //   Hint: whole rows of K (coalesced)? What happens to a chunk of a row past n?
}

// The dot products of the tile's rows with q (q0, q1: this lane's two elements of q), written to
// scores[first_row + r] for the rows r of this warp that exist.
COURSE_INLINE void score_tile(const float* stage, float q0, float q1, float* __restrict__ scores,
                              int64_t first_row, int64_t n) {
  // TODO: your code here.
  //   Hint: Each row of this warp is one 64-element dot product spread over 32 lanes: what does one lane
  //   Hint: contribute, and how does the warp combine the 32 contributions?
}

}  // namespace

extern "C" __global__ void __launch_bounds__(BLOCK)
qk_scores(const float* __restrict__ q, const float* __restrict__ k, float* __restrict__ scores, int64_t n) {
  __shared__ __align__(16) float smem[STAGES][ROWS * D];
  // TODO: your code here.
  //   Hint: pipeline.cu's ring, now with issue_tile and score_tile doing the copy and the compute. What
  //   Hint: does each lane need from q, and when should it load it?
}
