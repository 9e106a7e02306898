// course/permuted_smem.cuh: shared-memory banks, and tiles whose rows AND columns are conflict-free (day 4).
//
// Shared memory is split into 32 banks, each 4 bytes wide: the 4-byte word at byte offset a lives in
// bank (a / 4) % 32. A warp's access is served in one pass when its 32 threads touch 32 different
// banks (or the same word: a broadcast); when k threads touch different words of one bank, the access
// takes k passes (a k-way bank conflict). A tile whose rows are a multiple of 128 bytes long puts a
// whole column in ONE bank: reading a column is a 32-way conflict.
//
// Two cures. Padding: one extra element per row shifts each row by one bank (`tile[32][33]`); it
// wastes memory and breaks the 16-byte alignment of rows. Swizzling: keep the rows unpadded and
// permute where elements sit inside a row, with an XOR of the column by bits of the row index, so
// that the elements of a column land in different banks. The same idea as FlashInfer's
// include/flashinfer/permuted_smem.cuh, which permutes 16-byte chunks (what ldmatrix and cp.async move;
// days 7, 9 and 10 reuse permuted_chunk below) within each group of 8 chunks (128 bytes = all banks).
//
// Framework-free and header-only.
#pragma once
#include "common.cuh"

namespace course {

constexpr int NUM_BANKS = 32;   // banks of shared memory
constexpr int BANK_BYTES = 4;   // bytes per bank per pass
constexpr int CHUNK_BYTES = 16;  // one 16-byte access (LDS.128 / STS.128, ldmatrix rows, cp.async)

// The bank that holds shared-memory byte offset `byte_offset`.
__host__ __device__ __forceinline__ constexpr int smem_bank(uint32_t byte_offset) {
  return static_cast<int>((byte_offset / BANK_BYTES) % NUM_BANKS);
}

// XOR swizzle: column `col` of row `row` is stored at column col ^ ((row >> SHIFT) & (2^BITS - 1)).
// For each row this is a permutation of every aligned group of 2^BITS columns, so rows stay whole and
// a row's elements stay in their group; moving down a column flips different low bits of `col`.
// Example: a 32 x 32 float tile stored at [row][xor_swizzle<5>(row, col)] is conflict-free both when a
// warp reads a row (fixed row: a permutation of the 32 banks) and a column (fixed col: col ^ row).
template <int BITS, int SHIFT = 0>
__host__ __device__ __forceinline__ constexpr int xor_swizzle(int row, int col) {
  static_assert(BITS >= 1 && BITS <= 5 && SHIFT >= 0, "swizzle 1 to 5 bits");
  return col ^ ((row >> SHIFT) & ((1 << BITS) - 1));
}

// Where chunk `chunk` of row `row` of a tile with ROW_CHUNKS 16-byte chunks per row is stored, as a
// chunk index into the tile: the row keeps its place, the chunk is permuted within its group of 8
// by (row >> SHIFT) % 8. Use SHIFT = log2 of how many consecutive rows a warp's conflicting accesses
// share (SHIFT = 2 when each thread writes 4 consecutive rows of the same chunk column, as in the
// day 4 transpose). Eight 16-byte accesses, one per chunk group position, cover all 32 banks.
template <int ROW_CHUNKS, int SHIFT = 0>
__host__ __device__ __forceinline__ constexpr int permuted_chunk(int row, int chunk) {
  static_assert(ROW_CHUNKS % 8 == 0, "rows of whole 128-byte groups (a multiple of 8 chunks)");
  return row * ROW_CHUNKS + xor_swizzle<3, SHIFT>(row, chunk);
}

}  // namespace course
