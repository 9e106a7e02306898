// Your exercise file. Generated from solutions/day03/ptx_math.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: 8049611b70e3c646
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
  //   Hint: one line of inline PTX: asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(out) : "f"(in)); return out.
  return 0.f;
}

COURSE_INLINE float my_log2(float x) {
  // TODO: your code here.
  //   Hint: the same shape as my_exp2, with lg2.approx.ftz.f32.
  return 0.f;
}

COURSE_INLINE float my_rsqrt(float x) {
  // TODO: your code here.
  //   Hint: rsqrt.approx.ftz.f32
  return 0.f;
}

COURSE_INLINE float my_rcp(float x) {
  // TODO: your code here.
  //   Hint: rcp.approx.ftz.f32
  return 0.f;
}

COURSE_INLINE float my_tanh(float x) {
  // TODO: your code here.
  //   Hint: tanh.approx.f32 (no .ftz form exists for tanh).
  return 0.f;
}

// e^x and ln(x), the way softmax and log-sum-exp use the SFU: 2^(x log2 e) and log2(x) ln 2.
COURSE_INLINE float my_exp(float x) {
  // TODO: your code here.
  //   Hint: e^x = 2^(x * log2(e)): one multiply, then your my_exp2. log2(e) = 1.4426950409f.
  return 0.f;
}

COURSE_INLINE float my_log(float x) {
  // TODO: your code here.
  //   Hint: ln(x) = log2(x) * ln(2): your my_log2, then one multiply. ln(2) = 0.6931471806f.
  return 0.f;
}

}  // namespace

extern "C" __global__ void ptx_math(const float* __restrict__ x, float* __restrict__ out, int n, int op) {
  // TODO: your code here.
  //   Hint: a grid-stride loop over i < n (the grid may be smaller than n / 256 blocks);
  //   Hint: switch (op) { case 0: my_exp2 ... case 6: my_log } and write out[i].
}
