// Your exercise file. Generated from solutions/day09/mma_tile.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: d7f15e22bacfb619
// Day 9, exercise 2: one warp, one tensor-core instruction: D = A * B + C on a 16x8x16 tile.
//
//   a: [count, 16, 16] (M x K, row-major)   b: [count, 16, 8] (K x N, row-major)
//   c, d: [count, 16, 8] float              T = half or __nv_bfloat16, accumulated in float
//
// One warp per tile: grid = (count,), block = (32,). Each lane loads its fragments straight from
// global memory (no shared memory, no ldmatrix: the point is to know which lane holds what), issues
// one mma.sync.m16n8k16 and stores its part of D. The layouts are in course/mma.cuh.
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
  //   Hint: A fragment: A[0] = (row g, cols 2t and 2t+1), A[1] = (row g+8, same cols),
  //   Hint: A[2] = (row g, cols 2t+8 and 2t+9), A[3] = (row g+8, cols 2t+8 and 2t+9); element (r, k) of
  //   Hint: this tile is a[r * 16 + k]. Pack two elements with course::mma::pack2_raw(lo, hi).
  //   Hint: B fragment: B[0] = (rows k = 2t and 2t+1, col n = g), B[1] = (rows 2t+8 and 2t+9, col g);
  //   Hint: element (k, n) is b[k * 8 + n]: the pair is NOT contiguous in memory.
  //   Hint: C fragment: C[0], C[1] = (row g, cols 2t, 2t+1), C[2], C[3] = (row g+8, cols 2t, 2t+1).
  A[0] = A[1] = A[2] = A[3] = B[0] = B[1] = 0u;
  C[0] = C[1] = C[2] = C[3] = 0.f;
  course::mma::mma_sync_m16n8k16_row_col_f32<T>(C, A, B);
  // TODO: your code here.
  //   Hint: store C[i] at d[row * 8 + col] with the C layout (course::mma::frag_c_row / frag_c_col).
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
