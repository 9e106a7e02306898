// course/hopper/wgmma.cuh: warpgroup MMA (day 15, sm_90a): descriptors, ordering, m64n128k16.
//
// What day 15's wgmma_tile.cu writes by hand, as helpers for the GEMM. A warpgroup (4 consecutive warps,
// the first a multiple of 4) issues wgmma.mma_async together: D (64 x N, fp32, in registers) += A (64 x 16)
// * B (N x 16)^T, A and B read from shared memory through 64-bit matrix descriptors. Both operands here
// are K-major tiles of 64-element (128-byte) rows in the 128-byte swizzle, 1024-byte aligned.
// Accumulator j of a thread sits at row 16 * warp + lane / 4 + 8 * ((j % 4) / 2), column
// 8 * (j / 4) + 2 * (lane % 4) + j % 2 of its warpgroup's 64 x N tile (PTX ISA, "wgmma D fragment").
#pragma once
#include "../vec_dtypes.cuh"

namespace course {
namespace hopper {

// The descriptor of a K-major 128-byte-swizzled tile at shared address `addr`: start >> 4 (bits 0-13),
// leading offset 1 (unused by this layout), stride offset 1024 >> 4 (8-row groups, bits 32-45), swizzle
// mode 1 = 128 bytes (bits 62-63). A k16 step inside the tile adds 32 bytes to `addr`.
COURSE_INLINE uint64_t make_descriptor(uint32_t addr) {
  return (uint64_t)((addr & 0x3FFFF) >> 4) | (1ull << 16) | ((uint64_t)(1024 >> 4) << 32) | (1ull << 62);
}

COURSE_INLINE void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
COURSE_INLINE void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N>
COURSE_INLINE void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}

// A warpgroup's register budget: the producer gives registers up, the consumers (the accumulators) take them.
template <int Regs>
COURSE_INLINE void setmaxnreg_dec() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(Regs));
}
template <int Regs>
COURSE_INLINE void setmaxnreg_inc() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(Regs));
}

template <typename T> constexpr bool IS_F16 = false;
template <> constexpr bool IS_F16<half> = true;

// d (64 floats per thread) += A (64 x 16) @ B (128 x 16)^T, A and B from descriptors; fp16 or bf16 in.
template <typename T>
COURSE_INLINE void wgmma_m64n128k16(float (&d)[64], uint64_t desc_a, uint64_t desc_b) {
#define COURSE_WGMMA_N128(type) \
  asm volatile( \
      "{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n" \
      "wgmma.mma_async.sync.aligned.m64n128k16.f32." type "." type " {" \
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63" \
      "}, %64, %65, p, 1, 1, 0, 0;\n}\n" \
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
        "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
        "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
        "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]) \
      : "l"(desc_a), "l"(desc_b))
  if constexpr (IS_F16<T>) {
    COURSE_WGMMA_N128("f16");
  } else {
    COURSE_WGMMA_N128("bf16");
  }
#undef COURSE_WGMMA_N128
}

}  // namespace hopper
}  // namespace course
