// Your exercise file. Generated from solutions/day15/wgmma_tile.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: d30a755b01235d45
// Day 15, exercise 1: one warpgroup, one tile, wgmma from shared memory:
//
//   d[t] = a[t] @ b[t]^T + d[t]   a: [count, 64, K], b: [count, 64, K] (both K-major: rows of K elements)
//                                 d: [count, 64, 64] float;  T = half or __nv_bfloat16, accumulated in float
//
// One warpgroup (4 warps, 128 threads) per tile: grid = (count,), block = (128,); K a multiple of 64.
// The given code loads d into the wgmma accumulator fragment (acc_row / acc_col) and stores it back.
// You write: the swizzled address, the matrix descriptor, and the slice loop, in which A's and B's 64 x 64
// slices of each 64-wide step of K go through shared memory (sa, sb: the 128-byte swizzle) to the tensor
// cores with wgmma.mma_async m64n64k16 (the wrapper below). The test: D against a float64 reference within
// the fp32 accumulation tolerance for K, fp16 and bf16; the technique: HGMMA in the SASS, and your own asm
// with wgmma.commit_group and wgmma.wait_group (the emulator names a missing fence).
//
// The 128-byte swizzle: a row of the slice is 64 elements = 128 bytes = eight 16-byte chunks; chunk c of
// row r is stored at chunk position c ^ (r % 8) of that row, rows 128 bytes apart, so 8 consecutive rows
// form a 1024-byte "atom" whose chunks are spread over all banks. The tile must start 1024-byte aligned.
//
// Reference (PTX ISA, "Parallel Synchronization and Communication Instructions: membar/fence" and
// "Asynchronous Warpgroup Level Matrix Instructions: wgmma.fence, wgmma.commit_group, wgmma.wait_group"):
//   fence.proxy.proxykind;               .proxykind = { .alias, .async, .async.global, .async.shared::{cta, cluster} }
//   wgmma.fence.sync.aligned;            (before the first wgmma touching registers or memory just written)
//   wgmma.commit_group.sync.aligned;     (the wgmma issued so far become one group)
//   wgmma.wait_group.sync.aligned N;     (returns when at most N groups are pending)
#include <course/vec_dtypes.cuh>
COURSE_REQUIRE_ARCH_SPECIFIC(90);

namespace {

template <typename T> constexpr bool IS_HALF = false;  // fp16 or bf16, for `if constexpr`
template <> constexpr bool IS_HALF<half> = true;

constexpr int TILE = 64;  // rows of A and of B (= columns of D); also the K slice: 64 elements = 128 bytes

// Byte offset of element (row, col) of a 64-column slice of 16-bit elements in the 128-byte swizzle.
__device__ __forceinline__ uint32_t swizzled_offset(int row, int col) {
  // TODO: your code here.
  //   Hint: Think of a row as eight 16-byte chunks (the header defines where chunk c of row r goes).
  //   Hint: What is the byte offset of the row, of the chunk's new place, and of the element inside its chunk?
  (void)row; (void)col; return 0;
}

// The 64-bit shared-memory matrix descriptor of a K-major tile in the 128-byte swizzle starting at the
// shared address `addr` (PTX ISA, "Matrix Descriptor Format"): bits 0-13 the start address >> 4, bits
// 16-29 the leading-dimension byte offset >> 4 (unused by a K-major swizzled layout: 1 by convention),
// bits 32-45 the stride-dimension byte offset >> 4 (from one 8-row group to the next), bits 62-63 the
// swizzle mode (1: 128 bytes).
__device__ __forceinline__ uint64_t make_descriptor(uint32_t addr) {
  // TODO: your code here.
  //   Hint: Every field of the descriptor holds a byte quantity divided by 16. In this layout, how many bytes
  //   Hint: separate one group of 8 rows from the next?
  (void)addr; return 0;
}

// d (32 floats per thread) += A (64 x 16) @ B (64 x 16)^T from two descriptors: one wgmma.mma_async of
// the warpgroup. scale_d = 0 would ignore d; imm-scale-a/b = 1, no transposes (both K-major).
template <typename T>
__device__ __forceinline__ void wgmma_m64n64k16(float (&d)[32], uint64_t desc_a, uint64_t desc_b) {
#define COURSE_D(i) "+f"(d[i])
#define COURSE_WGMMA(type)                                                                           \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"                                           \
               "wgmma.mma_async.sync.aligned.m64n64k16.f32." type "." type " "                      \
               "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "            \
               "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, " \
               "%32, %33, p, 1, 1, 0, 0;\n}\n"                                                       \
               : COURSE_D(0), COURSE_D(1), COURSE_D(2), COURSE_D(3), COURSE_D(4), COURSE_D(5),      \
                 COURSE_D(6), COURSE_D(7), COURSE_D(8), COURSE_D(9), COURSE_D(10), COURSE_D(11),    \
                 COURSE_D(12), COURSE_D(13), COURSE_D(14), COURSE_D(15), COURSE_D(16), COURSE_D(17),\
                 COURSE_D(18), COURSE_D(19), COURSE_D(20), COURSE_D(21), COURSE_D(22), COURSE_D(23),\
                 COURSE_D(24), COURSE_D(25), COURSE_D(26), COURSE_D(27), COURSE_D(28), COURSE_D(29),\
                 COURSE_D(30), COURSE_D(31)                                                         \
               : "l"(desc_a), "l"(desc_b))
  if constexpr (IS_HALF<T>) {
    COURSE_WGMMA("f16");
  } else {
    COURSE_WGMMA("bf16");
  }
#undef COURSE_WGMMA
#undef COURSE_D
}

// Where accumulator j of this thread sits in the 64 x 64 tile (PTX ISA, "wgmma D fragment"): warp w
// owns rows 16w .. 16w + 15; lane l holds rows l / 4 and l / 4 + 8 of them, columns 8 (j / 4) +
// 2 (l % 4) + j % 2.
__device__ __forceinline__ int acc_row(int j) { return 16 * (threadIdx.x / 32) + (threadIdx.x % 32) / 4 + 8 * ((j % 4) / 2); }
__device__ __forceinline__ int acc_col(int j) { return 8 * (j / 4) + 2 * (threadIdx.x % 4) + j % 2; }

template <typename T>
__device__ void wgmma_tile(const T* __restrict__ a, const T* __restrict__ b, float* __restrict__ d, int k) {
  __shared__ __align__(1024) T sa[TILE * TILE];
  __shared__ __align__(1024) T sb[TILE * TILE];
  const int64_t tile = blockIdx.x;
  a += tile * TILE * k, b += tile * TILE * k, d += tile * TILE * TILE;
  float acc[32];
#pragma unroll
  for (int j = 0; j < 32; j++) acc[j] = d[acc_row(j) * TILE + acc_col(j)];
  const uint32_t base_a = static_cast<uint32_t>(__cvta_generic_to_shared(sa));
  const uint32_t base_b = static_cast<uint32_t>(__cvta_generic_to_shared(sb));
  for (int k0 = 0; k0 < k; k0 += TILE) {
    // TODO: your code here.
    //   Hint: The tensor cores read shared memory through the async proxy and run asynchronously to your threads.
    //   Hint: What must happen between your ordinary stores into sa / sb and the first wgmma, and before any
    //   Hint: thread overwrites sa for the next slice? The test checks D = A @ B^T + D to fp32 accumulation
    //   Hint: tolerance, HGMMA in the SASS and wgmma.commit_group / wait_group in your asm.
    (void)base_a; (void)base_b;
  }
#pragma unroll
  for (int j = 0; j < 32; j++) d[acc_row(j) * TILE + acc_col(j)] = acc[j];
}

}  // namespace

extern "C" __global__ void __launch_bounds__(128) wgmma_tile_f16(const half* a, const half* b, float* d, int k) {
  wgmma_tile(a, b, d, k);
}
extern "C" __global__ void __launch_bounds__(128) wgmma_tile_bf16(const __nv_bfloat16* a, const __nv_bfloat16* b,
                                                                  float* d, int k) {
  wgmma_tile(a, b, d, k);
}
