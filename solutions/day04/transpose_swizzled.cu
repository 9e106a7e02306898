// Day 4, exercise 2: a transpose near copy speed: 64 x 64 tiles, 16-byte accesses, a swizzled tile.
//
//   in: [rows, cols] float32, row-major     out: [cols, rows]     out[c][r] = in[r][c]
//
// Exercise 1 moves 4 bytes per access. Here every global access and every shared-memory access moves
// 16 bytes (a float4 "chunk"), and each block of 256 threads transposes a 64 x 64 tile:
//
//   1. load:  thread (g, c) = (tid / 16, tid % 16) reads the 4 x 4 block of `in` made of rows 4g..4g+3
//             and columns 4c..4c+3 of the tile: four float4 loads, one per row. Each load of a warp
//             covers 2 rows x 16 chunks: 256 contiguous bytes per row (coalesced).
//   2. transpose the 4 x 4 block in registers: column k of it (v[0][k], v[1][k], v[2][k], v[3][k]) is
//             4 consecutive elements of row 4c + k of `out`'s tile.
//   3. store: those 4 chunks into the shared tile, laid out as OUT's tile: 64 rows of 16 chunks.
//   4. __syncthreads(), then each thread copies chunks of out's tile rows to `out`: a warp writes two
//             rows x 256 contiguous bytes (coalesced).
//
// Step 3 is where banks bite. Eight threads of a quarter-warp (the unit a 16-byte store is served in)
// write chunk g of rows 4c + k, c = 0..7: rows 64 floats (256 bytes) apart, so all 8 chunks start in
// the same bank: an 8-way conflict. The swizzled layout stores chunk `ch` of row `row` at chunk
// ch ^ ((row >> 2) % 8) (you write it: tile_chunk; course/permuted_smem.cuh's permuted_chunk is the
// header version later days use): those 8 chunks land at g ^ 0 .. g ^ 7, 8 different positions
// covering all 32 banks. Step 4 reads 8 consecutive chunks of one row: still 8 different
// positions. No padding, and every chunk stays 16-byte aligned.
//
// The grader launches block = (256,) and grid = (ceil(cols / 64), ceil(rows / 64)). Float4 access
// needs 16-byte aligned rows in `in` and `out`: when rows or cols is not a multiple of 4, the kernel
// moves the same chunks one float at a time (VECTOR = false), with the same tile and the same swizzle.
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
  // HINT: the row keeps its place (CHUNKS chunks per row); inside the row, the chunk index is XORed with
  // HINT: 3 bits of the row index, (row >> SWIZZLE_SHIFT) % 8: rows 4c .. 4c + 3 share one permutation.
  // HINT3: XOR only permutes within the aligned group of 8 chunks: chunk ^ b stays in 0..15 for b < 8.
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
  // HINT: VECTOR: one 16-byte load (a float4 through reinterpret_cast) when n == 4, else zeros.
  // HINT: Otherwise: element by element, v[k] = p[k] for k < n and 0 for the rest.
  // HINT2: float4 x = make_float4(0.f, 0.f, 0.f, 0.f); if (n == VEC) x = *reinterpret_cast<const float4*>(p);
  // HINT2: then copy x.x .. x.w into v[0..3] and return.
  // HINT3: keep the load predicated (assign x inside the if), not a branch around the whole copy: the
  // HINT3: warp then never splits, and the compiler emits one LDG.E.128 under a predicate.
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
  // HINT: VECTOR: one 16-byte store when n == 4 (nothing when n == 0). Otherwise the first n floats of v,
  // HINT: one at a time.
  // HINT2: if (VECTOR) { if (n == VEC) *reinterpret_cast<float4*>(p) = v; return; }  then put v's four
  // HINT2: fields in a float f[VEC] and store f[k] for k < n (a loop with a constant trip count).
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
  // HINT: end - start, clamped to 0..VEC (negative when the chunk starts past the end).
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
  // HINT: Steps 1-2: with g = tid / CHUNKS and c = tid % CHUNKS, read rows r = r0 + 4g + i (i = 0..3)
  // HINT: of `in` at columns c0 + 4c .. c0 + 4c + 3 into float v[4][VEC] with load_chunk<VECTOR>(v[i],
  // HINT: in + (int64_t)r * cols + c0 + 4c, n): n = in_range(c0 + 4c, cols) columns exist when r < rows,
  // HINT: else n = 0 (an all-zero chunk: it is never written out).
  // HINT: Step 3: for k = 0..3, tile[tile_chunk(4c + k, g)] = make_float4(v[0][k], v[1][k], v[2][k], v[3][k]):
  // HINT: row 4c + k of out's tile, chunk g (its elements come from in's rows 4g .. 4g + 3).
  // HINT: Then __syncthreads(), reached by every thread.
  // HINT: Step 4: the 64 x 16 chunks of out's tile, 256 at a time: for j = 0..3, q = j * THREADS + tid,
  // HINT: row = q / CHUNKS, ch = q % CHUNKS. It goes to out[c0 + row][r0 + 4ch ..] (out has `rows`
  // HINT: columns) when c0 + row < cols, with n = in_range(r0 + 4ch, rows) elements:
  // HINT: store_chunk<VECTOR>(out + (int64_t)(c0 + row) * rows + r0 + 4 * ch, tile[tile_chunk(row, ch)], n).
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
