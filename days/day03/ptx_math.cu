// Your exercise file. Generated from solutions/day03/ptx_math.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: 6a9f620c7ff5307c
// Day 3, exercise 1: the GPU's approximate math instructions through PTX inline asm.
//
//   out[i] = f(x[i]),  f = 2^x (op 0), log2(x) (op 1), 1/sqrt(x) (op 2), 1/x (op 3), tanh(x) (op 4)
//
// Each my_* function is one line of inline PTX (course/math.cuh explains the syntax and the
// constraint letters, and has the course's own versions: course::math::ptx_exp2 and friends; write
// yours here without looking). The check compares with numpy in float64 and allows each instruction
// the error the PTX ISA states for it (APPROX_BOUNDS in grader/exercises/day03.py). The grader
// launches grid = (min(1024, ceil(n / 256)),), block = (256,).
#include <course/common.cuh>

namespace {

COURSE_INLINE float my_exp2(float x) {
  // TODO: your code here.
  //   Hint: asm volatile("ex2.approx.ftz.f32 %0, %1;" : "=f"(out) : "f"(in)); then return out.
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

}  // namespace

extern "C" __global__ void ptx_math(const float* __restrict__ x, float* __restrict__ out, int n, int op) {
  // TODO: your code here.
  //   Hint: a grid-stride loop over i < n (the grid may be smaller than n / 256 blocks);
  //   Hint: switch (op) { case 0: my_exp2 ... case 4: my_tanh } and write out[i].
}
