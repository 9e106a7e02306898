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
  // HINT: the frequency of pair i is theta^(-2i / HEAD_DIM) = exp2f(-2i / HEAD_DIM * log2_theta);
  // HINT: sincosf(p * freq, &s, &c) gives both sine and cosine; then rotate (x1, x2) by the angle.
  // HINT2: three steps: freq (one exp2f), s and c (one sincosf), then x1' = x1 c - x2 s and
  // HINT2: x2' = x2 c + x1 s. HEAD_DIM is a compile-time constant: -2.f / HEAD_DIM folds away.
  // HINT3: keep the old x1 for the second line: const float r1 = x1 * c - x2 * s;
  // HINT3: x2 = x2 * c + x1 * s; x1 = r1;
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
  // HINT: find this thread's head (blockIdx.y * BDY + threadIdx.y; leave if it is >= heads), its
  // HINT: token's row and position, and its first pair i0 = threadIdx.x * VEC. The VEC elements at
  // HINT: h + i0 and their VEC partners at h + HALF + i0 are two course::vec_t<T, VEC>: one wide
  // HINT: load and one wide store each. Rotate each pair in float with rotate<HEAD_DIM>.
  // HINT2: h = x + blockIdx.x * token_stride + (int64_t)head * HEAD_DIM; p = (float)pos[blockIdx.x];
  // HINT2: load a (h + i0) and b (h + HALF + i0); #pragma unroll a loop j < VEC over the pairs
  // HINT2: (a[j], b[j]) of index i0 + j: to_float, rotate, from_float<T> back; store a and b.
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
  // HINT: the same threads and pairs as rope (pairs i0 .. i0 + VEC - 1), only the elements of
  // HINT: pair i are x[2i] and x[2i + 1]: this thread's 2 * VEC elements are consecutive, from
  // HINT: h + 2 * i0. Move them as two course::vec_t<T, VEC> (v[0] at h + 2 * i0, v[1] right after).
  // HINT2: head, h, p and i0 as in rope; load v[0], v[1]; #pragma unroll j < VEC: pair j is the
  // HINT2: elements k = 2j and k + 1 of [v[0] | v[1]], i.e. v[k / VEC][k % VEC]: to_float, rotate
  // HINT2: with index i0 + j (the same frequency as rope's pair i0 + j), from_float<T>; store both.
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
