// Your exercise file. Generated from solutions/day09/block_tile.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: 786725b9f5d6ce5d
// Day 9, exercise 3: a block tile built from warp tiles: C = A * B with ldmatrix and mma.sync.
//
//   a: [M, K] row-major   b: [K, N] row-major   c: [M, N] float (written, never read)
//   T = half or __nv_bfloat16, accumulated in float. Any M, N, K >= 1.
//
// One block of 4 warps computes a 64x64 tile of C: grid = (ceil(N / 64), ceil(M / 64)), block = (128,).
// The warps form a 2x2 grid, each owning a 32x32 warp tile = 2 (m16) x 4 (n8) mma tiles, so each
// lane keeps 2 * 4 * 4 = 32 float accumulators. The K loop walks 32 columns of A and rows of B at a
// time through shared memory (loaded element by element with zeros past the edges: simple, not fast;
// day 10 makes it fast), and each warp reads its fragments with ldmatrix (course/mma.cuh's wrappers
// of the instructions you wrote in exercises 1 and 2):
//   A, one m16 x k16 piece:       ldmatrix_m8n8x4 (4 registers: the whole A fragment)
//   B, one k16 x n16 piece:       ldmatrix_m8n8x4_trans (the B fragments of two n8 tiles)
// The test: C against float64 within the fp32 accumulation tolerance for K, any M, N, K (1 x 1 x 1 up);
// the technique: HMMA, LDSM.16.M88 and LDSM.16.MT88 in the SASS, no spills.
#include <course/mma.cuh>
#include <course/vec_dtypes.cuh>

namespace {

constexpr int BM = 64, BN = 64, BK = 32;         // block tile and K step
constexpr int WM = 32, WN = 32;                  // warp tile
constexpr int MT = WM / 16, NT = WN / 8;         // mma tiles per warp: 2 x 4
constexpr int THREADS = 128;
constexpr int A_ROW = BK + 8, B_ROW = BN + 8;    // padded shared rows (80 and 144 bytes: 16-byte aligned)

template <typename T>
__device__ void block_tile(const T* __restrict__ a, const T* __restrict__ b, float* __restrict__ c,
                           int M, int N, int K) {
  __shared__ alignas(16) T sa[BM * A_ROW];
  __shared__ alignas(16) T sb[BK * B_ROW];
  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  const int wm = warp / 2, wn = warp % 2;  // this warp's tile within the block
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  float acc[MT][NT][4] = {};
  const T zero = course::from_float<T>(0.f);

  // TODO: your code here.
  //   Hint: The block computes a 64 x 64 tile of C in steps of 32 along K. What must be in shared memory before
  //   Hint: any warp reads fragments, what fills the parts outside the matrix, and when may the next step
  //   Hint: overwrite it?
  (void)tid; (void)zero; (void)wm; (void)wn; (void)m0; (void)n0;
  // TODO: your code here.
  //   Hint: Where in C does accumulator i of mma tile (mt, nt) of this warp belong, and which of them lie outside
  //   Hint: [M, N]?
}

}  // namespace

extern "C" __global__ void __launch_bounds__(THREADS)
block_tile_f16(const half* a, const half* b, float* c, int M, int N, int K) {
  block_tile(a, b, c, M, N, K);
}
extern "C" __global__ void __launch_bounds__(THREADS)
block_tile_bf16(const __nv_bfloat16* a, const __nv_bfloat16* b, float* c, int M, int N, int K) {
  block_tile(a, b, c, M, N, K);
}
