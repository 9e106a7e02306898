// Your exercise file. Generated from solutions/day03/ptx_math.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: 92488b2a6f5d5270
// Day 3, exercise 1: the GPU's approximate math instructions through PTX inline asm.
//
//   out[i] = f(x[i]),  f = 2^x (op 0), log2(x) (op 1), 1/sqrt(x) (op 2), 1/x (op 3), tanh(x) (op 4),
//                      e^x (op 5), ln(x) (op 6)
//
// Each my_* function is one line of inline PTX (course/math.cuh explains the syntax and the
// constraint letters, and has the course's own versions: course::math::ptx_exp2 and friends; write
// yours here without looking). Graded on the asm: a library call (exp2f, log2f, rsqrtf, __fdividef,
// tanhf, ...) or a course::math helper in this file fails, and the SASS must show the five MUFU ops.
// The check compares with numpy in float64 and allows each instruction the error the PTX ISA states
// for it (APPROX_BOUNDS in grader/exercises/day03.py). The grader launches
// grid = (min(1024, ceil(n / 256)),), block = (256,).
#include <course/common.cuh>

namespace {

COURSE_INLINE float my_exp2(float x) {
  // TODO: your code here.
  //   Hint: Which PTX instruction computes 2^x approximately on the SFU? Look it up in the PTX ISA
  //   Hint: ("Floating Point Instructions"); course/math.cuh explains how inline asm names its operands.
  return 0.f;
}

COURSE_INLINE float my_log2(float x) {
  // TODO: your code here.
  //   Hint: The same shape as my_exp2: which instruction is the approximate base-2 logarithm?
  return 0.f;
}

COURSE_INLINE float my_rsqrt(float x) {
  // TODO: your code here.
  //   Hint: The approximate reciprocal square root has its own instruction; same shape again.
  return 0.f;
}

COURSE_INLINE float my_rcp(float x) {
  // TODO: your code here.
  //   Hint: And the approximate reciprocal: which instruction?
  return 0.f;
}

COURSE_INLINE float my_tanh(float x) {
  // TODO: your code here.
  //   Hint: The approximate tanh: check in the ISA which qualifiers it accepts (not all take .ftz).
  return 0.f;
}

// e^x and ln(x), the way softmax and log-sum-exp use the SFU: 2^(x log2 e) and log2(x) ln 2.
COURSE_INLINE float my_exp(float x) {
  // TODO: your code here.
  //   Hint: The SFU only has 2^x. How do you write e^x as a power of 2?
  return 0.f;
}

COURSE_INLINE float my_log(float x) {
  // TODO: your code here.
  //   Hint: The SFU only has log2. Which constant turns log2(x) into ln(x)?
  return 0.f;
}

}  // namespace

extern "C" __global__ void ptx_math(const float* __restrict__ x, float* __restrict__ out, int n, int op) {
  // TODO: your code here.
  //   Hint: The grid may be smaller than n / 256 blocks: how does each thread reach all its elements? And
  //   Hint: how does the one kernel pick which of the seven functions to apply?
}
