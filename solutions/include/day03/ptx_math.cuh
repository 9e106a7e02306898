// day03/ptx_math.cuh: the course's fast math through PTX (day 3, exercise 2), which course/math.cuh
// gives later days (softmax, attention). See course/math.cuh for the inline-asm syntax and accuracy.
#pragma once
#include <cuda_fp16.h>

#include <course/common.cuh>

namespace course {
namespace math {

// 2^x (SASS: MUFU.EX2)
COURSE_INLINE float ptx_exp2(float x) {
  float y;
  asm volatile("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

// log2(x) (SASS: MUFU.LG2)
COURSE_INLINE float ptx_log2(float x) {
  float y;
  asm volatile("lg2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

// 1 / sqrt(x) (SASS: MUFU.RSQ)
COURSE_INLINE float ptx_rsqrt(float x) {
  float y;
  asm volatile("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

// 1 / x (SASS: MUFU.RCP)
COURSE_INLINE float ptx_rcp(float x) {
  float y;
  asm volatile("rcp.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

// tanh(x) (SASS: MUFU.TANH, sm_75 and newer). No .ftz form: subnormal inputs pass through (tanh(x) ~ x).
COURSE_INLINE float ptx_tanh(float x) {
  float y;
  asm volatile("tanh.approx.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

// tanh of one half. PTX has no "half" register kind: a half travels as its 16 bits in a .b16
// register ("h"), so we pass its bits (__half_as_ushort) and read the result's bits back.
COURSE_INLINE half ptx_tanh(half x) {
  uint16_t y;
  asm volatile("tanh.approx.f16 %0, %1;" : "=h"(y) : "h"(__half_as_ushort(x)));
  return __ushort_as_half(y);
}

// tanh of two halves in one instruction. A half2 is 32 bits, so it travels in a .b32 register ("r"):
// type punning reinterprets the same bytes as uint32_t going in and as half2 coming out. No bits
// change; only the C++ type does (as vec_t does for loads and stores).
COURSE_INLINE half2 ptx_tanh(half2 x) {
  uint32_t y;
  const uint32_t bits = *reinterpret_cast<const uint32_t*>(&x);
  asm volatile("tanh.approx.f16x2 %0, %1;" : "=r"(y) : "r"(bits));
  return *reinterpret_cast<const half2*>(&y);
}

}  // namespace math
}  // namespace course
