// Day 10, exercise 3: a fast fp16 GEMM on the tensor cores: C = A * B, fp32 accumulate, fp16 out.
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
// The kernel, in three parts:
//   1. the pipeline: STAGES buffers of an A tile [BM, BK] and a B tile [BK, BN]; cp.async fills the
//      buffer of tile kt + STAGES - 1 while the warps compute on tile kt (course/gemm.cuh: TileLoader,
//      whose per-thread addresses are computed once, not per tile);
//   2. the warp's fragments: ldmatrix.x4 for A and ldmatrix.x4.trans for B at the (swizzled) offsets,
//      loaded one k16 step ahead of the MT x NT mma.sync m16n8k16 that use them. The main loop has one
//      barrier per tile and no branch around it, so the compiler can interleave each step's ldmatrix
//      with the previous step's mma (check with `python -m grader sass`: LDSM between the HMMA);
//   3. the epilogue: fp32 accumulators -> fp16, staged through shared memory so that each thread
//      then writes whole 16-byte chunks of C rows (guarded at the edges).
// The default, 128x256 with 8 warps of 64x64, needs about 240 registers per thread: one block per SM,
// which __launch_bounds__(THREADS, 1) allows (up to 255 registers, no spills).
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

using course::gemm::tile_offset;

// The fragments of one k16 step of a pipeline buffer for this warp: A for its MT m16 tiles, B for
// its NT n8 tiles (two per ldmatrix.x4.trans).
template <typename C>
struct Fragments {
  uint32_t a[C::MT][4];
  uint32_t b[C::NT / 2][4];
};

template <typename C>
__device__ __forceinline__ void load_fragments(Fragments<C>& f, const half* sa, const half* sb, int kk,
                                               int warp_m, int warp_n, int lane) {
  // BEGIN EXERCISE
  // HINT: as day 9's block tile, with the tile's own offsets, for k16 step kk of the buffer:
  // HINT:   A: for mt < MT, ldmatrix_m8n8x4(f.a[mt], ...) at row warp_m * WM + mt * 16 + lane % 16,
  // HINT:      column kk * 16 + 8 * (lane / 16): sa + tile_offset<C::BK, C::SWIZZLE>(row, col);
  // HINT:   B: for np < NT / 2, ldmatrix_m8n8x4_trans(f.b[np], ...) at row kk * 16 + lane % 16, column
  // HINT:      warp_n * WN + np * 16 + 8 * (lane / 16): sb + tile_offset<C::BN, C::SWIZZLE>(row, col).
  // HINT: Unroll every loop (#pragma unroll): fragments must stay in registers.
#pragma unroll
  for (int mt = 0; mt < C::MT; ++mt) {
    const int row = warp_m * C::WM + mt * 16 + lane % 16, col = kk * 16 + 8 * (lane / 16);
    course::mma::ldmatrix_m8n8x4(f.a[mt], sa + tile_offset<C::BK, C::SWIZZLE>(row, col));
  }
#pragma unroll
  for (int np = 0; np < C::NT / 2; ++np) {
    const int row = kk * 16 + lane % 16, col = warp_n * C::WN + np * 16 + 8 * (lane / 16);
    course::mma::ldmatrix_m8n8x4_trans(f.b[np], sb + tile_offset<C::BN, C::SWIZZLE>(row, col));
  }
  // END EXERCISE
}

// acc += the product of one k16 step's fragments: MT x NT mma.sync m16n8k16.
template <typename C>
__device__ __forceinline__ void mma_fragments(float (&acc)[C::MT][C::NT][4], const Fragments<C>& f) {
#pragma unroll  // over the warp's m16 tiles
  for (int i = 0; i < C::MT; ++i) {
#pragma unroll  // over its n8 tiles: B fragments come two per ldmatrix.x4.trans
    for (int j = 0; j < C::NT; ++j) {
      course::mma::mma_sync_m16n8k16_row_col_f32<half>(acc[i][j], f.a[i], &f.b[j / 2][2 * (j % 2)]);
    }
  }
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
  course::gemm::block_coords(blockIdx.x, course::ceil_div(M, C::BM), course::ceil_div(N, C::BN),
                             tile_m, tile_n);
  const int m0 = tile_m * C::BM, n0 = tile_n * C::BN;
  const int k_tiles = course::ceil_div(K, C::BK);

  // This block's A rows and B columns, copied one K tile at a time (course/gemm.cuh: TileLoader).
  course::gemm::TileLoader<C::BM, C::BK, C::THREADS, C::SWIZZLE, half> a_tiles(A + int64_t(m0) * K, K);
  course::gemm::TileLoader<C::BK, C::BN, C::THREADS, C::SWIZZLE, half> b_tiles(B + n0, ldb);
  // Issue the copies of K tile kt (the next one in order) into buffer s (no commit).
  auto load_stage = [&](int kt, int s) {
    const int k0 = kt * C::BK;
    a_tiles.load(sa + s * C::A_STAGE, M - m0, K - k0, C::BK);
    b_tiles.load(sb + s * C::B_STAGE, K - k0, N - n0, int64_t(C::BK) * ldb);
  };

  float acc[C::MT][C::NT][4] = {};
  constexpr int K_STEPS = C::BK / 16;  // k16 steps per buffer
  // BEGIN EXERCISE
  // HINT: STAGES == 1 (no overlap): for each kt: load_stage(kt, 0), commit_group(), wait_group<0>(),
  // HINT: __syncthreads(), then for each kk: load_fragments and mma_fragments on buffer 0; __syncthreads()
  // HINT: before the next load overwrites it.
  // HINT: STAGES >= 2, the multistage pipeline: prologue: load tiles 0 .. STAGES - 2 into buffers 0 ..
  // HINT: STAGES - 2, committing ONE group per tile (also past k_tiles: an empty group keeps the count
  // HINT: right); wait_group<STAGES - 2> (tile 0 landed), __syncthreads(), load_fragments of (buffer 0,
  // HINT: kk 0) into frag[0]. Then for each kt, reading buffer kt % STAGES, for each kk (unrolled):
  // HINT:   1. at the last kk, wait_group<STAGES - 2>() and __syncthreads(): tile kt + 1 landed, and
  // HINT:      every warp has read its fragments of tile kt (all but this step's, already in registers);
  // HINT:   2. load the fragments of the NEXT k16 step into frag[(kk + 1) % 2] (at the last kk: kk 0 of
  // HINT:      buffer (kt + 1) % STAGES; after the last tile, of this tile's buffer again: never used);
  // HINT:   3. at kk == 0, after those ldmatrix: load_stage(kt + STAGES - 1, its buffer (kt - 1) % STAGES,
  // HINT:      which every warp finished reading before the last barrier) if it exists; commit_group();
  // HINT:   4. mma_fragments(acc, frag[kk % 2]): the next step's ldmatrix latency hides behind these mma.
  // HINT: Keep the loop body free of branches around the barrier (no `if (kt + 1 < k_tiles)`): the
  // HINT: compiler then interleaves ldmatrix and mma. course::cp_async has commit_group and wait_group<n>.
  Fragments<C> frag[2];
  if constexpr (C::STAGES == 1) {
    for (int kt = 0; kt < k_tiles; ++kt) {
      load_stage(kt, 0);
      course::cp_async::commit_group();
      course::cp_async::wait_group<0>();
      __syncthreads();
#pragma unroll
      for (int kk = 0; kk < K_STEPS; ++kk) {
        load_fragments<C>(frag[0], sa, sb, kk, warp_m, warp_n, lane);
        mma_fragments<C>(acc, frag[0]);
      }
      __syncthreads();
    }
  } else {
#pragma unroll
    for (int s = 0; s < C::STAGES - 1; ++s) {
      if (s < k_tiles) load_stage(s, s);
      course::cp_async::commit_group();
    }
    course::cp_async::wait_group<C::STAGES - 2>();
    __syncthreads();
    load_fragments<C>(frag[0], sa, sb, 0, warp_m, warp_n, lane);
    int read = 0, write = C::STAGES - 1;  // the buffers of tiles kt and kt + STAGES - 1
    for (int kt = 0; kt < k_tiles; ++kt) {
#pragma unroll
      for (int kk = 0; kk < K_STEPS; ++kk) {
        if (kk == K_STEPS - 1) {  // the next step is the next tile's first
          course::cp_async::wait_group<C::STAGES - 2>();
          __syncthreads();
          // (After the last tile, re-read this one rather than a buffer nobody wrote: never used.)
          if (kt + 1 < k_tiles) read = read + 1 == C::STAGES ? 0 : read + 1;
        }
        load_fragments<C>(frag[(kk + 1) % 2], sa + read * C::A_STAGE, sb + read * C::B_STAGE,
                          (kk + 1) % K_STEPS, warp_m, warp_n, lane);
        if (kk == 0) {
          if (kt + C::STAGES - 1 < k_tiles) load_stage(kt + C::STAGES - 1, write);
          course::cp_async::commit_group();
          write = write + 1 == C::STAGES ? 0 : write + 1;
        }
        mma_fragments<C>(acc, frag[kk % 2]);
      }
    }
  }
  // END EXERCISE
  course::cp_async::wait_all();
  __syncthreads();  // every warp is done with the pipeline buffers: the epilogue reuses them

  // BEGIN EXERCISE
  // HINT: 1. each warp writes its accumulators, rounded to half, into the C tile in shared memory
  // HINT:    (row stride C::C_ROW): acc[mt][nt][0..1] as one __half2 at row warp_m * WM + mt * 16 + g,
  // HINT:    column warp_n * WN + nt * 8 + 2t (g = lane / 4, t = lane % 4); acc[mt][nt][2..3] 8 rows lower.
  // HINT: 2. __syncthreads()
  // HINT: 3. the block copies the tile out: chunk c (of BM * BN / 8) is row c / (BN / 8), columns
  // HINT:    8 * (c % (BN / 8)) .. + 7. When N % 8 == 0 a chunk is inside C or wholly outside: one 16-byte
  // HINT:    store (uint4). Otherwise store element by element, checking row < M and column < N.
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
