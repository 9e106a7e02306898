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
  // BEGIN EXERCISE
  // HINT: ldmatrix reads one chunk column of 8 rows at once. How do those 8 rows' chunks land in 8 different
  // HINT: 16-byte slots of the 128-byte lines, when a row may hold fewer than 8 chunks (several rows per line)?
  // HINT2: A permutation of the chunk index by XOR with a function of the row. Over the 8 rows an ldmatrix reads,
  // HINT2: that function must take each of its `period` values equally often, period being the number of chunk
  // HINT2: slots a row's chunks are permuted among (at most 8).
  // HINT3: With fewer than 8 chunks a row, 8 / period consecutive rows share one 128-byte line and already sit
  // HINT3: in different slots of it; so the XOR value changes once every 8 / period rows and cycles with the
  // HINT3: period: divide the row first, then take the remainder.
  // STUB: return chunk + 0 * row;
  constexpr int period = CHUNKS < 8 ? CHUNKS : 8;
  return chunk ^ ((row / (8 / period)) % period);
  // END EXERCISE
}

// Element offset of (row, col) in a [ROWS, COLS] 16-bit tile, plain or swizzled.
template <int COLS, bool SWIZZLE>
__device__ __forceinline__ int tile_offset(int row, int col) {
  // BEGIN EXERCISE
  // HINT: The swizzle moves whole chunks inside a row, never elements inside a chunk, never rows. What is the
  // HINT: offset of (row, col) without it, and which part of that offset does it change?
  // HINT2: Three terms: the row's start, the start of the chunk's physical slot, the element's place inside its
  // HINT2: chunk; without SWIZZLE the slot is the logical chunk.
  // HINT3: The logical chunk is col / CHUNK; its physical slot is swizzle_chunk of it for this row, times CHUNK
  // HINT3: elements; col % CHUNK is kept.
  // STUB: (void)row; (void)col; return 0;
  if constexpr (SWIZZLE) {
    return row * COLS + swizzle_chunk<COLS / CHUNK>(row, col / CHUNK) * CHUNK + col % CHUNK;
  } else {
    return row * COLS + col;
  }
  // END EXERCISE
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
  // BEGIN EXERCISE
  // HINT: A cp.async chunk is 16 bytes = 8 fp16 elements. How does each thread find its chunks, where do they go
  // HINT: in the swizzled tile, and what must happen before anyone reads the tile back?
  // HINT2: Two phases: the threads take the tile's chunks in a strided loop, each copied with
  // HINT2: course::cp_async::load_128b to its swizzled place (zero-filled outside the valid rows and columns);
  // HINT2: commit, wait for all, a barrier; then every element read back through tile_offset into out, in order.
  // HINT3: A predicated-off copy reads nothing but still needs a valid source address: the chunk's own address
  // HINT3: exists in the [16, COLS] input, so pass it anyway. Chunk c of the tile is row c / (COLS / CHUNK).
  // STUB: (void)in; (void)out; (void)rows_valid; (void)cols_valid; (void)tid; (void)tile;
  for (int c = tid; c < ROWS * COLS / CHUNK; c += THREADS) {
    const int r = c / (COLS / CHUNK), col = c % (COLS / CHUNK) * CHUNK;
    course::cp_async::load_128b(tile + tile_offset<COLS, true>(r, col), in + r * COLS + col,
                                r < rows_valid && col < cols_valid);
  }
  course::cp_async::commit_group();
  course::cp_async::wait_group<0>();
  __syncthreads();
  for (int i = tid; i < ROWS * COLS; i += THREADS) out[i] = tile[tile_offset<COLS, true>(i / COLS, i % COLS)];
  // END EXERCISE
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
