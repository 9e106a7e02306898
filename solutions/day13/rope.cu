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
  // BEGIN EXERCISE
  // HINT: The header gives the angle and the rotation. Which single call yields both sine and cosine, and how
  // HINT: is theta^x computed with the hardware's base-2 exponent?
  // HINT2: Three steps: the pair's frequency (one exp2f of a product with log2_theta), sine and cosine of the
  // HINT2: position times it (one sincosf), then the rotation of (x1, x2).
  // HINT3: Both new values need the OLD x1 and x2: compute the first into a temporary before overwriting
  // HINT3: anything. HEAD_DIM is a compile-time constant, so -2 / HEAD_DIM folds away.
  const float freq = exp2f(-2.f * static_cast<float>(i) / HEAD_DIM * log2_theta);
  float s, c;
  sincosf(p * freq, &s, &c);
  const float r1 = x1 * c - x2 * s;
  x2 = x2 * c + x1 * s;
  x1 = r1;
  // END EXERCISE
}

// Rotate half: pair i is (x[i], x[i + HEAD_DIM / 2]).
template <typename T, int HEAD_DIM, int VEC, int BDY>
__device__ __forceinline__ void rope(T* __restrict__ x, const int* __restrict__ pos, int heads,
                                     int64_t token_stride, float log2_theta) {
  constexpr int HALF = HEAD_DIM / 2;
  static_assert(HALF % VEC == 0, "VEC must divide HEAD_DIM / 2");
  static_assert(VEC * sizeof(T) <= 16, "a vector is at most 16 bytes");
  // BEGIN EXERCISE
  // HINT: Thread (tx, ty) owns VEC pairs of one head of one token (header). Where do its VEC first elements and
  // HINT: their VEC partners lie, and how few memory instructions can move them?
  // HINT2: Find the head (return if it is past `heads`), the head's start in x (int64_t), the position as
  // HINT2: float and the first pair; one vector load of the VEC first elements and one of their partners half
  // HINT2: a head later; an unrolled loop rotating each pair in float; two vector stores.
  // HINT3: VEC is a template parameter, so the unrolled j loop keeps a[] and b[] in registers.
  const int head = blockIdx.y * BDY + threadIdx.y;
  if (head >= heads) return;
  T* h = x + blockIdx.x * token_stride + static_cast<int64_t>(head) * HEAD_DIM;
  const float p = static_cast<float>(pos[blockIdx.x]);
  const int i0 = threadIdx.x * VEC;
  course::vec_t<T, VEC> a, b;
  a.load(h + i0);
  b.load(h + HALF + i0);
#pragma unroll
  for (int j = 0; j < VEC; ++j) {
    float x1 = course::to_float(a[j]), x2 = course::to_float(b[j]);
    rotate<HEAD_DIM>(x1, x2, i0 + j, p, log2_theta);
    a[j] = course::from_float<T>(x1);
    b[j] = course::from_float<T>(x2);
  }
  a.store(h + i0);
  b.store(h + HALF + i0);
  // END EXERCISE
}

// Interleaved: pair i is (x[2i], x[2i + 1]). Thread tx's VEC pairs are the 2 * VEC consecutive
// elements from 2 * i0: two vectors, v[0] and v[1]; element k of them is v[k / VEC][k % VEC].
template <typename T, int HEAD_DIM, int VEC, int BDY>
__device__ __forceinline__ void rope_interleaved(T* __restrict__ x, const int* __restrict__ pos, int heads,
                                                 int64_t token_stride, float log2_theta) {
  static_assert((HEAD_DIM / 2) % VEC == 0, "VEC must divide HEAD_DIM / 2");
  static_assert(VEC * sizeof(T) <= 16, "a vector is at most 16 bytes");
  // BEGIN EXERCISE
  // HINT: The same threads and pairs as rope, but pair i is now two adjacent elements. Where do this thread's
  // HINT: 2 * VEC elements lie, and which frequency does each of its pairs use?
  // HINT2: As rope, with the 2 * VEC consecutive elements moved as two vectors: in the unrolled loop, pair j is
  // HINT2: elements 2j and 2j + 1 of the two vectors side by side, rotated with the frequency of pair i0 + j.
  // HINT3: with VEC = 1 a pair straddles the two vectors (v[0][0], v[1][0]); k / VEC and k % VEC
  // HINT3: handle that too, and fold to constants in the unrolled loop (no local memory).
  const int head = blockIdx.y * BDY + threadIdx.y;
  if (head >= heads) return;
  T* h = x + blockIdx.x * token_stride + static_cast<int64_t>(head) * HEAD_DIM;
  const float p = static_cast<float>(pos[blockIdx.x]);
  const int i0 = threadIdx.x * VEC;
  course::vec_t<T, VEC> v[2];
  v[0].load(h + 2 * i0);
  v[1].load(h + 2 * i0 + VEC);
#pragma unroll
  for (int j = 0; j < VEC; ++j) {
    T& e1 = v[2 * j / VEC][2 * j % VEC];
    T& e2 = v[(2 * j + 1) / VEC][(2 * j + 1) % VEC];
    float x1 = course::to_float(e1), x2 = course::to_float(e2);
    rotate<HEAD_DIM>(x1, x2, i0 + j, p, log2_theta);
    e1 = course::from_float<T>(x1);
    e2 = course::from_float<T>(x2);
  }
  v[0].store(h + 2 * i0);
  v[1].store(h + 2 * i0 + VEC);
  // END EXERCISE
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
