// Your exercise file. Generated from solutions/day09/mma_tile.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: b9e86cae22a0bf2e
// Day 9, exercise 2: one warp, one tensor-core instruction: D = A * B + C on a 16x8x16 tile.
//
//   a: [count, 16, 16] (M x K, row-major)   b: [count, 16, 8] (K x N, row-major)
//   c, d: [count, 16, 8] float              T = half or __nv_bfloat16, accumulated in float
//
// One warp per tile: grid = (count,), block = (32,). Each lane loads its fragments straight from
// global memory (no shared memory, no ldmatrix: the point is to know which lane holds what), issues
// one mma.sync.m16n8k16, written by you as inline PTX in mma.cuh beside this file
// (course::mma::mma_m16n8k16<T>, which later days build on), and stores its part of D. The layouts
// are in course/mma.cuh. The test: D against float64 within the fp32 accumulation tolerance, fp16 and
// bf16; the technique: your own asm with mma.sync, HMMA in the SASS.
// Reference (PTX ISA, "Warp-level matrix multiply-accumulate instructions: mma"):
//   mma.sync.aligned.m16n8k16.row.col.dtype.f16.f16.ctype    d, a, b, c;   .dtype = .ctype = { .f16, .f32 }
//   mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32      d, a, b, c;
//       d, c: brace lists of 4 .f32 registers; a: 4 .b32 registers (2 halves each); b: 2 .b32 registers
// your mma_m16n8k16 first (course/mma.cuh then builds on it), then the fragment layouts (frag_c_row,
// frag_c_col, pack2_raw):
#include "mma.cuh"
#include <course/mma.cuh>

namespace {

template <typename T>
__device__ void mma_tile(const T* __restrict__ a, const T* __restrict__ b, const float* __restrict__ c,
                         float* __restrict__ d) {
  const int64_t tile = blockIdx.x;
  a += tile * 16 * 16;
  b += tile * 16 * 8;
  c += tile * 16 * 8;
  d += tile * 16 * 8;
  const int lane = threadIdx.x, g = lane / 4, t = lane % 4;
  uint32_t A[4], B[2];
  float C[4];
  // TODO: your code here.
  //   Hint: Which elements of A, B and C does this lane hold, and in which half of each 32-bit register does
  //   Hint: each 16-bit element go? (course/mma.cuh draws the m16n8k16 fragments.)
  A[0] = A[1] = A[2] = A[3] = B[0] = B[1] = 0u;
  C[0] = C[1] = C[2] = C[3] = 0.f;
  course::mma::mma_m16n8k16<T>(C, A, B);
  // TODO: your code here.
  //   Hint: Where does C value i of this lane sit in the 16 x 8 tile? The same C layout as the load.
}

}  // namespace

extern "C" __global__ void __launch_bounds__(32)
mma_tile_f16(const half* a, const half* b, const float* c, float* d) {
  mma_tile(a, b, c, d);
}
extern "C" __global__ void __launch_bounds__(32)
mma_tile_bf16(const __nv_bfloat16* a, const __nv_bfloat16* b, const float* c, float* d) {
  mma_tile(a, b, c, d);
}
