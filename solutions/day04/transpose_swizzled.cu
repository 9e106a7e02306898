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
  // BEGIN EXERCISE
  // HINT: Rows keep their place; inside a row, which bits of the row index should permute the chunk
  // HINT: index so that the 8 rows one quarter-warp writes (same chunk, rows 4 apart) land on 8 different
  // HINT: chunk positions?
  // HINT2: Row offset plus the chunk index XORed with 3 bits taken from the row; the shift that selects
  // HINT2: them is SWIZZLE_SHIFT (rows 4c .. 4c + 3 share one permutation).
  // HINT3: XOR with a value below 8 only permutes inside an aligned group of 8 chunks: the result stays in
  // HINT3: 0..15 and a row's 16 chunks stay a permutation of themselves, so nothing collides.
  // STUB: return 0;
  return row * CHUNKS + (chunk ^ ((row >> SWIZZLE_SHIFT) & 7));
  // END EXERCISE
}

// v = the 4 floats p[0..3], where the first `n` of them exist (the rest read as 0). VECTOR (rows and
// cols multiples of 4): a chunk lies wholly inside the matrix or wholly outside, so n is 4 or 0, and
// one predicated 16-byte load does it, with no branch for the warp to split on.
template <bool VECTOR>
COURSE_INLINE void load_chunk(float (&v)[VEC], const float* p, int n) {
  // BEGIN EXERCISE
  // HINT: With VECTOR a chunk is wholly inside the matrix or wholly outside: how do you read it with one
  // HINT: 16-byte load and no branch the warp could split on? Without VECTOR, which floats exist?
  // HINT2: VECTOR: a float4 that is zero unless n is 4, then loaded in one access; copy its four fields.
  // HINT2: Otherwise an element loop with a constant trip count, zero past n.
  // HINT3: Keep the load predicated (the assignment inside the condition, the copy outside it): the
  // HINT3: compiler then emits one LDG.E.128 under a predicate instead of two paths.
  // STUB: for (int k = 0; k < VEC; ++k) v[k] = 0.f;
  if (VECTOR) {
    float4 x = make_float4(0.f, 0.f, 0.f, 0.f);
    if (n == VEC) x = *reinterpret_cast<const float4*>(p);
    v[0] = x.x, v[1] = x.y, v[2] = x.z, v[3] = x.w;
    return;
  }
  for (int k = 0; k < VEC; ++k) v[k] = k < n ? p[k] : 0.f;  // a constant trip count: fully unrolled
  // END EXERCISE
}

// p[0..n-1] = v[0..n-1]. VECTOR: n is 4 or 0, one predicated 16-byte store.
template <bool VECTOR>
COURSE_INLINE void store_chunk(float* p, const float4& v, int n) {
  // BEGIN EXERCISE
  // HINT: The mirror of load_chunk: one 16-byte store when the whole chunk exists; otherwise only the
  // HINT: floats that exist.
  // HINT2: VECTOR: store the float4 as a whole when n is 4, nothing otherwise. Else: its fields one by one,
  // HINT2: those below n (a loop with a constant trip count).
  if (VECTOR) {
    if (n == VEC) *reinterpret_cast<float4*>(p) = v;
    return;
  }
  const float f[VEC] = {v.x, v.y, v.z, v.w};
  for (int k = 0; k < VEC; ++k) {
    if (k < n) p[k] = f[k];
  }
  // END EXERCISE
}

// How many of the 4 elements starting at `start` lie below `end` (0 to 4).
COURSE_INLINE int in_range(int start, int end) {
  // BEGIN EXERCISE
  // HINT: How many of the 4 positions start .. start + 3 are below end? It can be negative before clamping.
  // STUB: return 0;
  return max(0, min(VEC, end - start));
  // END EXERCISE
}

template <bool VECTOR>
__device__ void transpose_tile(const float* __restrict__ in, float* __restrict__ out, int rows, int cols,
                               float4* tile) {
  const int tid = threadIdx.x;
  const int r0 = blockIdx.y * TILE, c0 = blockIdx.x * TILE;  // the tile's first row and column in `in`
  // BEGIN EXERCISE
  // HINT: Each thread owns a 4 x 4 block of the 64 x 64 tile (thread id -> which 4 rows, which 4 columns):
  // HINT: which chunks of `in` does it read, where in out's tile does each column of its 4 x 4 block go, and
  // HINT: which chunks of out's tile does it write back after the barrier?
  // HINT2: Phase 1: four row-chunk loads from in (load_chunk, with in_range for the columns and 0 for
  // HINT2: rows past the end). Phase 2: four shared stores, column k of the block as one chunk, placed by
  // HINT2: tile_chunk. A barrier. Phase 3: the block writes out's tile 256 chunks at a time, consecutive
  // HINT2: threads taking consecutive chunks of a row (store_chunk, guarded by both edges of out).
  // HINT3: The 4 x 4 block a thread read from rows 4g.. and chunk c of in becomes chunk g of rows 4c + k
  // HINT3: of out's tile (the tile is transposed as a whole and inside each 4 x 4 block). out's row
  // HINT3: c0 + row holds elements r0 + 4 ch .. of out, and out's rows are rows floats long (64-bit offsets).
  const int g = tid / CHUNKS, c = tid % CHUNKS;
  float v[VEC][VEC];  // v[i][k] = in[r0 + 4g + i][c0 + 4c + k]
  const int n_cols = in_range(c0 + VEC * c, cols);
#pragma unroll
  for (int i = 0; i < VEC; ++i) {
    const int r = r0 + VEC * g + i;
    load_chunk<VECTOR>(v[i], in + static_cast<int64_t>(r) * cols + c0 + VEC * c, r < rows ? n_cols : 0);
  }
#pragma unroll
  for (int k = 0; k < VEC; ++k) tile[tile_chunk(VEC * c + k, g)] = make_float4(v[0][k], v[1][k], v[2][k], v[3][k]);
  __syncthreads();  // out's whole tile is in shared memory
#pragma unroll
  for (int j = 0; j < TILE * CHUNKS / THREADS; ++j) {
    const int q = j * THREADS + tid, row = q / CHUNKS, ch = q % CHUNKS;
    if (c0 + row < cols) {
      store_chunk<VECTOR>(out + static_cast<int64_t>(c0 + row) * rows + r0 + VEC * ch, tile[tile_chunk(row, ch)],
                          in_range(r0 + VEC * ch, rows));
    }
  }
  // END EXERCISE
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
