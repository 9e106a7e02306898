// Your exercise file. Generated from solutions/day10/swizzle.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: dd75d219fc2f47e4
// Day 10, exercise 3: the XOR swizzle of 16-byte chunks that makes ldmatrix conflict-free.
//
//   swizzle_offsets_COLS(out):  out [16, COLS] int: out[row][col] = tile_offset<COLS, true>(row, col),
//     the element offset where element (row, col) of a [ROWS, COLS] 16-bit tile is stored.
//   swizzle_roundtrip_COLS(in, out, rows_valid, cols_valid):  in, out [16, COLS] fp16: the tile goes
//     into swizzled shared memory with 16-byte cp.async copies (zeros for rows >= rows_valid or
//     columns >= cols_valid, a multiple of 8; nothing is read there) and comes back out in order.
//
// Shared memory has 32 banks of 4 bytes: 128 bytes, 8 chunks of 16 bytes, per "line". ldmatrix reads
// 8 rows of ONE 16-byte chunk column; when a tile row is 128 bytes (or a multiple) long, those 8
// chunks sit in the same 4 banks: an 8-way conflict. The swizzle keeps every row in place and every
// chunk whole, and permutes the chunks inside each group of 8 (each 128-byte line) by XOR with a
// function of the row, so that the 8 rows of a chunk column land in 8 different chunk slots.
// Rows of 4 chunks (64 bytes: BK = 32) put two rows in one 128-byte line; rows of 2 chunks, four.
//
// offsets: one thread per element, grid = (COLS / 8,), block = (8, 16). roundtrip: grid = (1,),
// block = (128,). The grader checks the offsets' properties on the CPU (each row a permutation of
// itself, chunks whole, every ldmatrix conflict-free), not one formula, and the round trip exactly;
// gemm_mma.cu and gemm.cu use the same two functions.
#include <course/cp_async.cuh>
#include <cuda_fp16.h>

namespace {

constexpr int CHUNK = 8;  // 16-bit elements in one 16-byte chunk

// The physical chunk of logical chunk `chunk` in row `row` of a tile whose rows hold CHUNKS chunks
// (a power of two).
template <int CHUNKS>
__device__ __forceinline__ constexpr int swizzle_chunk(int row, int chunk) {
  // TODO: your code here.
  //   Hint: ldmatrix reads one chunk column of 8 rows at once. How do those 8 rows' chunks land in 8 different
  //   Hint: 16-byte slots of the 128-byte lines, when a row may hold fewer than 8 chunks (several rows per line)?
  return chunk + 0 * row;
}

// Element offset of (row, col) in a [ROWS, COLS] 16-bit tile, plain or swizzled.
template <int COLS, bool SWIZZLE>
__device__ __forceinline__ int tile_offset(int row, int col) {
  // TODO: your code here.
  //   Hint: The swizzle moves whole chunks inside a row, never elements inside a chunk, never rows. What is the
  //   Hint: offset of (row, col) without it, and which part of that offset does it change?
  (void)row; (void)col; return 0;
}

template <int COLS>
__device__ void offsets(int* out) {
  const int row = threadIdx.y, col = blockIdx.x * CHUNK + threadIdx.x;
  out[row * COLS + col] = tile_offset<COLS, true>(row, col);
}

template <int COLS>
__device__ void roundtrip(const half* __restrict__ in, half* __restrict__ out, int rows_valid, int cols_valid) {
  constexpr int ROWS = 16, THREADS = 128;
  __shared__ alignas(128) half tile[ROWS * COLS];
  const int tid = threadIdx.x;
  // TODO: your code here.
  //   Hint: A cp.async chunk is 16 bytes = 8 fp16 elements. How does each thread find its chunks, where do they go
  //   Hint: in the swizzled tile, and what must happen before anyone reads the tile back?
  (void)in; (void)out; (void)rows_valid; (void)cols_valid; (void)tid; (void)tile;
}

}  // namespace

// The tiles of the GEMM: A [BM, BK = 32 or 64] and B [BK, BN = 64 .. 256].
extern "C" __global__ void swizzle_offsets_32(int* out) { offsets<32>(out); }
extern "C" __global__ void swizzle_offsets_64(int* out) { offsets<64>(out); }
extern "C" __global__ void swizzle_offsets_128(int* out) { offsets<128>(out); }
extern "C" __global__ void swizzle_offsets_256(int* out) { offsets<256>(out); }
extern "C" __global__ void swizzle_roundtrip_32(const half* in, half* out, int rows, int cols) { roundtrip<32>(in, out, rows, cols); }
extern "C" __global__ void swizzle_roundtrip_64(const half* in, half* out, int rows, int cols) { roundtrip<64>(in, out, rows, cols); }
extern "C" __global__ void swizzle_roundtrip_128(const half* in, half* out, int rows, int cols) { roundtrip<128>(in, out, rows, cols); }
extern "C" __global__ void swizzle_roundtrip_256(const half* in, half* out, int rows, int cols) { roundtrip<256>(in, out, rows, cols); }
