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
  // BEGIN EXERCISE
  // HINT: one line of inline PTX: asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(out) : "f"(in)); return out.
  // HINT2: declare `float y;`, then the asm with y as the output ("=f") and x as the input ("f").
  // HINT3: asm volatile("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  // STUB: return 0.f;
  float y;
  asm volatile("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
  // END EXERCISE
}

COURSE_INLINE float my_log2(float x) {
  // BEGIN EXERCISE
  // HINT: the same shape as my_exp2, with lg2.approx.ftz.f32.
  // HINT2: not log2f(x): the exercise is graded on your asm (the library call is forbidden here).
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

// e^x and ln(x), the way softmax and log-sum-exp use the SFU: 2^(x log2 e) and log2(x) ln 2.
COURSE_INLINE float my_exp(float x) {
  // BEGIN EXERCISE
  // HINT: e^x = 2^(x * log2(e)): one multiply, then your my_exp2. log2(e) = 1.4426950409f.
  // HINT2: the multiply rounds x * log2(e) to float: an error of |x| 2^-24 in the exponent, so the
  // HINT2: check allows e^x a relative 2 |x| 2^-24 more than ex2 alone (APPROX_BOUNDS["exp"]).
  // STUB: return 0.f;
  return my_exp2(x * 1.4426950409f);
  // END EXERCISE
}

COURSE_INLINE float my_log(float x) {
  // BEGIN EXERCISE
  // HINT: ln(x) = log2(x) * ln(2): your my_log2, then one multiply. ln(2) = 0.6931471806f.
  // STUB: return 0.f;
  return my_log2(x) * 0.6931471806f;
  // END EXERCISE
}

}  // namespace

extern "C" __global__ void ptx_math(const float* __restrict__ x, float* __restrict__ out, int n, int op) {
  // BEGIN EXERCISE
  // HINT: a grid-stride loop over i < n (the grid may be smaller than n / 256 blocks);
  // HINT: switch (op) { case 0: my_exp2 ... case 6: my_log } and write out[i].
  // HINT2: for (int64_t i = course::global_thread_id(); i < n; i += course::grid_threads())
  // HINT2: { const float v = x[i]; float r; switch (op) { case 0: r = my_exp2(v); break; ... } out[i] = r; }
  // HINT3: op is the same for every thread: the switch costs one uniform branch, not divergence.
  for (int64_t i = course::global_thread_id(); i < n; i += course::grid_threads()) {
    const float v = x[i];
    float r;
    switch (op) {
      case 0: r = my_exp2(v); break;
      case 1: r = my_log2(v); break;
      case 2: r = my_rsqrt(v); break;
      case 3: r = my_rcp(v); break;
      case 4: r = my_tanh(v); break;
      case 5: r = my_exp(v); break;
      default: r = my_log(v); break;  // op 6
    }
    out[i] = r;
  }
  // END EXERCISE
}
