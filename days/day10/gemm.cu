// Your exercise file. Generated from solutions/day10/gemm.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: e2b6e40d580c6dc5
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
  // TODO: your code here.
  //   Hint: as day 9's block tile, with the tile's own offsets, for k16 step kk of the buffer:
  //   Hint:   A: for mt < MT, ldmatrix_m8n8x4(f.a[mt], ...) at row warp_m * WM + mt * 16 + lane % 16,
  //   Hint:      column kk * 16 + 8 * (lane / 16): sa + tile_offset<C::BK, C::SWIZZLE>(row, col);
  //   Hint:   B: for np < NT / 2, ldmatrix_m8n8x4_trans(f.b[np], ...) at row kk * 16 + lane % 16, column
  //   Hint:      warp_n * WN + np * 16 + 8 * (lane / 16): sb + tile_offset<C::BN, C::SWIZZLE>(row, col).
  //   Hint: Unroll every loop (#pragma unroll): fragments must stay in registers.
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
  // TODO: your code here.
  //   Hint: STAGES == 1 (no overlap): for each kt: load_stage(kt, 0), commit_group(), wait_group<0>(),
  //   Hint: __syncthreads(), then for each kk: load_fragments and mma_fragments on buffer 0; __syncthreads()
  //   Hint: before the next load overwrites it.
  //   Hint: STAGES >= 2, the multistage pipeline: prologue: load tiles 0 .. STAGES - 2 into buffers 0 ..
  //   Hint: STAGES - 2, committing ONE group per tile (also past k_tiles: an empty group keeps the count
  //   Hint: right); wait_group<STAGES - 2> (tile 0 landed), __syncthreads(), load_fragments of (buffer 0,
  //   Hint: kk 0) into frag[0]. Then for each kt, reading buffer kt % STAGES, for each kk (unrolled):
  //   Hint:   1. at the last kk, wait_group<STAGES - 2>() and __syncthreads(): tile kt + 1 landed, and
  //   Hint:      every warp has read its fragments of tile kt (all but this step's, already in registers);
  //   Hint:   2. load the fragments of the NEXT k16 step into frag[(kk + 1) % 2] (at the last kk: kk 0 of
  //   Hint:      buffer (kt + 1) % STAGES; after the last tile, of this tile's buffer again: never used);
  //   Hint:   3. at kk == 0, after those ldmatrix: load_stage(kt + STAGES - 1, its buffer (kt - 1) % STAGES,
  //   Hint:      which every warp finished reading before the last barrier) if it exists; commit_group();
  //   Hint:   4. mma_fragments(acc, frag[kk % 2]): the next step's ldmatrix latency hides behind these mma.
  //   Hint: Keep the loop body free of branches around the barrier (no `if (kt + 1 < k_tiles)`): the
  //   Hint: compiler then interleaves ldmatrix and mma. course::cp_async has commit_group and wait_group<n>.
  course::cp_async::wait_all();
  __syncthreads();  // every warp is done with the pipeline buffers: the epilogue reuses them

  // TODO: your code here.
  //   Hint: 1. each warp writes its accumulators, rounded to half, into the C tile in shared memory
  //   Hint:    (row stride C::C_ROW): acc[mt][nt][0..1] as one __half2 at row warp_m * WM + mt * 16 + g,
  //   Hint:    column warp_n * WN + nt * 8 + 2t (g = lane / 4, t = lane % 4); acc[mt][nt][2..3] 8 rows lower.
  //   Hint: 2. __syncthreads()
  //   Hint: 3. the block copies the tile out: chunk c (of BM * BN / 8) is row c / (BN / 8), columns
  //   Hint:    8 * (c % (BN / 8)) .. + 7. When N % 8 == 0 a chunk is inside C or wholly outside: one 16-byte
  //   Hint:    store (uint4). Otherwise store element by element, checking row < M and column < N.
}

}  // namespace

extern "C" __global__ void __launch_bounds__(Cfg::THREADS, 1)
gemm_f16(const half* A, const half* B, half* C, int M, int N, int K, int ldb) {
  gemm<Cfg>(A, B, C, M, N, K, ldb);
}
