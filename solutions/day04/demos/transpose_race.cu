// Day 4, planted bug for compute-sanitizer (racecheck): exercise 1's padded transpose WITHOUT the
// __syncthreads() between writing the tile and reading it. A warp reads a column of the tile that
// other warps may not have written yet. It often gives the right answer anyway (the warps happen to
// finish in time), which is why a race is found by a tool, not by a test.
//
// Same launch as transpose_padded: block = (32, 8), grid = (ceil(cols / 32), ceil(rows / 32)).
#include <course/common.cuh>

constexpr int TILE = 32;
constexpr int BLOCK_ROWS = 8;

extern "C" __global__ void transpose_race(const float* __restrict__ in, float* __restrict__ out, int rows,
                                          int cols) {
  __shared__ float tile[TILE][TILE + 1];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int r0 = blockIdx.y * TILE, c0 = blockIdx.x * TILE;
  for (int j = 0; j < TILE; j += BLOCK_ROWS) {
    const int r = r0 + ty + j, c = c0 + tx;
    if (r < rows && c < cols) tile[ty + j][tx] = in[static_cast<int64_t>(r) * cols + c];  // the write
  }
  // BUG: no __syncthreads() here.
  for (int j = 0; j < TILE; j += BLOCK_ROWS) {
    const int out_row = c0 + ty + j, out_col = r0 + tx;
    if (out_row < cols && out_col < rows) {
      out[static_cast<int64_t>(out_row) * rows + out_col] = tile[tx][ty + j];  // the read that races
    }
  }
}
