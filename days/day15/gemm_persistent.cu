// Your exercise file. Generated from solutions/day15/gemm_persistent.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: 851e555a7ad07f07
// Day 15, exercises 4 and 5: the persistent GEMM, c = scale * a @ b^T, whose epilogue overlaps the next
// tile's mainloop; in fp16 / bf16 (exercise 4) and in FP8 e4m3 with per-tensor scales (exercise 5).
//
//   a: [m, k], b: [n, k] (a linear layer's weight), c: [m, n], all row-major, accumulated in float;
//   T = half or __nv_bfloat16 in and out (scale 1), or e4m3 in (uint8_t bits) and __nv_bfloat16 out, scale
//   = scale_a * scale_b; k and n such that rows are multiples of 16 bytes (TMA)
//
// Exercise 3's kernel, one block per 128 x 128 tile, leaves the tensor cores idle while it fills its ring
// and while its 256 consumer threads store their accumulators with ordinary stores; all blocks of a wave
// store at the same moment. This kernel launches at most one block per SM (grid: the SMs, rounded down to a
// multiple of GROUP) and each block walks the tiles blockIdx.x, blockIdx.x + gridDim.x, ... Its tiles are
// 128 x 256 (each consumer a 64 x 256 block: m64n256 wgmma, 128 accumulators per thread), which load a
// quarter fewer bytes per FLOP than 128 x 128; 4 stages of 48 KB fit beside an epilogue that stores c in two
// passes of 128 columns (16-bit), 3 beside one pass of 256 (FP8). The PRODUCER (warpgroup 0) runs on into the
// next tile's slices while the consumers finish a tile: the ring's stage and phase carry on from tile to
// tile. What you write, and what each part must guarantee:
//   - exercise 3's producer step and consumer step (up to the commit), brought over from gemm_wgmma.cu, on
//     the ring's stage and phase carried across tiles (the loops around them are given);
//   - tile_of: the GROUPED tile order (contract above it), so that the blocks busy at one moment share rows
//     of a and columns of b, read once from DRAM and then from L2;
//   - mma_step: one 32-byte k step for 16-bit and for e4m3 operands, on the 64 x 256 block;
//   - the consumers' pipelining: at most one wgmma group in flight while the next slice is issued, and a
//     stage released only once no wgmma group can still read it;
//   - one pass of the epilogue (store_pass): c leaves through shared memory (`cs`, the pass's 64 x 64 boxes
//     in the 128-byte swizzle, c_offset) and TMA stores (cp.async.bulk.tensor ... global.shared::cta, wrapped
//     in course/hopper/tma.cuh), stopping at the matrix's edge by itself; scale applied to the fp32 values.
// The tests: c against a float64 reference (FP8: against the dequantised inputs), awkward sizes included,
// and the tile order alone (gemm_persistent_tile_order); the technique: HGMMA (FP8: QGMMA.64x256x32 E4M3),
// UTMALDG, UTMASTG, SYNCS, USETMAXREG, WARPGROUP.DEPBAR.LE gsb0, 0x1 (one group left in flight) in the SASS,
// no LDG, HMMA or STG, no spills.
// FP8 (exercise 5): a stage still holds 128-byte rows, now of 128 e4m3 values: BK = 128, and each wgmma
// (m64n256k32 e4m3) takes 32 of them, the same 32 bytes per step as 16-bit k16.
#include <course/hopper/tma.cuh>
#include <course/hopper/wgmma.cuh>
COURSE_REQUIRE_ARCH_SPECIFIC(90);

namespace {

using namespace course::hopper;

constexpr int BM = 128, BN = 256;          // the tile of c
constexpr int ROW_BYTES = 128;             // k per stage: 128 bytes of each row (64 16-bit or 128 FP8 values)
constexpr int CONSUMERS = 2;                // warpgroups that compute, 64 rows of the tile each
constexpr int GROUP = 16;                   // tile-rows visited together (grouped order)
constexpr uint32_t STAGE_BYTES = (BM + BN) * ROW_BYTES;

template <typename T> constexpr bool IS_FP8 = false;  // e4m3 values are passed as their bits, uint8_t
template <> constexpr bool IS_FP8<uint8_t> = true;
template <typename T> struct OutOf { using type = T; };  // c's element type: T, or bf16 for FP8 inputs
template <> struct OutOf<uint8_t> { using type = __nv_bfloat16; };
template <typename T> using Out = typename OutOf<T>::type;
// The ring and the epilogue's buffer share 227 KB of shared memory. 16-bit: 4 stages of 48 KB and a 32 KB
// buffer per consumer, c leaving in two passes of 128 columns; FP8 (half the time per stage, so the epilogue
// is a larger share of a tile): 3 stages and one pass of all 256 columns from a 64 KB buffer.
template <typename T> constexpr int RING = IS_FP8<T> ? 3 : 4;       // stages of 48 KB
template <typename T> constexpr int PASS = IS_FP8<T> ? BN : BN / 2;  // columns of c per epilogue pass

template <typename T>
struct Shared {
  uint8_t a[RING<T>][BM * ROW_BYTES];  // each 16 KB, 1024-byte aligned: the swizzle atom
  uint8_t b[RING<T>][BN * ROW_BYTES];
  Out<T> c[CONSUMERS][64 * PASS<T>];   // each consumer's pass of c: 64 x 64 boxes (8 KB each), 128-byte swizzle
  uint64_t full[RING<T>], empty[RING<T>];
};

// The tile (row tm, column tn of the grid of tiles) that the block works on t-th: tiles numbered in
// grouped order, GROUP tile-rows at a time (fewer in the last group), down each column of the group.
__device__ __forceinline__ void tile_of(int t, int tiles_m, int tiles_n, int& tm, int& tn) {
  // TODO: your code here.
  //   Hint: Grouped order: consecutive t stay inside a band of GROUP tile-rows and walk down a column of that
  //   Hint: band before moving right. Which band holds t, where inside it is t, and how tall is the last band?
  tm = t / tiles_n; tn = t % tiles_n;  // row-major order: correct, but not grouped
}

// The byte offset of element (row, col) of a consumer's pass of c in shared memory: box col / 64,
// row of 128 bytes, its 16-byte chunk XOR-ed with row % 8 (the 128-byte swizzle the tensor map of c names).
__device__ __forceinline__ uint32_t c_offset(int row, int col) {
  return (col / 64) * 64 * 128 + row * 128 + ((((col % 64) / 8) ^ (row % 8)) * 16) + (col % 8) * 2;
}

// One k step of the product: 32 bytes along both tiles' rows (descriptors `da`, `db`), the consumer's 64 x BN block.
template <typename T>
__device__ __forceinline__ void mma_step(float (&acc)[BN / 2], uint64_t da, uint64_t db) {
  // TODO: your code here.
  //   Hint: 32 bytes of a row are 16 values of 16 bits but 32 values of e4m3: one wgmma shape per element type.
  //   Hint: How does the template pick one at compile time? (The FP8 check wants QGMMA ... E4M3.E4M3 in the SASS.)
  wgmma_m64k16<BN, T>(acc, da, db);  // 16-bit only: e4m3 bytes would be read as bf16
}

// Pass H of the epilogue: columns [H * PASS<T>, (H + 1) * PASS<T>) of this consumer's 64 x 256 block of c,
// whose first row is m0 and first column n0, leave through shared memory (`cs`) and TMA stores, scaled by
// `scale`. Accumulator j of this thread is row 16 * warp + lane / 4 + 8 * ((j % 4) / 2), column
// 8 * (j / 4) + 2 * (lane % 4) + j % 2 of the block; `warpgroup` (1 or 2) names its barrier.
template <int H, typename T>
__device__ __forceinline__ void store_pass(const float (&acc)[BN / 2], Out<T>* cs, const TensorMap* tma_c, int m0,
                                           int n0, int warpgroup, float scale) {
  const int tid = threadIdx.x % 128, warp = tid / 32, lane = tid % 32;
  // TODO: your code here.
  //   Hint: The consumer's staging area `cs` in shared memory is reused pass after pass while the TMA unit may still be reading the
  //   Hint: previous pass's copy of it. What must be checked before anyone overwrites it, and what makes ordinary
  //   Hint: shared-memory stores visible to the TMA unit? c must reach global memory through TMA stores only
  //   Hint: (no STG in the SASS), scaled by `scale`.
  (void)acc; (void)cs; (void)tma_c; (void)m0; (void)n0; (void)warpgroup; (void)scale; (void)warp; (void)lane;
}

template <typename T>
__device__ void gemm(const TensorMap* tma_a, const TensorMap* tma_b, const TensorMap* tma_c, int m, int n, int k,
                     float scale) {
  constexpr int BK = ROW_BYTES / sizeof(T), STAGES = RING<T>;  // k per stage, in elements; the ring
  extern __shared__ __align__(1024) unsigned char raw[];
  Shared<T>& s = *reinterpret_cast<Shared<T>*>(raw + ((1024 - smem_address(raw) % 1024) % 1024));
  const int warpgroup = threadIdx.x / 128, tid = threadIdx.x % 128;
  const int tiles_m = (m + BM - 1) / BM, tiles_n = (n + BN - 1) / BN, tiles = tiles_m * tiles_n;
  const int slices = (k + BK - 1) / BK;
  if (threadIdx.x == 0) {
    for (int i = 0; i < STAGES; i++) {
      mbarrier_init(&s.full[i], 1);
      mbarrier_init(&s.empty[i], CONSUMERS);
    }
    fence_mbarrier_init();
  }
  __syncthreads();

  if (warpgroup == 0) {  // the producer: one thread, every tile of this block, the ring carried across tiles
    setmaxnreg_dec<40>();
    if (tid == 0) {
      int stage = 0, phase = 0, loaded = 0;
      for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
        int tm, tn;
        tile_of(t, tiles_m, tiles_n, tm, tn);
        for (int i = 0; i < slices; i++, loaded++) {
          // TODO: your code here.
          //   Hint: Exercise 3's producer step, with the ring carried on across tiles: the stage and its phase go on from the
          //   Hint: previous tile, and `loaded` counts the slices this block has loaded so far. When must a stage wait, and
          //   Hint: for which completion of its EMPTY barrier?
          (void)tm; (void)tn;
          if (++stage == STAGES) stage = 0, phase ^= 1;
        }
      }
    }
    return;
  }

  setmaxnreg_inc<232>();  // the consumers
  const int rows = (warpgroup - 1) * 64;
  Out<T>* cs = s.c[warpgroup - 1];
  int stage = 0, phase = 0;
  for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
    int tm, tn;
    tile_of(t, tiles_m, tiles_n, tm, tn);
    float acc[BN / 2];
#pragma unroll
    for (int j = 0; j < BN / 2; j++) acc[j] = 0.f;
    int previous = -1;  // the stage whose wgmma group may still be in flight
    for (int i = 0; i < slices; i++) {
      // TODO: your code here.
      //   Hint: Exercise 3's consumer step up to the commit, on the stage and phase carried across tiles: which barrier
      //   Hint: and parity say the stage's bytes have landed?
      (void)rows;
      // TODO: your code here.
      //   Hint: wgmma_wait<N> returns once at most N committed groups are still pending. If this slice's group stays
      //   Hint: in flight, which stage is certainly no longer read by the tensor cores, and who should release it?
      course::hopper::wgmma_wait<0>();  // correct, but the tensor cores wait for every slice before the next
      if (threadIdx.x % 128 == 0) mbarrier_arrive(&s.empty[stage]);
      if (++stage == STAGES) stage = 0, phase ^= 1;
    }
    course::hopper::wgmma_wait<0>();  // drain: the last slice's group
    if (previous >= 0 && tid == 0) mbarrier_arrive(&s.empty[previous]);  // the last slice's stage

    store_pass<0, T>(acc, cs, tma_c, tm * BM + rows, tn * BN, warpgroup, scale);  // the epilogue
    if constexpr (PASS<T> < BN) store_pass<1, T>(acc, cs, tma_c, tm * BM + rows, tn * BN, warpgroup, scale);
  }
  if (tid == 0) bulk_wait_group_read<0>();  // shared memory stays alive until the last store has read it
}

}  // namespace

// The tile order alone, for the self-check: out[2 t], out[2 t + 1] = tile_of(t) for t < tiles_m * tiles_n.
extern "C" __global__ void gemm_persistent_tile_order(int* out, int tiles_m, int tiles_n) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < tiles_m * tiles_n) tile_of(t, tiles_m, tiles_n, out[2 * t], out[2 * t + 1]);
}

extern "C" __global__ void __launch_bounds__(384, 1)
    gemm_persistent_f16(const __grid_constant__ TensorMap tma_a, const __grid_constant__ TensorMap tma_b,
                        const __grid_constant__ TensorMap tma_c, int m, int n, int k) {
  gemm<half>(&tma_a, &tma_b, &tma_c, m, n, k, 1.f);
}
extern "C" __global__ void __launch_bounds__(384, 1)
    gemm_persistent_bf16(const __grid_constant__ TensorMap tma_a, const __grid_constant__ TensorMap tma_b,
                         const __grid_constant__ TensorMap tma_c, int m, int n, int k) {
  gemm<__nv_bfloat16>(&tma_a, &tma_b, &tma_c, m, n, k, 1.f);
}
// c (bf16) = scale * a @ b^T of e4m3 a and b (their bits as uint8), scale = scale_a * scale_b.
extern "C" __global__ void __launch_bounds__(384, 1)
    gemm_persistent_e4m3(const __grid_constant__ TensorMap tma_a, const __grid_constant__ TensorMap tma_b,
                         const __grid_constant__ TensorMap tma_c, int m, int n, int k, float scale) {
  gemm<uint8_t>(&tma_a, &tma_b, &tma_c, m, n, k, scale);
}
