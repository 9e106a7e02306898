// course/math.cuh: fast math through PTX inline assembly, and the warp shuffle (day 3).
//
// Modelled on FlashInfer's include/flashinfer/math.cuh. The CUDA math library's expf, logf, tanhf are
// accurate to 1-2 ulp but cost several instructions each; the GPU's special function unit (SFU, the
// MUFU.* instructions in SASS) computes 2^x, log2(x), 1/sqrt(x), 1/x and tanh(x) approximately in one
// instruction. PTX names them *.approx; wrapping each in a line of inline asm makes sure we get exactly
// that instruction (day 3's exercise 2). Later days (softmax, attention) use them: exp(x) = ptx_exp2(x * log2e).
//
// Inline asm in one line:   asm volatile("sin.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
//   - the string is PTX; %0, %1, ... are the operands, numbered outputs first, then inputs;
//   - after the first ':' the outputs, after the second the inputs; each is "constraint"(C++ value);
//   - the constraint letter says which kind of PTX register holds the value:
//       "f"  a .f32 register (float)            "d"  a .f64 register (double)
//       "r"  a .b32 / .u32 / .s32 register      "h"  a .b16 / .u16 register (one half's bits)
//       "l"  a .b64 / .u64 register (64-bit integers, and pointers such as global addresses)
//   - "=" marks an output (written by the asm), "+" one that is read and written;
//   - `volatile` tells the compiler not to delete the asm or merge two identical ones (FlashInfer's
//     habit; pure math would also be correct without it, and the compiler could then remove repeated
//     calls). It is NOT a barrier: ordinary loads and stores may still move across a volatile asm.
//     An asm that reads or writes memory the compiler cannot see in its operands (a release store,
//     a fence, cp.async) also needs the "memory" clobber, its fourth section: asm volatile("..." ::: "memory").
// .approx asks for the SFU's approximation; .ftz flushes subnormal inputs and results to zero, which
// saves instructions around the SFU (without .ftz the compiler adds scaling to handle subnormals).
// Accuracy (the PTX ISA's bounds; grader/exercises/day03.py: APPROX_BOUNDS, checked by exercise 1):
// ex2 2 ulp, lg2 2^-22 (absolute near x = 1), rsqrt 2^-22.9 relative, rcp 1 ulp; tanh.approx.f32
// 2^-11 relative (about 11 bits: plenty for activations and fp16 / bf16 outputs, not for fp32 math);
// tanh.approx.f16 / .f16x2 about 2^-11 absolute, i.e. about 1 ulp of a half.
#pragma once
#include <cuda_fp16.h>

#include <cuda/std/limits>

#include "common.cuh"

namespace course {
namespace math {

constexpr float log2e = 1.44269504088896340736f;  // log2(e): exp(x) = 2^(x * log2e)
constexpr float loge2 = 0.69314718055994530942f;  // ln(2):   log(x) = log2(x) * loge2
constexpr float inf = cuda::std::numeric_limits<float>::infinity();

// The value of lane (this lane XOR lane_mask), for all 32 lanes of the warp (SASS: SHFL.BFLY).
// The PTX behind it: shfl.sync.bfly.b32 d, x, lane_mask, 0x1f, 0xffffffff. Every lane of the mask
// must execute the same call. Steps of lane_mask = 16, 8, 4, 2, 1 make a butterfly reduction, after
// which every lane holds the result.
COURSE_INLINE float shfl_xor_sync(float x, int lane_mask) {
  return __shfl_xor_sync(0xffffffffu, x, lane_mask);
}

}  // namespace math
}  // namespace course

// ptx_exp2, ptx_log2, ptx_rsqrt, ptx_rcp (float) and ptx_tanh (float, half, half2), each one line of
// inline PTX (the SASS name in brackets: MUFU.EX2, .LG2, .RSQ, .RCP, .TANH), are day 3's exercise 2:
// the course's versions come from day 3's headers once you pass it.
#if __has_include(<day03/ptx_math.cuh>)
#include <day03/ptx_math.cuh>
#else
namespace course {
namespace math {
template <typename T> COURSE_INLINE T ptx_exp2(T x) {
  COURSE_LOCKED(T, "course::math::ptx_exp2", "day03", "ptx_math.cu");
  return x;
}
template <typename T> COURSE_INLINE T ptx_log2(T x) {
  COURSE_LOCKED(T, "course::math::ptx_log2", "day03", "ptx_math.cu");
  return x;
}
template <typename T> COURSE_INLINE T ptx_rsqrt(T x) {
  COURSE_LOCKED(T, "course::math::ptx_rsqrt", "day03", "ptx_math.cu");
  return x;
}
template <typename T> COURSE_INLINE T ptx_rcp(T x) {
  COURSE_LOCKED(T, "course::math::ptx_rcp", "day03", "ptx_math.cu");
  return x;
}
template <typename T> COURSE_INLINE T ptx_tanh(T x) {
  COURSE_LOCKED(T, "course::math::ptx_tanh", "day03", "ptx_math.cu");
  return x;
}
}  // namespace math
}  // namespace course
#endif
