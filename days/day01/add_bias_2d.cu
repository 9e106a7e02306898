// Your exercise file. Generated from solutions/day01/add_bias_2d.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: f7aa652b094d6140
// Day 1, exercise 3: 2-D indexing.
//
//   out[r][c] = in[r][c] + bias[c]   for 0 <= r < rows, 0 <= c < cols   (row-major, row length cols)
//
// The grader launches 2-D blocks of (32, 8) threads and a 2-D grid of
// (ceil(cols / 32), ceil(rows / 8)) blocks: x runs along a row, y down the columns.
#include <course/common.cuh>

extern "C" __global__ void add_bias_2d(const float* __restrict__ in, const float* __restrict__ bias,
                                       float* __restrict__ out, int rows, int cols) {
  // TODO: your code here.
  //   Hint: column from the x dimension (blockIdx.x, blockDim.x, threadIdx.x), row from the y dimension.
  //   Hint: guard both: the grid is rounded up in x and in y.
}
