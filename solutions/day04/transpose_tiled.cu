// Day 4, exercise 1: matrix transpose through a shared-memory tile, with and without padding.
//
//   in: [rows, cols] float32, row-major     out: [cols, rows]     out[c][r] = in[r][c]
//
// A transpose cannot read AND write global memory contiguously by itself: if consecutive threads read
// consecutive elements of a row of `in`, they write down a column of `out`, `rows` floats apart
// (transpose_naive below, the worked example). The cure: a block stages a 32 x 32 tile of `in` in
// shared memory, so that both its global reads and its global writes run along rows. Shared memory
// does not care about the order... except for its 32 banks: with rows of 32 floats (128 bytes) every
// element of a column of the tile sits in the same bank. One extra float per row (PAD = 1) spreads a
// column over all 32 banks.
//
// Contract: block = (32, 8), grid = (ceil(cols / 32), ceil(rows / 32)): a block owns one 32 x 32 tile
// and each thread moves TILE / BLOCK_ROWS = 4 of its elements, so it has 4 loads in flight at once.
// Shapes are any size (1 x 1, 33 x 31, 2049 x 4100 ...): tiles on the right and bottom edges are
// partial. Both kernels (unpadded and padded) are compared exactly; the SASS of each must show shared
// stores, a barrier and shared loads (STS, BAR, LDS); the benchmark compares them with a copy.
#include <course/common.cuh>

namespace {

constexpr int TILE = 32;       // a TILE x TILE tile per block
constexpr int BLOCK_ROWS = 8;  // blockDim.y: the block covers 8 rows of the tile per step

}  // namespace

// Worked example: one element per thread, block = (32, 8), grid = (ceil(cols / 32), ceil(rows / 8)).
// Reads are coalesced (a warp reads 32 consecutive floats of a row); writes are not: the warp's 32
// stores land `rows` floats apart, one 32-byte sector each.
extern "C" __global__ void transpose_naive(const float* __restrict__ in, float* __restrict__ out, int rows,
                                           int cols) {
  const int c = blockIdx.x * TILE + threadIdx.x, r = blockIdx.y * BLOCK_ROWS + threadIdx.y;
  if (r < rows && c < cols) out[static_cast<int64_t>(c) * rows + r] = in[static_cast<int64_t>(r) * cols + c];
}

// The tiled transpose; PAD extra floats at the end of each shared-memory row.
template <int PAD>
__device__ void transpose_tile(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  __shared__ float tile[TILE][TILE + PAD];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int r0 = blockIdx.y * TILE, c0 = blockIdx.x * TILE;  // the tile's first row and column in `in`
  // BEGIN EXERCISE
  // HINT: Which element of the tile does thread (tx, ty) load so that a warp reads 32 consecutive floats
  // HINT: of a row of in, and which one does it store so that a warp writes 32 consecutive floats of a
  // HINT: row of out? Which of the two goes down a column of the tile?
  // HINT2: Two phases separated by one barrier that every thread of the block reaches: fill the tile (four
  // HINT2: rows per thread, guarded against the matrix edges), then write the transposed tile (four rows of
  // HINT2: out's tile per thread, guarded against out's edges, which are swapped).
  // HINT3: The write phase swaps the roles of tx and ty in the tile, not in global memory: the thread with
  // HINT3: lane tx still writes column r0 + tx of out (consecutive addresses), so it reads tile row tx, at
  // HINT3: column ty + j. out has rows columns, so its row stride is rows; form the offsets in 64 bits.
#pragma unroll
  for (int j = 0; j < TILE; j += BLOCK_ROWS) {
    const int r = r0 + ty + j, c = c0 + tx;
    if (r < rows && c < cols) tile[ty + j][tx] = in[static_cast<int64_t>(r) * cols + c];
  }
  __syncthreads();  // the whole tile is in shared memory before any thread reads a column of it
#pragma unroll
  for (int j = 0; j < TILE; j += BLOCK_ROWS) {
    const int out_row = c0 + ty + j, out_col = r0 + tx;  // out[out_row][out_col] = in[out_col][out_row]
    if (out_row < cols && out_col < rows) out[static_cast<int64_t>(out_row) * rows + out_col] = tile[tx][ty + j];
  }
  // END EXERCISE
}

// Unpadded: a warp reading tile[tx][ty + j] for tx = 0..31 hits one bank 32 times (32-way conflict).
extern "C" __global__ void __launch_bounds__(TILE * BLOCK_ROWS)
transpose_tiled(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  transpose_tile<0>(in, out, rows, cols);
}

// Padded: row i starts i banks further on, so the same column read touches 32 different banks.
extern "C" __global__ void __launch_bounds__(TILE * BLOCK_ROWS)
transpose_padded(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  transpose_tile<1>(in, out, rows, cols);
}
