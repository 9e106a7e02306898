// course/gemm.cuh: the pieces of a tiled tensor-core GEMM that do not change between kernels (day 10).
//
// After the ideas of FlashInfer's include/flashinfer/permuted_smem.cuh and of CUTLASS-style GEMMs:
//
//   Config<...>     the kernel's configuration as template parameters: block tile BM x BN, K step BK,
//                   WARPS_M x WARPS_N warps (each owning a WM x WN warp tile of mma tiles), STAGES
//                   shared-memory buffers for the cp.async pipeline, and whether tiles are swizzled.
//                   The Python side (grader/exercises/day10.py: GemmConfig) mirrors it.
//   tile_offset     where element (row, col) of a [ROWS, COLS] 16-bit tile lives in shared memory,
//                   plain (row * COLS + col) or XOR-swizzled by 16-byte chunks so that ldmatrix (8 rows
//                   of one chunk column) and the cp.async stores hit 8 different bank groups.
//   TileLoader      tiles, global -> shared, with 16-byte cp.async copies (course/cp_async.cuh), one
//                   per K step, zeros past the matrix edge; the caller commits the group.
//   block_coords    which C tile a block computes: blocks are grouped GROUP_M tiles tall so that
//                   consecutive blocks share rows of A and columns of B in L2.
//
// Layout conventions: A [M, K] and B [K, N] row-major, lda = K and ldb >= N (both multiples of 8, so
// every 16-byte chunk is aligned), C [M, N] row-major.
#pragma once
#include "common.cuh"
#include "cp_async.cuh"

namespace course {
namespace gemm {

constexpr int CHUNK = 8;  // 16-bit elements in one 16-byte chunk (a cp.async copy, an ldmatrix row)

template <int BM_, int BN_, int BK_, int WARPS_M_, int WARPS_N_, int STAGES_, bool SWIZZLE_>
struct Config {
  static constexpr int BM = BM_, BN = BN_, BK = BK_;
  static constexpr int WARPS_M = WARPS_M_, WARPS_N = WARPS_N_, STAGES = STAGES_;
  static constexpr bool SWIZZLE = SWIZZLE_;
  static constexpr int WARPS = WARPS_M * WARPS_N, THREADS = 32 * WARPS;
  static constexpr int WM = BM / WARPS_M, WN = BN / WARPS_N;  // warp tile
  static constexpr int MT = WM / 16, NT = WN / 8;             // m16n8 mma tiles per warp
  static constexpr int A_STAGE = BM * BK, B_STAGE = BK * BN;  // elements per pipeline buffer
  static constexpr int C_ROW = BN + CHUNK;                    // padded row of the epilogue's C tile
  static constexpr int PIPE_BYTES = STAGES * (A_STAGE + B_STAGE) * 2;
  static constexpr int EPILOGUE_BYTES = BM * C_ROW * 2;
  static constexpr int SMEM_BYTES = PIPE_BYTES > EPILOGUE_BYTES ? PIPE_BYTES : EPILOGUE_BYTES;

  static_assert(BM % (16 * WARPS_M) == 0 && BN % (16 * WARPS_N) == 0,
                "warp tiles must be multiples of 16 x 16 (an ldmatrix.x4 covers two n8 tiles)");
  static_assert(BK % 32 == 0, "BK must be a multiple of 32: an even number of the mma's k16 steps "
                              "(fragments are double-buffered across steps)");
  static_assert(((BK / CHUNK) & (BK / CHUNK - 1)) == 0 && ((BN / CHUNK) & (BN / CHUNK - 1)) == 0,
                "tile rows must hold a power-of-two number of 16-byte chunks (for the swizzle)");
  static_assert((BM * BK / CHUNK) % THREADS == 0 && (BK * BN / CHUNK) % THREADS == 0,
                "every thread copies the same number of chunks of each tile");
  static_assert(STAGES >= 1, "at least one pipeline stage");
};

// The physical chunk of logical chunk `chunk` in row `row` of a tile whose rows hold CHUNKS chunks.
// 8 chunks span the 32 banks (128 bytes). XOR with the row's position among the 8 rows that an
// ldmatrix reads sends those rows to 8 different chunk slots: no bank conflicts. With 4 (or 2) chunks
// per row, two (four) rows share a 128-byte line, so the row is divided first.
template <int CHUNKS>
__host__ __device__ __forceinline__ constexpr int swizzle_chunk(int row, int chunk) {
  constexpr int period = CHUNKS < 8 ? CHUNKS : 8;
  return chunk ^ ((row / (8 / period)) % period);
}

// Element offset of (row, col) in a [ROWS, COLS] tile; col is a multiple of CHUNK when SWIZZLE.
template <int COLS, bool SWIZZLE>
COURSE_INLINE int tile_offset(int row, int col) {
  if constexpr (SWIZZLE) {
    return row * COLS + swizzle_chunk<COLS / CHUNK>(row, col / CHUNK) * CHUNK + col % CHUNK;
  } else {
    return row * COLS + col;
  }
}

// Copies [ROWS, COLS] tiles of a row-major matrix (row stride ld) into shared memory with 16-byte
// cp.async copies: THREADS threads each take every THREADS-th chunk. A GEMM copies one such tile
// per K step, so what does not change from tile to tile (this thread's chunk positions, global and
// shared offsets) is computed once, in the constructor; `load` then costs an address and an edge
// test per chunk. Chunks at or past rows_valid rows or cols_valid columns are zero-filled and read
// nothing; ld % 8 == 0 keeps every chunk 16-byte aligned. Issues the copies only: commit and wait
// are the caller's.
template <int ROWS, int COLS, int THREADS, bool SWIZZLE, typename T>
struct TileLoader {
  static_assert(sizeof(T) == 2, "16-bit elements");
  static constexpr int CHUNKS_PER_ROW = COLS / CHUNK, PER_THREAD = ROWS * CHUNKS_PER_ROW / THREADS;
  static constexpr int ROW_STEP = THREADS / CHUNKS_PER_ROW;  // rows between a thread's chunks
  static_assert(THREADS % CHUNKS_PER_ROW == 0 && PER_THREAD * THREADS == ROWS * CHUNKS_PER_ROW,
                "every thread copies the same number of chunks, in the same column of the tile");

  const T* g;     // this thread's first chunk in the current tile, in global memory
  int64_t step;   // elements between its chunks in global memory (ROW_STEP rows)
  int row, col;   // where its first chunk is in the tile
  int s;          // and in a shared-memory buffer (swizzled), in elements

  COURSE_INLINE TileLoader(const T* tile, int ld)
      : row(threadIdx.x / CHUNKS_PER_ROW), col(threadIdx.x % CHUNKS_PER_ROW * CHUNK) {
    g = tile + int64_t(row) * ld + col;
    step = int64_t(ROW_STEP) * ld;
    s = tile_offset<COLS, SWIZZLE>(row, col);
  }

  // Copy the current tile into `buffer`; then move on by `advance` elements (to the next K tile).
  COURSE_INLINE void load(T* buffer, int rows_valid, int cols_valid, int64_t advance) {
#pragma unroll
    for (int i = 0; i < PER_THREAD; ++i) {
      const int r = row + i * ROW_STEP;
      const bool inside = r < rows_valid && col < cols_valid;
      // ROW_STEP is a multiple of 8 rows, the swizzle's period: chunk i moves by whole rows.
      const int offset = ROW_STEP % 8 == 0 ? s + i * ROW_STEP * COLS : tile_offset<COLS, SWIZZLE>(r, col);
      cp_async::load_128b<cp_async::SharedMemFillMode::kFillZero>(buffer + offset, inside ? g + i * step : g,
                                                                  inside);
    }
    g += advance;
  }
};

// The (tile row, tile column) of C that block `block` computes, in groups of GROUP_M tile rows: the
// blocks running at the same time then read GROUP_M rows of A and a few columns of B from L2,
// instead of one row of A and every column of B.
template <int GROUP_M = 8>
COURSE_INLINE void block_coords(int block, int tiles_m, int tiles_n, int& tile_m, int& tile_n) {
  const int per_group = GROUP_M * tiles_n;
  const int first_m = (block / per_group) * GROUP_M;
  const int rows = min(tiles_m - first_m, GROUP_M);
  tile_m = first_m + (block % per_group) % rows;
  tile_n = (block % per_group) / rows;
}

}  // namespace gemm
}  // namespace course
