// Your exercise file. Generated from solutions/day10/gemm_mma.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: edf688b6f7869e89
// Day 10, exercise 4: one step from day 9's block tile to a fast GEMM: cp.async into swizzled shared
// memory, ldmatrix, mma.sync, and an fp16 epilogue. C = A * B, fp32 accumulate, fp16 out.
//
//   A: [M, K] row-major   B: [K, N] row-major, row stride ldb (>= N, a multiple of 8)   C: [M, N]
//   K must be a multiple of 8 (16-byte rows for cp.async); M and N are arbitrary.
//
// One block of 4 warps computes a 64x64 tile of C: grid = (ceil(N / 64), ceil(M / 64)), block = (128,).
// The warps form a 2x2 grid of 32x32 warp tiles (2 m16 x 4 n8 mma tiles each), as on day 9. Each K
// step of BK = 32: the block copies the A tile [64, 32] and the B tile [32, 64] with 16-byte cp.async
// copies (2 of each per thread; zeros past the edges, nothing read there) into swizzled shared
// memory, waits for them, and each warp reads its fragments with ldmatrix at the swizzled offsets.
// One stage, no overlap yet: gemm.cu pipelines the same steps.
#include <course/cp_async.cuh>
#include <course/mma.cuh>

namespace {

constexpr int BM = 64, BN = 64, BK = 32;         // block tile and K step
constexpr int WM = 32, WN = 32;                  // warp tile
constexpr int MT = WM / 16, NT = WN / 8;         // mma tiles per warp: 2 x 4
constexpr int THREADS = 128, CHUNK = 8;          // CHUNK: halves in 16 bytes

// Your swizzle of exercise 3: where element (row, col) of a [ROWS, COLS] tile is stored.
template <int CHUNKS>
__device__ __forceinline__ constexpr int swizzle_chunk(int row, int chunk) {
  // TODO: your code here.
  //   Hint: as in swizzle.cu.
  return chunk + 0 * row;
}

template <int COLS>
__device__ __forceinline__ int tile_offset(int row, int col) {
  // TODO: your code here.
  //   Hint: as in swizzle.cu (always swizzled here).
  (void)row; (void)col; return 0;
}

}  // namespace

extern "C" __global__ void __launch_bounds__(THREADS)
gemm_mma_f16(const half* __restrict__ A, const half* __restrict__ B, half* __restrict__ C, int M, int N,
             int K, int ldb) {
  __shared__ alignas(128) half sa[BM * BK];
  __shared__ alignas(128) half sb[BK * BN];
  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  const int wm = warp / 2, wn = warp % 2;  // this warp's tile within the block
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  float acc[MT][NT][4] = {};

  // TODO: your code here.
  //   Hint: Day 9's block tile with its loads replaced by 16-byte cp.async copies into swizzled shared memory.
  //   Hint: How many chunks does each thread copy per K step for A and for B, where does each go, and what must
  //   Hint: the copies have completed before a warp reads fragments?
  (void)tid; (void)lane; (void)wm; (void)wn; (void)m0; (void)n0; (void)sa; (void)sb; (void)ldb;

  // TODO: your code here.
  //   Hint: Each accumulator pair is two adjacent columns of one row: how do you store it with one instruction, and
  //   Hint: when is that 4-byte store not allowed?
}
