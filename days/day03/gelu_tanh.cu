// Your exercise file. Generated from solutions/day03/gelu_tanh.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: 8114cc52d3845d8e
// Day 3, exercise 3: GELU with the tanh approximation, on the SFU's tanh.approx.
//
//   out[i] = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))),  x = in[i],  for 0 <= i < n
//
// Modelled on FlashInfer's gelu_tanh (include/flashinfer/activation.cuh). Arithmetic in float for
// both dtypes (float, half); tanh is your tanh_approx (one MUFU.TANH, relative error up to 2^-11: the
// check allows that error, carried to the output as 0.5 |x| * 2^-11; tanhf and course::math are not
// allowed). Memory access as on day 2: 16 bytes per load with course::vec_t (4 floats or 8 halves;
// the SASS must show LDG.E.128), and n need not be a multiple of that (n = 1, 7, 9, 2^20 + 3 ...):
// the elements past the last whole vector are handled one at a time. in and out are 16-byte aligned.
// The grader launches block = (256,) and grid = (min(4096, ceil(n / (256 * VEC))),): the grid may be
// smaller than the work.
#include <course/vec_dtypes.cuh>

namespace {

// tanh(x) on the SFU (SASS: MUFU.TANH), relative error up to 2^-11.
COURSE_INLINE float tanh_approx(float x) {
  // TODO: your code here.
  //   Hint: ptx_math's my_tanh again: one instruction, which the technique check looks for by name.
  return 0.f;
}

COURSE_INLINE float gelu_tanh(float x) {
  // TODO: your code here.
  //   Hint: The formula is in the header; sqrt(2/pi) is a constant you can write out (0.7978845608).
  return 0.f;
}

template <typename T>
__device__ void gelu_tanh_kernel(T* __restrict__ out, const T* __restrict__ in, int64_t n) {
  // TODO: your code here.
  //   Hint: Split the array into whole 16-byte vectors and a remainder shorter than one vector: who takes
  //   Hint: the vectors (the grid may be smaller than their number), and who takes the remainder?
}

}  // namespace

extern "C" __global__ void gelu_tanh_f32(float* out, const float* in, int64_t n) {
  gelu_tanh_kernel(out, in, n);
}
extern "C" __global__ void gelu_tanh_f16(half* out, const half* in, int64_t n) {
  gelu_tanh_kernel(out, in, n);
}
