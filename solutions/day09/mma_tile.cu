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
  // BEGIN EXERCISE
  // HINT: A fragment: A[0] = (row g, cols 2t and 2t+1), A[1] = (row g+8, same cols),
  // HINT: A[2] = (row g, cols 2t+8 and 2t+9), A[3] = (row g+8, cols 2t+8 and 2t+9); element (r, k) of
  // HINT: this tile is a[r * 16 + k]. Pack two elements with course::mma::pack2_raw(lo, hi).
  // HINT: B fragment: B[0] = (rows k = 2t and 2t+1, col n = g), B[1] = (rows 2t+8 and 2t+9, col g);
  // HINT: element (k, n) is b[k * 8 + n]: the pair is NOT contiguous in memory.
  // HINT: C fragment: C[0], C[1] = (row g, cols 2t, 2t+1), C[2], C[3] = (row g+8, cols 2t, 2t+1).
  // STUB: A[0] = A[1] = A[2] = A[3] = B[0] = B[1] = 0u;
  // STUB: C[0] = C[1] = C[2] = C[3] = 0.f;
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const int row = g + 8 * (i % 2), col = 2 * t + 8 * (i / 2);
    A[i] = course::mma::pack2_raw(a[row * 16 + col], a[row * 16 + col + 1]);
  }
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    const int k = 2 * t + 8 * i;
    B[i] = course::mma::pack2_raw(b[k * 8 + g], b[(k + 1) * 8 + g]);
  }
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    C[i] = c[course::mma::frag_c_row(lane, i) * 8 + course::mma::frag_c_col(lane, i)];
  }
  // END EXERCISE
  course::mma::mma_sync_m16n8k16_row_col_f32<T>(C, A, B);
  // BEGIN EXERCISE
  // HINT: store C[i] at d[row * 8 + col] with the C layout (course::mma::frag_c_row / frag_c_col).
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    d[course::mma::frag_c_row(lane, i) * 8 + course::mma::frag_c_col(lane, i)] = C[i];
  }
  // END EXERCISE
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
