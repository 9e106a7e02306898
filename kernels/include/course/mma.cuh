// course/mma.cuh: tensor-core building blocks: ldmatrix and mma.sync m16n8k16 (day 9).
//
// Modelled on FlashInfer's include/flashinfer/mma.cuh. Days 10 (GEMM), 11 and 12 (attention) include
// this header; its API is stable: names, argument order and fragment layouts below do not change.
//
// One warp computes D = A * B + C on a 16x8x16 tile with `mma.sync.aligned.m16n8k16.row.col`:
// A is 16x16 (M x K, "row": row-major), B is 16x8 (K x N, "col": each thread holds a column's pairs),
// C and D are 16x8 float. Every operand is spread over the 32 lanes of the warp as a "fragment":
// registers of 32 bits, each holding two 16-bit elements (fp16 or bf16) or one float. With
//   g = lane / 4  (the "group", 0..7)   and   t = lane % 4  (the thread in the group, 0..3):
//
//   A fragment, uint32_t a[4]   a[0]: row g,     cols 2t, 2t+1        a[1]: row g + 8, cols 2t, 2t+1
//                               a[2]: row g,     cols 2t+8, 2t+9      a[3]: row g + 8, cols 2t+8, 2t+9
//   B fragment, uint32_t b[2]   b[0]: rows (k) 2t, 2t+1,   col (n) g  b[1]: rows (k) 2t+8, 2t+9, col g
//   C/D fragment, float c[4]    c[0], c[1]: row g,     cols 2t, 2t+1
//                               c[2], c[3]: row g + 8, cols 2t, 2t+1
//
// In each 32-bit register the element with the smaller column (A) or row (B) is in the low 16 bits.
// frag_c_row / frag_c_col below give the C layout as code (epilogues need it); the A and B layouts are
// day 9's exercise. Day 9's exercises 1 and 2 write ldmatrix and mma.sync as inline PTX; the course's
// wrappers of them (named at the end of this header) are what day 9's exercise 3 and days 10 to 12 call.
//
// ldmatrix loads such fragments from shared memory in one instruction per warp. Each of the x1 / x2 /
// x4 variants loads 1, 2 or 4 matrices of 8x8 16-bit elements; lanes 8j..8j+7 give the addresses of
// the 8 rows (16 contiguous bytes each, 16-byte aligned) of matrix j (lanes 0..7 for x1, 0..15 for x2).
// Afterwards register j of lane l holds row l / 4, columns 2 (l % 4), 2 (l % 4) + 1 of matrix j:
// exactly the layout of one A or B register above. With .trans each matrix is transposed on the way:
// register j of lane l holds rows 2 (l % 4), 2 (l % 4) + 1 of column l / 4, which is how a B fragment
// is read from a row-major [K, N] tile.
//
// Recipes (lane l gives the address of row l % 16, column 8 * (l / 16) of a 16x16 tile):
//   A 16x16 from a row-major [M, K] tile:        ldmatrix_m8n8x4(a, &tile[l % 16][8 * (l / 16)])
//   B for two n8 tiles (16 k x 16 n) from a row-major [K, N] tile:
//                                                ldmatrix_m8n8x4_trans(b, &tile[l % 16][8 * (l / 16)])
//     then b[0], b[1] are the B fragment of columns 0..7 and b[2], b[3] that of columns 8..15, as
//     mma_sync_m16n16k16_row_col_f32 expects.
//   B 16x8 from an [N, K] tile (K contiguous):   ldmatrix_m8n8x2(b, &tile[l % 8][8 * ((l / 8) % 2)])
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "common.cuh"

namespace course {
namespace mma {

// The 32-bit shared-memory address (state space .shared) of a generic pointer into shared memory.
COURSE_INLINE uint32_t smem_addr(const void* smem_ptr) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(smem_ptr));
}

// ---- fragment layouts and packing ---------------------------------------------------------------

// Row and column of the C/D element that lane `lane` holds in c[i] (i = 0..3) of a 16x8 tile.
__host__ __device__ __forceinline__ constexpr int frag_c_row(int lane, int i) { return lane / 4 + 8 * (i / 2); }
__host__ __device__ __forceinline__ constexpr int frag_c_col(int lane, int i) { return 2 * (lane % 4) + i % 2; }

// Two floats rounded to T and packed into one 32-bit register, `lo` in the low 16 bits: a C fragment's
// pair (c[0], c[1]) becomes one register of an A fragment (attention's P @ V reuses S this way).
template <typename T> COURSE_INLINE uint32_t pack2(float lo, float hi);
template <> COURSE_INLINE uint32_t pack2<half>(float lo, float hi) {
  const __half2 h = __floats2half2_rn(lo, hi);
  return *reinterpret_cast<const uint32_t*>(&h);
}
template <> COURSE_INLINE uint32_t pack2<__nv_bfloat16>(float lo, float hi) {
  const __nv_bfloat162 h = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<const uint32_t*>(&h);
}

// Two 16-bit elements (lo, hi) as one 32-bit register, without conversion.
template <typename T> COURSE_INLINE uint32_t pack2_raw(T lo, T hi) {
  static_assert(sizeof(T) == 2, "pack2_raw packs two 16-bit elements");
  return static_cast<uint32_t>(*reinterpret_cast<const uint16_t*>(&lo)) |
         (static_cast<uint32_t>(*reinterpret_cast<const uint16_t*>(&hi)) << 16);
}

}  // namespace mma
}  // namespace course

// ldmatrix<NUM, TRANS>(r, row) (ldmatrix.sync.aligned.m8n8.x{NUM}[.trans].shared.b16 into r[0..NUM-1],
// `row` this lane's row address in shared memory) and mma_m16n8k16<T>(C, A, B) (C += A * B with
// mma.sync.aligned.m16n8k16.row.col.f32 for T = half or __nv_bfloat16) are day 9's exercises 1 and 2,
// written in days/day09/mma.cuh. The named wrappers below build on them. The course's versions
// (<day09/mma.cuh> on the include path: the instructor's, or kernels/unlocked once released) come first;
// where they are absent, the include path's days/ folder gives your own, so the later exercises build on
// what you wrote. Exercise 2 includes your header before this one (it defines COURSE_OWN_DAY09_MMA).
#if defined(COURSE_OWN_DAY09_MMA)
#elif __has_include(<day09/mma.cuh>)
#include <day09/mma.cuh>
#else
namespace course {
namespace mma {
template <int NUM, bool TRANS, typename P> COURSE_INLINE void ldmatrix(uint32_t*, const P*) {
  COURSE_LOCKED(P, "course::mma's ldmatrix wrappers", "day09", "ldmatrix.cu");
}
template <typename T, typename F> COURSE_INLINE void mma_m16n8k16(F*, const uint32_t*, const uint32_t*) {
  COURSE_LOCKED(F, "course::mma's mma.sync wrappers", "day09", "mma_tile.cu");
}
}  // namespace mma
}  // namespace course
#endif

namespace course {
namespace mma {

// ---- ldmatrix: 8x8 matrices of 16-bit elements, shared memory -> registers ----------------------
// R receives 1, 2 or 4 registers; smem_ptr is this lane's row address (see the header comment).
template <typename P> COURSE_INLINE void ldmatrix_m8n8x1(uint32_t* R, const P* smem_ptr) { ldmatrix<1, false>(R, smem_ptr); }
template <typename P> COURSE_INLINE void ldmatrix_m8n8x2(uint32_t* R, const P* smem_ptr) { ldmatrix<2, false>(R, smem_ptr); }
template <typename P> COURSE_INLINE void ldmatrix_m8n8x4(uint32_t* R, const P* smem_ptr) { ldmatrix<4, false>(R, smem_ptr); }
template <typename P> COURSE_INLINE void ldmatrix_m8n8x1_trans(uint32_t* R, const P* smem_ptr) { ldmatrix<1, true>(R, smem_ptr); }
template <typename P> COURSE_INLINE void ldmatrix_m8n8x2_trans(uint32_t* R, const P* smem_ptr) { ldmatrix<2, true>(R, smem_ptr); }
template <typename P> COURSE_INLINE void ldmatrix_m8n8x4_trans(uint32_t* R, const P* smem_ptr) { ldmatrix<4, true>(R, smem_ptr); }

// ---- mma.sync m16n8k16, fp32 accumulate: C += A * B (in place) --------------------------------
template <typename F> COURSE_INLINE void mma_sync_m16n8k16_row_col_f16f16f32(F* C, const uint32_t* A, const uint32_t* B) {
  mma_m16n8k16<half>(C, A, B);
}
template <typename F> COURSE_INLINE void mma_sync_m16n8k16_row_col_bf16bf16f32(F* C, const uint32_t* A, const uint32_t* B) {
  mma_m16n8k16<__nv_bfloat16>(C, A, B);
}

// The same, chosen by element type: T is half or __nv_bfloat16.
template <typename T, typename F> COURSE_INLINE void mma_sync_m16n8k16_row_col_f32(F* C, const uint32_t* A, const uint32_t* B) {
  mma_m16n8k16<T>(C, A, B);
}

// A 16x16x16 step as two m16n8k16: C[0..3] is the 16x8 tile of columns 0..7, C[4..7] that of
// columns 8..15; B[0..1] and B[2..3] their B fragments (what ldmatrix_m8n8x4_trans gives).
template <typename T, typename F> COURSE_INLINE void mma_sync_m16n16k16_row_col_f32(F* C, const uint32_t* A, const uint32_t* B) {
  mma_m16n8k16<T>(C, A, B);
  mma_m16n8k16<T>(C + 4, A, B + 2);
}

}  // namespace mma
}  // namespace course
