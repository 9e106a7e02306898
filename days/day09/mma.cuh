// Your exercise file. Generated from solutions/day09/mma.cuh by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: 73f4fcf863e9044f
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
  // TODO: your code here.
  //   Hint: Each variant is one PTX instruction with a different number of destination registers, chosen at
  //   Hint: compile time from NUM and TRANS. In which state space does ldmatrix read, and what kind of address
  //   Hint: does that need? (Instantiate the grammar quoted in ldmatrix.cu's header.)
  (void)row; r[0] = r[1] = r[2] = r[3] = 0u;
}

// C += A * B on one 16x8x16 tile with mma.sync.aligned.m16n8k16.row.col.f32.{f16|bf16}.{f16|bf16}.f32:
// A, B, C are this lane's fragments (4, 2 and 4 registers); T = half or __nv_bfloat16.
template <typename T>
COURSE_INLINE void mma_m16n8k16(float* C, const uint32_t* A, const uint32_t* B) {
  // TODO: your code here.
  //   Hint: One PTX instruction per element type, picked at compile time. D and C are the same registers here:
  //   Hint: which constraint makes an operand both read and written? (Instantiate the grammar quoted in
  //   Hint: mma_tile.cu's header.)
  (void)C; (void)A; (void)B;
}

}  // namespace mma
}  // namespace course
