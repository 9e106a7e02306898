// Your exercise file. Generated from solutions/day01/add_bias_2d.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: 983358de22db1056
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
  // TODO: your code here.
  //   Hint: The block is a 2-D patch of the matrix: which launch dimension walks along a row, which one
  //   Hint: down a column? Which threads of the patches on the right and bottom edges must stay idle?
}
