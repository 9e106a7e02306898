// course/hopper/wgmma.cuh: warpgroup MMA (day 15, sm_90a): descriptors, ordering, m64n128k16 and
// m64n256k16 (fp16, bf16), m64n128k32 and m64n256k32 (FP8 e4m3).
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
// leading offset `lbo` >> 4 (bits 16-29; unused by this layout, 16 by convention), stride offset 1024 >> 4
// (8-row groups, bits 32-45), swizzle mode 1 = 128 bytes (bits 62-63). A k16 step inside the tile adds 32
// bytes to `addr`.
COURSE_INLINE uint64_t make_descriptor(uint32_t addr, uint32_t lbo = 16) {
  return (uint64_t)((addr & 0x3FFFF) >> 4) | ((uint64_t)(lbo >> 4) << 16) | ((uint64_t)(1024 >> 4) << 32) |
         (1ull << 62);
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

// The accumulator operands of a wgmma, eight at a time.
#define COURSE_D8(i)                                                                                           \
  "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]), "+f"(d[i + 6]), \
      "+f"(d[i + 7])

// One wgmma.mma_async: D (the register list `regs`) = (accumulate ? D : 0) + A @ B^T from the descriptors
// `descs` (scale-d, the operand `pred`: the first step of a fresh product needs no zeroed registers), A
// and B not negated; `trans` is ", 0, 0" (K-major A and B) for 16-bit inputs and empty for FP8.
#define COURSE_WGMMA(shape, types, regs, descs, pred, trans, ...)                                       \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, " pred ", 0;\nwgmma.mma_async.sync.aligned." shape  \
               ".f32" types " {" regs "}, " descs ", p, 1, 1" trans ";\n}\n"                               \
               : __VA_ARGS__                                                                          \
               : "l"(desc_a), "l"(desc_b), "r"(accumulate))
#define COURSE_REGS_32                                                                    \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "                 \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
#define COURSE_REGS_64                                                                    \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "                 \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "       \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "       \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
#define COURSE_REGS_128                                                                          \
  COURSE_REGS_64 ", "                                                                             \
  "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "              \
  "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "              \
  "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, "   \
  "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"
#define COURSE_D32 COURSE_D8(0), COURSE_D8(8), COURSE_D8(16), COURSE_D8(24)
#define COURSE_D64 COURSE_D8(0), COURSE_D8(8), COURSE_D8(16), COURSE_D8(24), \
                   COURSE_D8(32), COURSE_D8(40), COURSE_D8(48), COURSE_D8(56)
#define COURSE_D128 COURSE_D64, COURSE_D8(64), COURSE_D8(72), COURSE_D8(80), COURSE_D8(88), \
                    COURSE_D8(96), COURSE_D8(104), COURSE_D8(112), COURSE_D8(120)

// d (N / 2 floats per thread) = (accumulate ? d : 0) + A (64 x 16) @ B (N x 16)^T, A and B from descriptors;
// fp16 or bf16 in. N = 128 or 256 (the B tile's rows; m64n256k16 is the widest wgmma, 128 accumulators per
// thread).
template <int N, typename T>
COURSE_INLINE void wgmma_m64k16(float (&d)[N / 2], uint64_t desc_a, uint64_t desc_b, int accumulate = 1) {
  static_assert(N == 128 || N == 256, "wgmma_m64k16: N is 128 or 256");
  if constexpr (N == 128 && IS_F16<T>) {
    COURSE_WGMMA("m64n128k16", ".f16.f16", COURSE_REGS_64, "%64, %65", "%66", ", 0, 0", COURSE_D64);
  } else if constexpr (N == 128) {
    COURSE_WGMMA("m64n128k16", ".bf16.bf16", COURSE_REGS_64, "%64, %65", "%66", ", 0, 0", COURSE_D64);
  } else if constexpr (IS_F16<T>) {
    COURSE_WGMMA("m64n256k16", ".f16.f16", COURSE_REGS_128, "%128, %129", "%130", ", 0, 0", COURSE_D128);
  } else {
    COURSE_WGMMA("m64n256k16", ".bf16.bf16", COURSE_REGS_128, "%128, %129", "%130", ", 0, 0", COURSE_D128);
  }
}

// The descriptor of an MN-major B tile (its rows run along N: V [kv][d] for O += P V) in the 128-byte
// swizzle: the same fields, with 64-element column blocks `lbo` bytes apart (the leading offset) and 8-row
// groups of k 1024 bytes apart. A k16 step adds 16 rows, 2048 bytes, to `addr`.
COURSE_INLINE uint64_t make_descriptor_mn(uint32_t addr, uint32_t lbo) { return make_descriptor(addr, lbo); }

// d (N / 2 floats) += A (64 x 16, from registers: a[i] = two T of the A fragment, as mma.sync's
// m16n8k16 A per warp) @ B (16 x N, MN-major: trans-b = 1) from a descriptor; N = 64 or 128.
template <int N, typename T>
COURSE_INLINE void wgmma_m64k16_rs(float (&d)[N / 2], const uint32_t (&a)[4], uint64_t desc_b) {
  static_assert(N == 64 || N == 128, "wgmma_m64k16_rs: N is 64 or 128");
#define COURSE_WGMMA_RS(shape, types, regs, aregs, desc, ...)                                         \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\nwgmma.mma_async.sync.aligned." shape ".f32" types \
               " {" regs "}, {" aregs "}, " desc ", p, 1, 1, 1;\n}\n"                                     \
               : __VA_ARGS__                                                                         \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b))
  if constexpr (N == 128 && IS_F16<T>) {
    COURSE_WGMMA_RS("m64n128k16", ".f16.f16", COURSE_REGS_64, "%64, %65, %66, %67", "%68", COURSE_D64);
  } else if constexpr (N == 128) {
    COURSE_WGMMA_RS("m64n128k16", ".bf16.bf16", COURSE_REGS_64, "%64, %65, %66, %67", "%68", COURSE_D64);
  } else if constexpr (IS_F16<T>) {
    COURSE_WGMMA_RS("m64n64k16", ".f16.f16", COURSE_REGS_32, "%32, %33, %34, %35", "%36", COURSE_D32);
  } else {
    COURSE_WGMMA_RS("m64n64k16", ".bf16.bf16", COURSE_REGS_32, "%32, %33, %34, %35", "%36", COURSE_D32);
  }
#undef COURSE_WGMMA_RS
}

// d (N / 2 floats per thread) += A (64 x 32) @ B (N x 32)^T of e4m3 (FP8) values, from descriptors; N = 128
// or 256. FP8 wgmma reads K-major tiles only: a 128-byte swizzled row holds 128 values, a k32 step is 32 bytes.
template <int N>
COURSE_INLINE void wgmma_m64k32_e4m3(float (&d)[N / 2], uint64_t desc_a, uint64_t desc_b, int accumulate = 1) {
  static_assert(N == 128 || N == 256, "wgmma_m64k32_e4m3: N is 128 or 256");
  if constexpr (N == 128) {
    COURSE_WGMMA("m64n128k32", ".e4m3.e4m3", COURSE_REGS_64, "%64, %65", "%66", "", COURSE_D64);
  } else {
    COURSE_WGMMA("m64n256k32", ".e4m3.e4m3", COURSE_REGS_128, "%128, %129", "%130", "", COURSE_D128);
  }
}

#undef COURSE_D128
#undef COURSE_D64
#undef COURSE_D32
#undef COURSE_REGS_32
#undef COURSE_REGS_128
#undef COURSE_REGS_64
#undef COURSE_WGMMA
#undef COURSE_D8

// The 64 x 128 form, as exercise 1 writes it by hand.
template <typename T>
COURSE_INLINE void wgmma_m64n128k16(float (&d)[64], uint64_t desc_a, uint64_t desc_b, int accumulate = 1) {
  wgmma_m64k16<128, T>(d, desc_a, desc_b, accumulate);
}

}  // namespace hopper
}  // namespace course
