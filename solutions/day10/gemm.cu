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

// Element offset of (row, col) in a [ROWS, COLS] 16-bit tile; col is a multiple of CHUNK when SWIZZLE.
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
    // BEGIN EXERCISE
    // HINT: A TileLoader computes once, in its constructor, everything about this thread that is the same for
    // HINT: every tile: threads take consecutive chunks along a row, then the next rows. Which tile row and
    // HINT: column is this thread's first chunk, and what are g, step and s then?
    // HINT3: s = tile_offset<COLS, SWIZZLE>(row, col);
    // STUB: g = tile; step = ld; row = col = s = 0;
    row = threadIdx.x / CHUNKS_PER_ROW;
    col = threadIdx.x % CHUNKS_PER_ROW * CHUNK;
    g = tile + int64_t(row) * ld + col;
    step = int64_t(ROW_STEP) * ld;
    s = tile_offset<COLS, SWIZZLE>(row, col);
    // END EXERCISE
  }

  // Copy the current tile into `buffer`; then move on by `advance` elements (to the next K tile).
  __device__ __forceinline__ void load(T* buffer, int rows_valid, int cols_valid, int64_t advance) {
    // BEGIN EXERCISE
    // HINT: Copy this thread's PER_THREAD chunks of the current tile with 16-byte cp.async (zero-filled outside
    // HINT: rows_valid x cols_valid), then move g to the next tile. Which part of each chunk's address changes
    // HINT: from chunk to chunk?
    // HINT2: An unrolled loop over the chunks: its tile row, whether it is inside, its shared destination
    // HINT2: (swizzled), its global source; after the loop g advances.
    // HINT3: When ROW_STEP is a multiple of 8 the chunks are whole swizzle periods apart, so the destination is
    // HINT3: s plus i rows of ROW_STEP, a constant: no XOR inside the loop. Otherwise compute tile_offset per
    // HINT3: chunk. A zero-filled copy (src-size 0) reads nothing, so its source needs no select.
    // STUB: (void)buffer; (void)rows_valid; (void)cols_valid; (void)advance;
#pragma unroll
    for (int i = 0; i < PER_THREAD; ++i) {
      const int r = row + i * ROW_STEP;
      const bool inside = r < rows_valid && col < cols_valid;
      const int offset = ROW_STEP % 8 == 0 ? s + i * ROW_STEP * COLS : tile_offset<COLS, SWIZZLE>(r, col);
      course::cp_async::load_128b<course::cp_async::SharedMemFillMode::kFillZero>(
          buffer + offset, g + i * step, inside);
    }
    g += advance;
    // END EXERCISE
  }
};

// The (tile row, tile column) of C that block `block` computes, in groups of GROUP_M tile rows: the
// blocks running at the same time then read GROUP_M rows of A and a few columns of B from L2,
// instead of one row of A and every column of B.
template <int GROUP_M = 8>
__device__ __forceinline__ void block_coords(int block, int tiles_m, int tiles_n, int& tile_m, int& tile_n) {
  // BEGIN EXERCISE
  // HINT: Blocks that run at the same time should share rows of A and columns of B in L2. In which order must
  // HINT: block numbers walk the tiles of C for that, and what about the last, shorter group?
  // HINT2: Split the block number into (group, position in the group); a group holds GROUP_M tile rows times
  // HINT2: all tile columns, the last one possibly fewer rows; inside a group, down the rows first, then across.
  // HINT3: The last group's height is min(tiles_m - its first row, GROUP_M): divide the position by that height,
  // HINT3: not by GROUP_M, or its tiles fall outside the grid.
  // STUB: tile_m = block % tiles_m; tile_n = block / tiles_m + 0 * GROUP_M;
  const int per_group = GROUP_M * tiles_n;
  const int first_m = (block / per_group) * GROUP_M;
  const int rows = min(tiles_m - first_m, GROUP_M);
  tile_m = first_m + (block % per_group) % rows;
  tile_n = (block % per_group) / rows;
  // END EXERCISE
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
    // BEGIN EXERCISE
    // HINT: Day 9's and gemm_mma.cu's ldmatrix addresses, at a pipeline buffer's (possibly swizzled) offsets.
    // HINT: Of the ldmatrix of one K tile, which need an offset of their own, and which lie a constant away?
    // HINT2: Two unrolled loops through tile_offset: one offset per k16 step for A (at the warp's first m16
    // HINT2: tile), one per pair of n8 tiles for B (at the first k16 step), each at this lane's row and
    // HINT2: 8-column half.
    // HINT3: Rows and columns are day 9's: A at row warp_m * WM + lane % 16, column kk * 16 + 8 (lane / 16);
    // HINT3: B at row lane % 16, column warp_n * WN + np * 16 + 8 (lane / 16). The other m16 tiles and k16
    // HINT3: steps add a constant because the XOR, a function of row / (8 / period) % period, repeats every
    // HINT3: 8 rows.
    // STUB: (void)warp_m; (void)warp_n; (void)lane; for (int& o : a) o = 0; for (int& o : b) o = 0;
#pragma unroll
    for (int kk = 0; kk < C::BK / 16; ++kk) {
      a[kk] = tile_offset<C::BK, C::SWIZZLE>(warp_m * C::WM + lane % 16, kk * 16 + 8 * (lane / 16));
    }
#pragma unroll
    for (int np = 0; np < C::NT / 2; ++np) {
      b[np] = tile_offset<C::BN, C::SWIZZLE>(lane % 16, warp_n * C::WN + np * 16 + 8 * (lane / 16));
    }
    // END EXERCISE
  }
};

// This warp's fragments of k16 step kk of the pipeline buffers sa (A) and sb (B).
template <typename C>
__device__ __forceinline__ void load_fragments(Fragments<C>& f, const half* sa, const half* sb, int kk,
                                               const FragmentOffsets<C>& at) {
  // BEGIN EXERCISE
  // HINT: MT ldmatrix.x4 for A and NT / 2 ldmatrix.x4.trans for B, each from its precomputed offset: what
  // HINT: does the m16 tile add, and the k16 step? What keeps the fragments in registers?
  // HINT3: The additions are compile-time constants once the loops are unrolled (kk, mt, np are): the
  // HINT3: compiler folds them into the instruction's immediate offset, so the loop computes no addresses.
#pragma unroll
  for (int mt = 0; mt < C::MT; ++mt) {
    course::mma::ldmatrix_m8n8x4(f.a[mt], sa + at.a[kk] + mt * 16 * C::BK);
  }
#pragma unroll
  for (int np = 0; np < C::NT / 2; ++np) {
    course::mma::ldmatrix_m8n8x4_trans(f.b[np], sb + at.b[np] + kk * 16 * C::BN);
  }
  // END EXERCISE
}

// acc += the product of one k16 step's fragments: MT x NT mma.sync m16n8k16.
template <typename C>
__device__ __forceinline__ void mma_fragments(float (&acc)[C::MT][C::NT][4], const Fragments<C>& f) {
  // BEGIN EXERCISE
  // HINT: Every (m16 tile, n8 tile) pair of the warp tile is one mma.sync: which A fragment and which half of
  // HINT: which B double-fragment does it take?
  // HINT3: n8 tile j's B fragment is registers 2 (j % 2) and the next of double-fragment j / 2: pass their
  // HINT3: address.
#pragma unroll
  for (int i = 0; i < C::MT; ++i) {
#pragma unroll
    for (int j = 0; j < C::NT; ++j) {
      course::mma::mma_sync_m16n8k16_row_col_f32<half>(acc[i][j], f.a[i], &f.b[j / 2][2 * (j % 2)]);
    }
  }
  // END EXERCISE
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
  // BEGIN EXERCISE
  // HINT: The main loop: while the warps compute on K tile kt, the copies of tile kt + STAGES - 1 must be in
  // HINT: flight, and the fragments of the next k16 step should load while this step's mma run. With one
  // HINT: barrier per tile, when is a buffer safe to refill, and what keeps the cp.async group count right?
  // HINT2: Two TileLoaders (A from row m0, B from column n0), the FragmentOffsets, and a load_next(buffer) that
  // HINT2: copies the next K tile in order. STAGES == 1: load, commit, wait, barrier, compute, barrier, per
  // HINT2: tile. STAGES >= 2: a prologue (STAGES - 1 tiles, one group each; wait; barrier; the first
  // HINT2: fragments), then per tile and per k16 step: at the last step the wait and the one barrier; the
  // HINT2: next step's fragments; at the first step the refill of the buffer read one tile ago and a commit;
  // HINT2: this step's mma. After the loop: drain, barrier (the epilogue reuses the buffers).
  // HINT3: Keep the loop body one straight line: no `if (kt + STAGES - 1 < k_tiles)` around the refill (past
  // HINT3: K every copy is zero-filled and reads nothing, so copy anyway, into a buffer nobody reads again).
  // HINT3: A branch puts its address arithmetic between the barrier and the mma in every warp at once.
  // HINT3: Advance buffer indices with `read = read + 1 == C::STAGES ? 0 : read + 1;`, not a modulo.
  // STUB: (void)sa; (void)sb; (void)lane; (void)warp_m; (void)warp_n; (void)ldb;
  const int k_tiles = course::ceil_div(K, C::BK);
  constexpr int K_STEPS = C::BK / 16;  // k16 steps per buffer
  TileLoader<C::BM, C::BK, C::THREADS, C::SWIZZLE, half> a_tiles(A + int64_t(m0) * K, K);
  TileLoader<C::BK, C::BN, C::THREADS, C::SWIZZLE, half> b_tiles(B + n0, ldb);
  const FragmentOffsets<C> at(warp_m, warp_n, lane);
  int k_left = K;  // columns of A (rows of B) from the next tile to copy on
  // Issue the copies of the next K tile into buffer s (no commit); past K they only write zeros.
  auto load_next = [&](int s) {
    a_tiles.load(sa + s * C::A_STAGE, M - m0, k_left, C::BK);
    b_tiles.load(sb + s * C::B_STAGE, k_left, N - n0, int64_t(C::BK) * ldb);
    k_left -= C::BK;
  };
  Fragments<C> frag[2];
  if constexpr (C::STAGES == 1) {
    for (int kt = 0; kt < k_tiles; ++kt) {
      load_next(0);
      course::cp_async::commit_group();
      course::cp_async::wait_group<0>();
      __syncthreads();
#pragma unroll
      for (int kk = 0; kk < K_STEPS; ++kk) {
        load_fragments<C>(frag[0], sa, sb, kk, at);
        mma_fragments<C>(acc, frag[0]);
      }
      __syncthreads();
    }
  } else {
#pragma unroll
    for (int s = 0; s < C::STAGES - 1; ++s) {
      load_next(s);
      course::cp_async::commit_group();
    }
    course::cp_async::wait_group<C::STAGES - 2>();
    __syncthreads();
    load_fragments<C>(frag[0], sa, sb, 0, at);
    int read = 0, write = C::STAGES - 1;  // the buffers of tiles kt and kt + STAGES - 1
    for (int kt = 0; kt < k_tiles; ++kt) {
#pragma unroll
      for (int kk = 0; kk < K_STEPS; ++kk) {
        if (kk == K_STEPS - 1) {  // the next step is the next tile's first (after the last: zeros, unused)
          course::cp_async::wait_group<C::STAGES - 2>();
          __syncthreads();
          read = read + 1 == C::STAGES ? 0 : read + 1;
        }
        load_fragments<C>(frag[(kk + 1) % 2], sa + read * C::A_STAGE, sb + read * C::B_STAGE,
                          (kk + 1) % K_STEPS, at);
        if (kk == 0) {
          load_next(write);
          course::cp_async::commit_group();
          write = write + 1 == C::STAGES ? 0 : write + 1;
        }
        mma_fragments<C>(acc, frag[kk % 2]);
      }
    }
  }
  course::cp_async::wait_all();
  __syncthreads();  // every warp is done with the pipeline buffers: the epilogue reuses them
  // END EXERCISE

  // BEGIN EXERCISE
  // HINT: Storing straight from the accumulators writes 4-byte pieces scattered over rows. How can the block
  // HINT: write whole 16-byte chunks of C rows instead, and what must it wait for before reading them back?
  // HINT2: Three phases: each warp writes its accumulators, rounded to half2, into the block's C tile in shared
  // HINT2: memory (row stride C::C_ROW, over the pipeline buffers); a barrier; the block copies the tile out in
  // HINT2: 16-byte chunks of rows, strided over the threads, guarded at the edges.
  // HINT3: when N % 8 == 0 a chunk is inside C or wholly outside: one 16-byte store (uint4); otherwise
  // HINT3: store element by element, checking row < M and column < N.
  half* sc = smem;
  const int g = lane / 4, t = lane % 4;
#pragma unroll
  for (int mt = 0; mt < C::MT; ++mt) {
#pragma unroll
    for (int nt = 0; nt < C::NT; ++nt) {
      const int row = warp_m * C::WM + mt * 16 + g, col = warp_n * C::WN + nt * 8 + 2 * t;
      *reinterpret_cast<__half2*>(sc + row * C::C_ROW + col) = __floats2half2_rn(acc[mt][nt][0], acc[mt][nt][1]);
      *reinterpret_cast<__half2*>(sc + (row + 8) * C::C_ROW + col) =
          __floats2half2_rn(acc[mt][nt][2], acc[mt][nt][3]);
    }
  }
  __syncthreads();
  constexpr int CHUNKS_PER_ROW = C::BN / course::gemm::CHUNK;
  const bool vector = N % course::gemm::CHUNK == 0;
  for (int c = threadIdx.x; c < C::BM * CHUNKS_PER_ROW; c += C::THREADS) {
    const int row = c / CHUNKS_PER_ROW, col = (c % CHUNKS_PER_ROW) * course::gemm::CHUNK;
    const int gr = m0 + row, gc = n0 + col;
    if (gr >= M || gc >= N) continue;
    half* dst = Cout + int64_t(gr) * N + gc;
    const half* src = sc + row * C::C_ROW + col;
    if (vector) {
      *reinterpret_cast<uint4*>(dst) = *reinterpret_cast<const uint4*>(src);
    } else {
      for (int j = 0; j < course::gemm::CHUNK && gc + j < N; ++j) dst[j] = src[j];
    }
  }
  // END EXERCISE
}

}  // namespace

extern "C" __global__ void __launch_bounds__(Cfg::THREADS, 1)
gemm_f16(const half* A, const half* B, half* C, int M, int N, int K, int ldb) {
  gemm<Cfg>(A, B, C, M, N, K, ldb);
}
