// Day 4, planted bug for compute-sanitizer (memcheck): exercise 1's padded transpose whose store has
// no bounds check. When rows or cols is not a multiple of 32, the edge blocks write past the last row
// of `out`: past the end of its allocation (memcheck: "Invalid __global__ write"), or into elements
// of out that belong elsewhere. With cupy's memory pool on, that memory usually belongs to the pool,
// so memcheck sees nothing: `python -m grader sanitize` turns the pool off.
//
// Same launch as transpose_padded: block = (32, 8), grid = (ceil(cols / 32), ceil(rows / 32)).
#include <course/common.cuh>

constexpr int TILE = 32;
constexpr int BLOCK_ROWS = 8;

extern "C" __global__ void transpose_oob(const float* __restrict__ in, float* __restrict__ out, int rows,
                                         int cols) {
  __shared__ float tile[TILE][TILE + 1];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int r0 = blockIdx.y * TILE, c0 = blockIdx.x * TILE;
  for (int j = 0; j < TILE; j += BLOCK_ROWS) {
    const int r = r0 + ty + j, c = c0 + tx;
    if (r < rows && c < cols) tile[ty + j][tx] = in[static_cast<int64_t>(r) * cols + c];
  }
  __syncthreads();
  for (int j = 0; j < TILE; j += BLOCK_ROWS) {
    const int out_row = c0 + ty + j, out_col = r0 + tx;
    // BUG: no `if (out_row < cols && out_col < rows)`.
    out[static_cast<int64_t>(out_row) * rows + out_col] = tile[tx][ty + j];  // the write out of bounds
  }
}
