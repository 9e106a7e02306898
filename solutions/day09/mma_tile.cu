// Day 9, exercise 2: one warp, one tensor-core instruction: D = A * B + C on a 16x8x16 tile.
//
//   a: [count, 16, 16] (M x K, row-major)   b: [count, 16, 8] (K x N, row-major)
//   c, d: [count, 16, 8] float              T = half or __nv_bfloat16, accumulated in float
//
// One warp per tile: grid = (count,), block = (32,). Each lane loads its fragments straight from
// global memory (no shared memory, no ldmatrix: the point is to know which lane holds what), issues
// one mma.sync.m16n8k16, written by you as inline PTX, and stores its part of D. The layouts are in
// course/mma.cuh (which later days use for the instruction too).
#include <course/mma.cuh>

namespace {

template <typename T> constexpr bool IS_HALF = false;  // fp16 or bf16, for `if constexpr`
template <> constexpr bool IS_HALF<half> = true;

// C += A * B on one 16x8x16 tile with mma.sync.aligned.m16n8k16.row.col.f32.{f16|bf16}.{f16|bf16}.f32:
// A, B, C are this lane's fragments (4, 2 and 4 registers); T = half or __nv_bfloat16.
template <typename T>
__device__ __forceinline__ void mma_m16n8k16(float* C, const uint32_t* A, const uint32_t* B) {
  // BEGIN EXERCISE
  // HINT: one `asm volatile` per element type (`if constexpr (IS_HALF<T>)`); D and C are the same
  // HINT: registers, so C is read and written ("+f").
  // HINT2: "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7},
  // HINT2: {%8, %9}, {%0, %1, %2, %3};\n" (bf16: .f32.bf16.bf16.f32): D, A, B, C in that order.
  // HINT3: : "+f"(C[0]), "+f"(C[1]), "+f"(C[2]), "+f"(C[3])
  // HINT3: : "r"(A[0]), "r"(A[1]), "r"(A[2]), "r"(A[3]), "r"(B[0]), "r"(B[1])
  // STUB: (void)C; (void)A; (void)B;
  if constexpr (IS_HALF<T>) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
        "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
        : "+f"(C[0]), "+f"(C[1]), "+f"(C[2]), "+f"(C[3])
        : "r"(A[0]), "r"(A[1]), "r"(A[2]), "r"(A[3]), "r"(B[0]), "r"(B[1]));
  } else {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
        "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
        : "+f"(C[0]), "+f"(C[1]), "+f"(C[2]), "+f"(C[3])
        : "r"(A[0]), "r"(A[1]), "r"(A[2]), "r"(A[3]), "r"(B[0]), "r"(B[1]));
  }
  // END EXERCISE
}

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
  // HINT: each lane loads the elements its fragments hold (the layouts in course/mma.cuh), packing two
  // HINT: 16-bit elements per register with course::mma::pack2_raw(lo, hi): lo = the smaller column (A)
  // HINT: or row (B).
  // HINT2: A[i] = (row g + 8 * (i % 2), cols 2t + 8 * (i / 2) and the next); element (r, k) is a[r * 16 + k].
  // HINT2: B[i] = (rows k = 2t + 8i and k + 1, col n = g); element (k, n) is b[k * 8 + n].
  // HINT2: C[i] at row course::mma::frag_c_row(lane, i), col course::mma::frag_c_col(lane, i) of c.
  // HINT3: B[i] = course::mma::pack2_raw(b[k * 8 + g], b[(k + 1) * 8 + g]);  // the pair is NOT contiguous
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
  mma_m16n8k16<T>(C, A, B);
  // BEGIN EXERCISE
  // HINT: store C[i] at d[row * 8 + col] with the C layout (course::mma::frag_c_row / frag_c_col).
  // HINT2: for i < 4: row = frag_c_row(lane, i) = g + 8 * (i / 2), col = frag_c_col(lane, i) = 2t + i % 2.
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
