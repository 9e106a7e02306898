// Day 4, exercise 1: matrix transpose through a shared-memory tile, with and without padding.
//
//   in: [rows, cols] float32, row-major     out: [cols, rows]     out[c][r] = in[r][c]
//
// A transpose cannot read AND write global memory contiguously by itself: if consecutive threads read
// consecutive elements of a row of `in`, they write down a column of `out`, `rows` floats apart
// (transpose_naive below, the worked example). The cure: a block reads a 32 x 32 tile of `in` into
// shared memory with coalesced row reads, waits for the whole tile (__syncthreads), then writes the
// tile's columns as coalesced rows of `out`. Shared memory does not care about the order... except for
// its 32 banks: the tile's column is read by a warp, and with rows of 32 floats (128 bytes) every
// element of a column sits in the same bank. One extra float per row (PAD = 1) spreads a column over
// all 32 banks.
//
// The grader launches block = (32, 8) and grid = (ceil(cols / 32), ceil(rows / 32)): each thread
// moves TILE / BLOCK_ROWS = 4 elements of the tile, so it has 4 loads in flight at once.
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
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  const int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols) out[static_cast<int64_t>(c) * rows + r] = in[static_cast<int64_t>(r) * cols + c];
}

// The tiled transpose; PAD extra floats at the end of each shared-memory row.
template <int PAD>
__device__ void transpose_tile(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  __shared__ float tile[TILE][TILE + PAD];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int r0 = blockIdx.y * TILE, c0 = blockIdx.x * TILE;  // the tile's first row and column in `in`
  // BEGIN EXERCISE
  // HINT: Step 1, coalesced reads: for j = 0, 8, 16, 24, thread (tx, ty) copies in[r0 + ty + j][c0 + tx]
  // HINT: into tile[ty + j][tx], when that element exists (row < rows and column < cols). Index `in`
  // HINT: with int64_t: r * cols can pass 2^31.
  // HINT: Step 2: __syncthreads(), reached by EVERY thread of the block (never return early): each
  // HINT: warp is about to read elements of the tile that other warps wrote.
  // HINT: Step 3, coalesced writes: the tile's column tx becomes row (c0 + ty + j) of out, and
  // HINT: consecutive tx must write consecutive addresses: out[c0 + ty + j][r0 + tx] = tile[tx][ty + j],
  // HINT: when c0 + ty + j < cols and r0 + tx < rows (out has `rows` columns).
  // HINT2: two unrolled loops over j = 0; j < TILE; j += BLOCK_ROWS, with one __syncthreads() between
  // HINT2: them: the first fills tile[ty + j][tx], the second empties tile[tx][ty + j].
  // HINT3: out[static_cast<int64_t>(c0 + ty + j) * rows + r0 + tx] = tile[tx][ty + j];  the tile is read
  // HINT3: down a column (tile[tx][...]) so that the global store runs along a row of out.
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
