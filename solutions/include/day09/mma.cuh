// day09/mma.cuh: the course's ldmatrix and mma.sync m16n8k16 wrappers (day 9, exercises 1 and 2), which
// course/mma.cuh gives days 9 (exercise 3) to 12. Fragment layouts and recipes: course/mma.cuh.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <course/mma.cuh>  // smem_addr (course/mma.cuh includes this header at its end)

namespace course {
namespace mma {

// ---- ldmatrix: 8x8 matrices of 16-bit elements, shared memory -> registers ----------------------
// R receives 1, 2 or 4 registers; smem_ptr is this lane's row address (see the header comment).

COURSE_INLINE void ldmatrix_m8n8x1(uint32_t* R, const void* smem_ptr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];\n"
               : "=r"(R[0])
               : "r"(smem_addr(smem_ptr)));
}

COURSE_INLINE void ldmatrix_m8n8x2(uint32_t* R, const void* smem_ptr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];\n"
               : "=r"(R[0]), "=r"(R[1])
               : "r"(smem_addr(smem_ptr)));
}

COURSE_INLINE void ldmatrix_m8n8x4(uint32_t* R, const void* smem_ptr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(R[0]), "=r"(R[1]), "=r"(R[2]), "=r"(R[3])
               : "r"(smem_addr(smem_ptr)));
}

COURSE_INLINE void ldmatrix_m8n8x1_trans(uint32_t* R, const void* smem_ptr) {
  asm volatile("ldmatrix.sync.aligned.trans.m8n8.x1.shared.b16 {%0}, [%1];\n"
               : "=r"(R[0])
               : "r"(smem_addr(smem_ptr)));
}

COURSE_INLINE void ldmatrix_m8n8x2_trans(uint32_t* R, const void* smem_ptr) {
  asm volatile("ldmatrix.sync.aligned.trans.m8n8.x2.shared.b16 {%0, %1}, [%2];\n"
               : "=r"(R[0]), "=r"(R[1])
               : "r"(smem_addr(smem_ptr)));
}

COURSE_INLINE void ldmatrix_m8n8x4_trans(uint32_t* R, const void* smem_ptr) {
  asm volatile("ldmatrix.sync.aligned.trans.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(R[0]), "=r"(R[1]), "=r"(R[2]), "=r"(R[3])
               : "r"(smem_addr(smem_ptr)));
}

// ---- mma.sync m16n8k16, fp32 accumulate: C += A * B (in place) --------------------------------

COURSE_INLINE void mma_sync_m16n8k16_row_col_f16f16f32(float* C, const uint32_t* A, const uint32_t* B) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
      "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
      : "+f"(C[0]), "+f"(C[1]), "+f"(C[2]), "+f"(C[3])
      : "r"(A[0]), "r"(A[1]), "r"(A[2]), "r"(A[3]), "r"(B[0]), "r"(B[1]));
}

COURSE_INLINE void mma_sync_m16n8k16_row_col_bf16bf16f32(float* C, const uint32_t* A, const uint32_t* B) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
      "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
      : "+f"(C[0]), "+f"(C[1]), "+f"(C[2]), "+f"(C[3])
      : "r"(A[0]), "r"(A[1]), "r"(A[2]), "r"(A[3]), "r"(B[0]), "r"(B[1]));
}

// The same, chosen by element type: T is half or __nv_bfloat16.
template <typename T>
COURSE_INLINE void mma_sync_m16n8k16_row_col_f32(float* C, const uint32_t* A, const uint32_t* B);
template <>
COURSE_INLINE void mma_sync_m16n8k16_row_col_f32<half>(float* C, const uint32_t* A, const uint32_t* B) {
  mma_sync_m16n8k16_row_col_f16f16f32(C, A, B);
}
template <>
COURSE_INLINE void mma_sync_m16n8k16_row_col_f32<__nv_bfloat16>(float* C, const uint32_t* A,
                                                                const uint32_t* B) {
  mma_sync_m16n8k16_row_col_bf16bf16f32(C, A, B);
}

// A 16x16x16 step as two m16n8k16: C[0..3] is the 16x8 tile of columns 0..7, C[4..7] that of
// columns 8..15; B[0..1] and B[2..3] their B fragments (what ldmatrix_m8n8x4_trans gives).
template <typename T>
COURSE_INLINE void mma_sync_m16n16k16_row_col_f32(float* C, const uint32_t* A, const uint32_t* B) {
  mma_sync_m16n8k16_row_col_f32<T>(C, A, B);
  mma_sync_m16n8k16_row_col_f32<T>(C + 4, A, B + 2);
}

}  // namespace mma
}  // namespace course
