// Your exercise file. Generated from solutions/day04/transpose_swizzled.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: 270addd2359f5873
// Day 4, exercise 2: a transpose near copy speed: 64 x 64 tiles, 16-byte accesses, a swizzled tile.
//
//   in: [rows, cols] float32, row-major     out: [cols, rows]     out[c][r] = in[r][c]
//
// Exercise 1 moves 4 bytes per access. Here every global access and every shared-memory access moves
// 16 bytes (a float4 "chunk"), and each block of 256 threads transposes a 64 x 64 tile, staged in
// shared memory laid out as OUT's tile: 64 rows of 16 chunks (`tile`, 16 KiB, no padding). Each
// thread owns a 4 x 4 block of the tile: (1) it reads it from `in` as four row chunks, (2) transposes
// it in registers (column k of the 4 x 4 block is 4 consecutive elements of a row of out's tile),
// (3) stores those four chunks in the shared tile; (4) after a barrier the block writes out's tile to
// `out` in row chunks. Every global read and write of a warp must be coalesced (256 contiguous bytes
// per row).
//
// Step 3 is where banks bite: a 16-byte shared access is served a quarter-warp (8 threads) at a
// time, and 8 chunks are conflict-free when they sit at 8 different positions mod 8 chunks (128 bytes:
// all 32 banks). Eight threads that write the same chunk index of rows 4 apart all start in one bank:
// an 8-way conflict, unless the chunk's position in its row depends on the row. tile_chunk is that
// placement: an XOR of the chunk index with bits of the row (course/permuted_smem.cuh holds the
// permutation later days use; write yours). It must keep the reads of 8 consecutive chunks of one row
// conflict-free too, and every chunk 16-byte aligned.
//
// Contract: block = (256,), grid = (ceil(cols / 64), ceil(rows / 64)); any shape (1 x 1, 65 x 129,
// 2049 x 4100 ...), compared exactly. Float4 access needs 16-byte aligned rows in `in` and `out`: when
// rows or cols is not a multiple of 4, the kernel moves the same chunks one float at a time
// (VECTOR = false), with the same tile and the same swizzle. The SASS must show LDG.E.128, STG.E.128,
// STS.128, LDS.128 and a barrier, the source an XOR (^); the benchmark expects 80% of a copy.
#include <course/vec_dtypes.cuh>

namespace {

constexpr int TILE = 64;                // a TILE x TILE tile per block
constexpr int VEC = 4;                  // floats per 16-byte chunk
constexpr int CHUNKS = TILE / VEC;      // 16 chunks per tile row
constexpr int THREADS = 256;            // (TILE / VEC) x (TILE / VEC): one 4 x 4 block per thread
constexpr int SWIZZLE_SHIFT = 2;        // rows 4c .. 4c + 3 share the permutation (row >> 2)

// Where chunk `chunk` of row `row` of out's tile lives in shared memory (a float4 index).
COURSE_INLINE int tile_chunk(int row, int chunk) {
  // TODO: your code here.
  //   Hint: Rows keep their place; inside a row, which bits of the row index should permute the chunk
  //   Hint: index so that the 8 rows one quarter-warp writes (same chunk, rows 4 apart) land on 8 different
  //   Hint: chunk positions?
  return 0;
}

// v = the 4 floats p[0..3], where the first `n` of them exist (the rest read as 0). VECTOR (rows and
// cols multiples of 4): a chunk lies wholly inside the matrix or wholly outside, so n is 4 or 0, and
// one predicated 16-byte load does it, with no branch for the warp to split on.
template <bool VECTOR>
COURSE_INLINE void load_chunk(float (&v)[VEC], const float* p, int n) {
  // TODO: your code here.
  //   Hint: With VECTOR a chunk is wholly inside the matrix or wholly outside: how do you read it with one
  //   Hint: 16-byte load and no branch the warp could split on? Without VECTOR, which floats exist?
  for (int k = 0; k < VEC; ++k) v[k] = 0.f;
}

// p[0..n-1] = v[0..n-1]. VECTOR: n is 4 or 0, one predicated 16-byte store.
template <bool VECTOR>
COURSE_INLINE void store_chunk(float* p, const float4& v, int n) {
  // TODO: your code here.
  //   Hint: The mirror of load_chunk: one 16-byte store when the whole chunk exists; otherwise only the
  //   Hint: floats that exist.
}

// How many of the 4 elements starting at `start` lie below `end` (0 to 4).
COURSE_INLINE int in_range(int start, int end) {
  // TODO: your code here.
  //   Hint: How many of the 4 positions start .. start + 3 are below end? It can be negative before clamping.
  return 0;
}

template <bool VECTOR>
__device__ void transpose_tile(const float* __restrict__ in, float* __restrict__ out, int rows, int cols,
                               float4* tile) {
  const int tid = threadIdx.x;
  const int r0 = blockIdx.y * TILE, c0 = blockIdx.x * TILE;  // the tile's first row and column in `in`
  // TODO: your code here.
  //   Hint: Each thread owns a 4 x 4 block of the 64 x 64 tile (thread id -> which 4 rows, which 4 columns):
  //   Hint: which chunks of `in` does it read, where in out's tile does each column of its 4 x 4 block go, and
  //   Hint: which chunks of out's tile does it write back after the barrier?
}

}  // namespace

extern "C" __global__ void __launch_bounds__(THREADS)
transpose_swizzled(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  __shared__ float4 tile[TILE * CHUNKS];  // out's tile: 64 rows of 16 chunks, 16 KiB, no padding
  // The whole block takes the same branch (rows and cols are uniform), so its barrier stays uniform.
  if (rows % VEC == 0 && cols % VEC == 0) {
    transpose_tile<true>(in, out, rows, cols, tile);
  } else {
    transpose_tile<false>(in, out, rows, cols, tile);
  }
}
