// Your exercise file. Generated from solutions/day03/gelu_tanh.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: fd25e2405074aa08
// Day 3, exercise 3: GELU with the tanh approximation, on the SFU's tanh.approx.
//
//   out[i] = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))),  x = in[i],  for 0 <= i < n
//
// Modelled on FlashInfer's gelu_tanh (include/flashinfer/activation.cuh). Arithmetic in float for
// both dtypes; tanh is your tanh_approx (one MUFU.TANH, relative error up to 2^-11: the check
// allows that error, carried to the output as 0.5 |x| * 2^-11). Memory access as on day 2: 16 bytes
// per load with course::vec_t (4 floats or 8 halves), then the n % VEC elements left one at a time.
// The grader launches block = (256,) and grid = (min(4096, ceil(n / (256 * VEC))),): a grid-stride
// loop covers the rest.
#include <course/vec_dtypes.cuh>

namespace {

// tanh(x) on the SFU (SASS: MUFU.TANH), relative error up to 2^-11.
COURSE_INLINE float tanh_approx(float x) {
  // TODO: your code here.
  //   Hint: one line of inline PTX, as in ptx_math: tanh.approx.f32 (there is no .ftz form).
  return 0.f;
}

COURSE_INLINE float gelu_tanh(float x) {
  // TODO: your code here.
  //   Hint: sqrt(2/pi) = 0.7978845608f; tanh with your tanh_approx.
  return 0.f;
}

template <typename T>
__device__ void gelu_tanh_kernel(T* __restrict__ out, const T* __restrict__ in, int64_t n) {
  // TODO: your code here.
  //   Hint: VEC = the elements of T in 16 bytes (4 floats, 8 halves): one vec_t access each.
  //   Hint: chunks of VEC elements: for (int64_t c = course::global_thread_id(); c < n / VEC;
  //   Hint: c += course::grid_threads()) with course::load_as_float / store_from_float at c * VEC;
  //   Hint: then the last n % VEC elements one at a time (to_float / from_float), by the first threads.
}

}  // namespace

extern "C" __global__ void gelu_tanh_f32(float* out, const float* in, int64_t n) {
  gelu_tanh_kernel(out, in, n);
}
extern "C" __global__ void gelu_tanh_f16(half* out, const half* in, int64_t n) {
  gelu_tanh_kernel(out, in, n);
}
