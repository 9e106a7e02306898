// Your exercise file. Generated from solutions/day02/silu_and_mul.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: 1f5179e815c975d3
// Day 2, exercise 2: fused SiLU-and-multiply (the SwiGLU gate), vectorised with vec_t.
//
//   in:  [rows, 2 * d]   (x = in[:, :d], y = in[:, d:])
//   out: [rows, d]       out = silu(x) * y,  silu(x) = x / (1 + exp(-x))
//
// Modelled on FlashInfer's act_and_mul_kernel (include/flashinfer/activation.cuh). One block per row;
// each thread moves 16 bytes per load (4 floats or 8 halves) with course::vec_t. Arithmetic is done
// in float for every T. The grader launches grid = (rows,), block = (min(1024, max(32, ceil(d / VEC))),);
// it tests float, half and bfloat16 with d from 1 to 11008, also d not a multiple of VEC (then a row
// start is not 16-byte aligned: a 16-byte access there faults), within each dtype's tolerance of a
// float64 reference, and its benchmark expects 90% of the copy bandwidth (d = 8192).
// The helpers of course/vec_dtypes.cuh, for T = float, __half or __nv_bfloat16 and VEC = 16 / sizeof(T):
//   float xs[VEC]; course::load_as_float(xs, p);   // VEC elements at p (16-byte aligned), one wide load
//   course::store_from_float(q, xs);                // VEC floats rounded to T, one wide store at q
#include <course/vec_dtypes.cuh>

namespace {

COURSE_INLINE float silu(float x) {
  // TODO: your code here.
  //   Hint: The formula is in the header. Which precision should it run in, whatever T is?
  return 0.f;
}

template <typename T>
__device__ void silu_and_mul(T* __restrict__ out, const T* __restrict__ in, int d) {
  constexpr int VEC = 16 / sizeof(T);  // elements per 16-byte access
  const int64_t row = blockIdx.x;
  const T* x = in + row * 2 * d;
  const T* y = x + d;
  T* o = out + row * d;
  // TODO: your code here.
  //   Hint: A row of d elements, a block of threads: how many elements can one thread move per access,
  //   Hint: and when is it allowed to (think of where each row of x, y and out starts)?
}

}  // namespace

extern "C" __global__ void silu_and_mul_f32(float* out, const float* in, int d) {
  silu_and_mul(out, in, d);
}
extern "C" __global__ void silu_and_mul_f16(half* out, const half* in, int d) {
  silu_and_mul(out, in, d);
}
extern "C" __global__ void silu_and_mul_bf16(__nv_bfloat16* out, const __nv_bfloat16* in, int d) {
  silu_and_mul(out, in, d);
}
