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
  // BEGIN EXERCISE
  // HINT: asm volatile("ex2.approx.ftz.f32 %0, %1;" : "=f"(out) : "f"(in)); then return out.
  // STUB: return 0.f;
  float y;
  asm volatile("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
  // END EXERCISE
}

COURSE_INLINE float my_log2(float x) {
  // BEGIN EXERCISE
  // HINT: the same shape as my_exp2, with lg2.approx.ftz.f32.
  // STUB: return 0.f;
  float y;
  asm volatile("lg2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
  // END EXERCISE
}

COURSE_INLINE float my_rsqrt(float x) {
  // BEGIN EXERCISE
  // HINT: rsqrt.approx.ftz.f32
  // STUB: return 0.f;
  float y;
  asm volatile("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
  // END EXERCISE
}

COURSE_INLINE float my_rcp(float x) {
  // BEGIN EXERCISE
  // HINT: rcp.approx.ftz.f32
  // STUB: return 0.f;
  float y;
  asm volatile("rcp.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
  // END EXERCISE
}

COURSE_INLINE float my_tanh(float x) {
  // BEGIN EXERCISE
  // HINT: tanh.approx.f32 (no .ftz form exists for tanh).
  // STUB: return 0.f;
  float y;
  asm volatile("tanh.approx.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
  // END EXERCISE
}

}  // namespace

extern "C" __global__ void ptx_math(const float* __restrict__ x, float* __restrict__ out, int n, int op) {
  // BEGIN EXERCISE
  // HINT: a grid-stride loop over i < n (the grid may be smaller than n / 256 blocks);
  // HINT: switch (op) { case 0: my_exp2 ... case 4: my_tanh } and write out[i].
  for (int64_t i = course::global_thread_id(); i < n; i += course::grid_threads()) {
    const float v = x[i];
    float r;
    switch (op) {
      case 0: r = my_exp2(v); break;
      case 1: r = my_log2(v); break;
      case 2: r = my_rsqrt(v); break;
      case 3: r = my_rcp(v); break;
      default: r = my_tanh(v); break;  // op 4
    }
    out[i] = r;
  }
  // END EXERCISE
}
