// Generated from solutions/day09/mma.cuh by `python -m grader stubs` (edit that file): the course's version,
// which later days' course headers include and `grader unlock` releases.
// Day 9, exercises 1 and 2: your ldmatrix and mma.sync instructions, written once, as inline PTX.
// ldmatrix.cu (exercise 1: ldmatrix) and mma_tile.cu (exercise 2: mma_m16n8k16) include this header from
// beside them (#include "mma.cuh") and are graded on it; exercise 3 (block_tile.cu) and days 10 to 12 use
// course/mma.cuh's ldmatrix_m8n8x4, mma_sync_m16n16k16_row_col_f32, ..., which are built on these two
// templates: yours, until the course's version (kernels/unlocked/day09/) is released. Keep the names and
// signatures; the PTX grammar of each is quoted in its exercise's file. Include nothing else here.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <course/common.cuh>

#define COURSE_OWN_DAY09_MMA 1  // course/mma.cuh, included after this header, builds on yours

namespace course {
namespace mma {

template <typename T> constexpr bool is_half = false;  // fp16 or bf16, for `if constexpr`
template <> constexpr bool is_half<half> = true;

// ldmatrix.sync.aligned.m8n8.x{NUM}[.trans].shared.b16 into r[0 .. NUM - 1] (NUM = 1, 2 or 4); `row` is
// this lane's row address (a generic pointer into shared memory). Registers past NUM are not written.
template <int NUM, bool TRANS>
COURSE_INLINE void ldmatrix(uint32_t* r, const void* row) {
  const uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(row));
  if constexpr (NUM == 1 && !TRANS) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];\n" : "=r"(r[0]) : "r"(addr));
  } else if constexpr (NUM == 1) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];\n" : "=r"(r[0]) : "r"(addr));
  } else if constexpr (NUM == 2 && !TRANS) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];\n"
                 : "=r"(r[0]), "=r"(r[1])
                 : "r"(addr));
  } else if constexpr (NUM == 2) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];\n"
                 : "=r"(r[0]), "=r"(r[1])
                 : "r"(addr));
  } else if constexpr (!TRANS) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
  } else {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
  }
}

// C += A * B on one 16x8x16 tile with mma.sync.aligned.m16n8k16.row.col.f32.{f16|bf16}.{f16|bf16}.f32:
// A, B, C are this lane's fragments (4, 2 and 4 registers); T = half or __nv_bfloat16.
template <typename T>
COURSE_INLINE void mma_m16n8k16(float* C, const uint32_t* A, const uint32_t* B) {
  if constexpr (is_half<T>) {
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
}

}  // namespace mma
}  // namespace course
