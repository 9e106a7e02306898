// Day 1, exercise 3: 2-D indexing.
//
//   out[r][c] = in[r][c] + bias[c]   for 0 <= r < rows, 0 <= c < cols   (row-major, row length cols)
//
// The grader launches 2-D blocks of (32, 8) threads and a 2-D grid of
// (ceil(cols / 32), ceil(rows / 8)) blocks: x runs along a row, y down the columns.
#include <course/common.cuh>

extern "C" __global__ void add_bias_2d(const float* __restrict__ in, const float* __restrict__ bias,
                                       float* __restrict__ out, int rows, int cols) {
  // BEGIN EXERCISE
  // HINT: column from the x dimension (blockIdx.x, blockDim.x, threadIdx.x), row from the y dimension.
  // HINT: guard both: the grid is rounded up in x and in y.
  // HINT2: c = blockIdx.x * blockDim.x + threadIdx.x; r = the same with .y; if (r < rows && c < cols)
  // HINT2: { element index; out[idx] = in[idx] + bias[c]; }
  // HINT3: const int64_t idx = static_cast<int64_t>(r) * cols + c;  (row-major: a row is cols long)
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  const int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols) {
    const int64_t idx = static_cast<int64_t>(r) * cols + c;
    out[idx] = in[idx] + bias[c];
  }
  // END EXERCISE
}
