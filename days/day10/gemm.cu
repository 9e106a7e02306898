// Your exercise file. Generated from solutions/day10/gemm.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: 75890883374416b6
// Day 10, exercise 5: a fast fp16 GEMM on the tensor cores: C = A * B, fp32 accumulate, fp16 out.
//
//   A: [M, K] row-major   B: [K, N] row-major, row stride ldb (>= N, a multiple of 8)   C: [M, N]
//   K must be a multiple of 8 (16-byte rows for cp.async); M and N are arbitrary.
//
// The configuration comes from -D options (the autotuner compiles one module per configuration;
// without options, the defaults below): block tile BM x BN, K step BK, WARPS_M x WARPS_N warps, STAGES
// pipeline buffers, SWIZZLE on or off. The grader reads it back from `gemm_config` and launches
//   grid = (ceil(M / BM) * ceil(N / BN),), block = (32 * WARPS_M * WARPS_N,),
//   dynamic shared memory = gemm_config[7] bytes.
//
// Everything but the configuration (course/gemm.cuh: Config) is yours, in this order:
//   0. the swizzle of exercise 3 (swizzle_chunk, tile_offset), a TileLoader (tiles, global -> shared,
//      16-byte cp.async, per-thread addresses computed once, not per tile) and block_coords (which C
//      tile each block computes, grouped so that blocks running together share A and B in L2);
//   1. the pipeline: STAGES buffers of an A tile [BM, BK] and a B tile [BK, BN]; cp.async fills the
//      buffer of tile kt + STAGES - 1 while the warps compute on tile kt;
//   2. the warp's fragments: ldmatrix.x4 for A and ldmatrix.x4.trans for B at (swizzled) offsets that
//      each lane computes once (FragmentOffsets), loaded one k16 step ahead of the MT x NT mma.sync
//      m16n8k16 that use them. The main loop has one barrier per tile and no branch at all: every tile's
//      copies are issued, those past K zero-filled. So the compiler interleaves each step's ldmatrix and
//      copies with the previous step's mma, and the loop computes next to no addresses (check with
//      `python -m grader sass`: LDSM between the HMMA);
//   3. the epilogue: fp32 accumulators -> fp16, staged through shared memory so that each thread
//      then writes whole 16-byte chunks of C rows (guarded at the edges).
// The default, 128x256 with 8 warps of 64x64, needs about 250 registers per thread: one block per SM,
// which __launch_bounds__(THREADS, 1) allows (up to 255 registers, no spills).
#include <course/cp_async.cuh>
#include <course/gemm.cuh>
#include <course/mma.cuh>

#ifndef GEMM_BM
#define GEMM_BM 128
#endif
#ifndef GEMM_BN
#define GEMM_BN 256
#endif
#ifndef GEMM_BK
#define GEMM_BK 32
#endif
#ifndef GEMM_WARPS_M
#define GEMM_WARPS_M 2
#endif
#ifndef GEMM_WARPS_N
#define GEMM_WARPS_N 4
#endif
#ifndef GEMM_STAGES
#define GEMM_STAGES 3
#endif
#ifndef GEMM_SWIZZLE
#define GEMM_SWIZZLE 1
#endif

using Cfg = course::gemm::Config<GEMM_BM, GEMM_BN, GEMM_BK, GEMM_WARPS_M, GEMM_WARPS_N, GEMM_STAGES,
                                 GEMM_SWIZZLE != 0>;

// What this module was compiled with, for the launcher: BM, BN, BK, WARPS_M, WARPS_N, STAGES,
// SWIZZLE, dynamic shared memory in bytes.
extern "C" __device__ const int gemm_config[8] = {Cfg::BM, Cfg::BN, Cfg::BK, Cfg::WARPS_M, Cfg::WARPS_N,
                                                  Cfg::STAGES, Cfg::SWIZZLE, Cfg::SMEM_BYTES};

namespace {

using course::gemm::CHUNK;

// ---- 1. swizzled shared-memory tiles ------------------------------------------------------------

// The physical chunk of logical 16-byte chunk `chunk` in row `row` of a tile whose rows hold CHUNKS
// chunks (a power of two). ldmatrix reads 8 rows of one chunk column, and 8 chunks span the 32 banks
// (128 bytes): the XOR must send those 8 rows to 8 different chunk slots of their 128-byte lines.
template <int CHUNKS>
__device__ __forceinline__ constexpr int swizzle_chunk(int row, int chunk) {
  // TODO: your code here.
  //   Hint: ldmatrix reads one chunk column of 8 rows at once. How do those 8 rows' chunks land in 8 different
  //   Hint: 16-byte slots of the 128-byte lines, when a row may hold fewer than 8 chunks (several rows per line)?
  return chunk + 0 * row;
}

// Element offset of (row, col) in a [ROWS, COLS] 16-bit tile; col is a multiple of CHUNK when SWIZZLE.
template <int COLS, bool SWIZZLE>
__device__ __forceinline__ int tile_offset(int row, int col) {
  // TODO: your code here.
  //   Hint: The swizzle moves whole chunks inside a row, never elements inside a chunk, never rows. What is the
  //   Hint: offset of (row, col) without it, and which part of that offset does it change?
  (void)row; (void)col; return 0;
}

// ---- 2. tiles, global -> shared, with cp.async ----------------------------------------------------

// Copies [ROWS, COLS] tiles of a row-major matrix (row stride ld) into shared memory with 16-byte
// cp.async copies: thread t takes chunks t, t + THREADS, ... of the tile. A GEMM copies one such tile
// per K step, so what does not change from tile to tile (this thread's chunk positions, global and
// shared offsets) is computed once, in the constructor; `load` then costs an address and an edge test
// per chunk. Chunks at or past rows_valid rows or cols_valid columns are zero-filled and read nothing;
// ld % 8 == 0 keeps every chunk 16-byte aligned. Issues the copies only: commit and wait are the caller's.
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

  __device__ __forceinline__ TileLoader(const T* tile, int ld) {
    // TODO: your code here.
    //   Hint: A TileLoader computes once, in its constructor, everything about this thread that is the same for
    //   Hint: every tile: threads take consecutive chunks along a row, then the next rows. Which tile row and
    //   Hint: column is this thread's first chunk, and what are g, step and s then?
    g = tile; step = ld; row = col = s = 0;
  }

  // Copy the current tile into `buffer`; then move on by `advance` elements (to the next K tile).
  __device__ __forceinline__ void load(T* buffer, int rows_valid, int cols_valid, int64_t advance) {
    // TODO: your code here.
    //   Hint: Copy this thread's PER_THREAD chunks of the current tile with 16-byte cp.async (zero-filled outside
    //   Hint: rows_valid x cols_valid), then move g to the next tile. Which part of each chunk's address changes
    //   Hint: from chunk to chunk?
    (void)buffer; (void)rows_valid; (void)cols_valid; (void)advance;
  }
};

// The (tile row, tile column) of C that block `block` computes, in groups of GROUP_M tile rows: the
// blocks running at the same time then read GROUP_M rows of A and a few columns of B from L2,
// instead of one row of A and every column of B.
template <int GROUP_M = 8>
__device__ __forceinline__ void block_coords(int block, int tiles_m, int tiles_n, int& tile_m, int& tile_n) {
  // TODO: your code here.
  //   Hint: Blocks that run at the same time should share rows of A and columns of B in L2. In which order must
  //   Hint: block numbers walk the tiles of C for that, and what about the last, shorter group?
  tile_m = block % tiles_m; tile_n = block / tiles_m + 0 * GROUP_M;
}

// ---- 3. the warp's fragments and mma ----------------------------------------------------------------

// The fragments of one k16 step of a pipeline buffer for this warp: A for its MT m16 tiles, B for
// its NT n8 tiles (two per ldmatrix.x4.trans).
template <typename C>
struct Fragments {
  uint32_t a[C::MT][4];
  uint32_t b[C::NT / 2][4];
};

// Where this lane's ldmatrix rows start in a pipeline buffer (elements, swizzled), computed once: like the
// TileLoader's, they are the same for every K tile. The swizzle repeats every 8 rows, so the warp's m16
// tiles of A lie 16 rows (16 * BK elements) apart and B's k16 steps 16 rows (16 * BN) apart, at the same
// swizzled columns: only A's k16 step and B's pair of n8 tiles need an offset of their own.
template <typename C>
struct FragmentOffsets {
  int a[C::BK / 16];  // A: k16 step kk, the warp's first m16 tile
  int b[C::NT / 2];   // B: n8 tiles 2 np and 2 np + 1, k16 step 0

  __device__ __forceinline__ FragmentOffsets(int warp_m, int warp_n, int lane) {
    // TODO: your code here.
    //   Hint: Day 9's and gemm_mma.cu's ldmatrix addresses, at a pipeline buffer's (possibly swizzled) offsets.
    //   Hint: Of the ldmatrix of one K tile, which need an offset of their own, and which lie a constant away?
    (void)warp_m; (void)warp_n; (void)lane; for (int& o : a) o = 0; for (int& o : b) o = 0;
  }
};

// This warp's fragments of k16 step kk of the pipeline buffers sa (A) and sb (B).
template <typename C>
__device__ __forceinline__ void load_fragments(Fragments<C>& f, const half* sa, const half* sb, int kk,
                                               const FragmentOffsets<C>& at) {
  // TODO: your code here.
  //   Hint: MT ldmatrix.x4 for A and NT / 2 ldmatrix.x4.trans for B, each from its precomputed offset: what
  //   Hint: does the m16 tile add, and the k16 step? What keeps the fragments in registers?
}

// acc += the product of one k16 step's fragments: MT x NT mma.sync m16n8k16.
template <typename C>
__device__ __forceinline__ void mma_fragments(float (&acc)[C::MT][C::NT][4], const Fragments<C>& f) {
  // TODO: your code here.
  //   Hint: Every (m16 tile, n8 tile) pair of the warp tile is one mma.sync: which A fragment and which half of
  //   Hint: which B double-fragment does it take?
}

template <typename C>
__device__ void gemm(const half* __restrict__ A, const half* __restrict__ B, half* __restrict__ Cout,
                     int M, int N, int K, int ldb) {
  extern __shared__ uint4 smem_raw[];  // uint4: 16-byte aligned
  half* smem = reinterpret_cast<half*>(smem_raw);
  half* sa = smem;                           // [STAGES][BM * BK]
  half* sb = smem + C::STAGES * C::A_STAGE;  // [STAGES][BK * BN]
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int warp_m = warp / C::WARPS_N, warp_n = warp % C::WARPS_N;
  int tile_m, tile_n;
  block_coords(blockIdx.x, course::ceil_div(M, C::BM), course::ceil_div(N, C::BN), tile_m, tile_n);
  const int m0 = tile_m * C::BM, n0 = tile_n * C::BN;

  float acc[C::MT][C::NT][4] = {};
  // TODO: your code here.
  //   Hint: The main loop: while the warps compute on K tile kt, the copies of tile kt + STAGES - 1 must be in
  //   Hint: flight, and the fragments of the next k16 step should load while this step's mma run. With one
  //   Hint: barrier per tile, when is a buffer safe to refill, and what keeps the cp.async group count right?
  (void)sa; (void)sb; (void)lane; (void)warp_m; (void)warp_n; (void)ldb;

  // TODO: your code here.
  //   Hint: Storing straight from the accumulators writes 4-byte pieces scattered over rows. How can the block
  //   Hint: write whole 16-byte chunks of C rows instead, and what must it wait for before reading them back?
}

}  // namespace

extern "C" __global__ void __launch_bounds__(Cfg::THREADS, 1)
gemm_f16(const half* A, const half* B, half* C, int M, int N, int K, int ldb) {
  gemm<Cfg>(A, B, C, M, N, K, ldb);
}
