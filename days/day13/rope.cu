// Your exercise file. Generated from solutions/day13/rope.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: 61ae1174269df4b2
// Day 13: rotary position embedding (RoPE), a kernel family that the JIT specialises.
//
//   x: tokens rows; row t starts at x + t * token_stride and holds `heads` heads of HEAD_DIM elements
//      (more may follow: with a packed [q | k | v] row, heads = q heads + k heads, and v stays as is).
//   In place, for each token t, head h < heads and pair i < HEAD_DIM / 2, with p = pos[t]:
//     angle = p * theta^(-2i / HEAD_DIM)          (theta^(-2i/D) = exp2(-2i/D * log2(theta)))
//     x1' = x1 cos(angle) - x2 sin(angle),   x2' = x2 cos(angle) + x1 sin(angle)
//   Which two elements form pair i is the layout:
//     rotate half (GPT-NeoX, LLaMA in Hugging Face): x1 = x[i], x2 = x[i + HEAD_DIM / 2]   -> rope
//     interleaved (GPT-J, the RoPE paper, Meta's LLaMA): x1 = x[2i], x2 = x[2i + 1]        -> rope_interleaved
//   (FlashInfer: include/flashinfer/pos_enc.cuh, `interleave`.)
//
// The template parameters are what the JIT specialises (kernels/templates/rope.cu.jinja renders one
// extern "C" kernel per choice, and picks the layout): T (half, __nv_bfloat16), HEAD_DIM, VEC and BDY
// (heads per block). A block is (BDX, BDY) threads with BDX = HEAD_DIM / 2 / VEC: thread (tx, ty)
// rotates the VEC pairs i0 = tx * VEC .. i0 + VEC - 1 of head blockIdx.y * BDY + ty, token
// blockIdx.x. The grid is (tokens, ceil(heads / BDY)). Compute in float; use sincosf (accurate for
// large angles), not __sincosf.
#include <course/vec_dtypes.cuh>

namespace day13 {

// Rotates the pair (x1, x2) by the angle of pair i at position p.
template <int HEAD_DIM>
__device__ __forceinline__ void rotate(float& x1, float& x2, int i, float p, float log2_theta) {
  // TODO: your code here.
  //   Hint: The header gives the angle and the rotation. Which single call yields both sine and cosine, and how
  //   Hint: is theta^x computed with the hardware's base-2 exponent?
}

// Rotate half: pair i is (x[i], x[i + HEAD_DIM / 2]).
template <typename T, int HEAD_DIM, int VEC, int BDY>
__device__ __forceinline__ void rope(T* __restrict__ x, const int* __restrict__ pos, int heads,
                                     int64_t token_stride, float log2_theta) {
  constexpr int HALF = HEAD_DIM / 2;
  static_assert(HALF % VEC == 0, "VEC must divide HEAD_DIM / 2");
  static_assert(VEC * sizeof(T) <= 16, "a vector is at most 16 bytes");
  // TODO: your code here.
  //   Hint: Thread (tx, ty) owns VEC pairs of one head of one token (header). Where do its VEC first elements and
  //   Hint: their VEC partners lie, and how few memory instructions can move them?
}

// Interleaved: pair i is (x[2i], x[2i + 1]). Thread tx's VEC pairs are the 2 * VEC consecutive
// elements from 2 * i0: two vectors, v[0] and v[1]; element k of them is v[k / VEC][k % VEC].
template <typename T, int HEAD_DIM, int VEC, int BDY>
__device__ __forceinline__ void rope_interleaved(T* __restrict__ x, const int* __restrict__ pos, int heads,
                                                 int64_t token_stride, float log2_theta) {
  static_assert((HEAD_DIM / 2) % VEC == 0, "VEC must divide HEAD_DIM / 2");
  static_assert(VEC * sizeof(T) <= 16, "a vector is at most 16 bytes");
  // TODO: your code here.
  //   Hint: The same threads and pairs as rope, but pair i is now two adjacent elements. Where do this thread's
  //   Hint: 2 * VEC elements lie, and which frequency does each of its pairs use?
}

}  // namespace day13

#ifndef COURSE_JIT
// Compiled on its own (`python -m grader compile day13`, the tests' first load), the file still
// defines one specialisation of each layout; the JIT defines COURSE_JIT and renders the ones it
// needs instead.
extern "C" __global__ void __launch_bounds__(8 * 4)
rope_f16_d128_v8_h4(half* x, const int* pos, int heads, int64_t token_stride, float log2_theta) {
  day13::rope<half, 128, 8, 4>(x, pos, heads, token_stride, log2_theta);
}
extern "C" __global__ void __launch_bounds__(8 * 4)
rope_interleaved_f16_d128_v8_h4(half* x, const int* pos, int heads, int64_t token_stride, float log2_theta) {
  day13::rope_interleaved<half, 128, 8, 4>(x, pos, heads, token_stride, log2_theta);
}
#endif
