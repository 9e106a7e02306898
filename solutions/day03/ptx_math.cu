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
  // HINT: Which PTX instruction computes 2^x approximately on the SFU? Look it up in the PTX ISA
  // HINT: ("Floating Point Instructions"); course/math.cuh explains how inline asm names its operands.
  // HINT2: One asm statement with one float output and one float input, wrapped in a function that
  // HINT2: declares the result and returns it. The instruction is ex2 with the approximate, flush-to-zero,
  // HINT2: 32-bit float qualifiers.
  // HINT3: The constraint letter for a 32-bit float register is f; an output is marked with =. volatile
  // HINT3: keeps the compiler from dropping or moving a statement it thinks it understands.
  // STUB: return 0.f;
  float y;
  asm volatile("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
  // END EXERCISE
}

COURSE_INLINE float my_log2(float x) {
  // BEGIN EXERCISE
  // HINT: The same shape as my_exp2: which instruction is the approximate base-2 logarithm?
  // HINT2: A library call (log2f) would compile, but the exercise is graded on your asm: it is refused.
  // STUB: return 0.f;
  float y;
  asm volatile("lg2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
  // END EXERCISE
}

COURSE_INLINE float my_rsqrt(float x) {
  // BEGIN EXERCISE
  // HINT: The approximate reciprocal square root has its own instruction; same shape again.
  // STUB: return 0.f;
  float y;
  asm volatile("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
  // END EXERCISE
}

COURSE_INLINE float my_rcp(float x) {
  // BEGIN EXERCISE
  // HINT: And the approximate reciprocal: which instruction?
  // STUB: return 0.f;
  float y;
  asm volatile("rcp.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
  // END EXERCISE
}

COURSE_INLINE float my_tanh(float x) {
  // BEGIN EXERCISE
  // HINT: The approximate tanh: check in the ISA which qualifiers it accepts (not all take .ftz).
  // STUB: return 0.f;
  float y;
  asm volatile("tanh.approx.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
  // END EXERCISE
}

// e^x and ln(x), the way softmax and log-sum-exp use the SFU: 2^(x log2 e) and log2(x) ln 2.
COURSE_INLINE float my_exp(float x) {
  // BEGIN EXERCISE
  // HINT: The SFU only has 2^x. How do you write e^x as a power of 2?
  // HINT2: One multiply by a constant, then your my_exp2. The multiply rounds the exponent to float: an
  // HINT2: error of |x| 2^-24 in it, which the check allows e^x on top of ex2's own (APPROX_BOUNDS["exp"]).
  // STUB: return 0.f;
  return my_exp2(x * 1.4426950409f);
  // END EXERCISE
}

COURSE_INLINE float my_log(float x) {
  // BEGIN EXERCISE
  // HINT: The SFU only has log2. Which constant turns log2(x) into ln(x)?
  // STUB: return 0.f;
  return my_log2(x) * 0.6931471806f;
  // END EXERCISE
}

}  // namespace

extern "C" __global__ void ptx_math(const float* __restrict__ x, float* __restrict__ out, int n, int op) {
  // BEGIN EXERCISE
  // HINT: The grid may be smaller than n / 256 blocks: how does each thread reach all its elements? And
  // HINT: how does the one kernel pick which of the seven functions to apply?
  // HINT2: A grid-stride loop (day 1) over the elements; inside it, read, pick the function by op, write.
  // HINT3: op is the same for every thread: a switch on it is one uniform branch, not warp divergence.
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
