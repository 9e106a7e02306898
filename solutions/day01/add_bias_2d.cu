// Day 1, exercise 3: 2-D indexing.
//
//   out[r][c] = in[r][c] + bias[c]   for 0 <= r < rows, 0 <= c < cols   (row-major, row length cols)
//
// float32, int rows and cols. The grader launches 2-D blocks of (32, 8) threads and a 2-D grid of
// (ceil(cols / 32), ceil(rows / 8)) blocks: x runs along a row, y down the columns. It tests shapes
// with a single row or column and shapes that are not multiples of the block (e.g. 1000 x 999).
#include <course/common.cuh>

extern "C" __global__ void add_bias_2d(const float* __restrict__ in, const float* __restrict__ bias,
                                       float* __restrict__ out, int rows, int cols) {
  // BEGIN EXERCISE
  // HINT: The block is a 2-D patch of the matrix: which launch dimension walks along a row, which one
  // HINT: down a column? Which threads of the patches on the right and bottom edges must stay idle?
  // HINT2: This thread's column and row, each from its own dimension of the launch; a guard on both;
  // HINT2: then the flat position of the element in the row-major array, used for in and out.
  // HINT3: Row-major: the element (r, c) sits r whole rows (of cols floats each) plus c from the start.
  // HINT3: rows * cols can pass 2^31 for a large matrix: form that product in 64 bits.
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  const int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols) {
    const int64_t idx = static_cast<int64_t>(r) * cols + c;
    out[idx] = in[idx] + bias[c];
  }
  // END EXERCISE
}
