// Your exercise file. Generated from solutions/day13/rope.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: 36edfca604209ff3
// Day 13: rotary position embedding (RoPE), a kernel family that the JIT specialises.
//
//   x: tokens rows; row t starts at x + t * token_stride and holds `heads` heads of HEAD_DIM elements
//      (more may follow: with a packed [q | k | v] row, heads = q heads + k heads, and v stays as is).
//   In place, for each token t, head h < heads and i < HEAD_DIM / 2, with p = pos[t]:
//     angle = p * theta^(-2i / HEAD_DIM)          (theta^(-2i/D) = exp2(-2i/D * log2(theta)))
//     x1 = x[i], x2 = x[i + HEAD_DIM / 2]
//     x[i] = x1 cos(angle) - x2 sin(angle),   x[i + HEAD_DIM / 2] = x2 cos(angle) + x1 sin(angle)
//   (LLaMA's "rotate half" layout; FlashInfer: include/flashinfer/pos_enc.cuh.)
//
// The template parameters are what the JIT specialises (kernels/templates/rope.cu.jinja renders one
// extern "C" kernel per choice): T (half, __nv_bfloat16), HEAD_DIM, VEC (elements per vector) and BDY
// (heads per block). A block is (BDX, BDY) threads with BDX = HEAD_DIM / 2 / VEC: thread (tx, ty)
// rotates the VEC pairs starting at i = tx * VEC of head blockIdx.y * BDY + ty, token blockIdx.x.
// The grid is (tokens, ceil(heads / BDY)). Compute in float; use sincosf (accurate for large angles),
// not __sincosf.
#include <course/vec_dtypes.cuh>

namespace day13 {

template <typename T, int HEAD_DIM, int VEC, int BDY>
__device__ __forceinline__ void rope(T* __restrict__ x, const int* __restrict__ pos, int heads,
                                     int64_t token_stride, float log2_theta) {
  constexpr int HALF = HEAD_DIM / 2;
  static_assert(HALF % VEC == 0, "VEC must divide HEAD_DIM / 2");
  static_assert(VEC * sizeof(T) <= 16, "a vector is at most 16 bytes");
  const int head = blockIdx.y * BDY + threadIdx.y;
  if (head >= heads) return;
  T* h = x + blockIdx.x * token_stride + static_cast<int64_t>(head) * HEAD_DIM;
  const float p = static_cast<float>(pos[blockIdx.x]);
  const int i0 = threadIdx.x * VEC;
  // TODO: your code here.
  //   Hint: load the VEC elements at h + i0 and the VEC partners at h + HALF + i0 as two
  //   Hint: course::vec_t<T, VEC> (one wide load each). For each j < VEC: the frequency of pair
  //   Hint: i = i0 + j is exp2f(-2.f * i / HEAD_DIM * log2_theta); sincosf(p * freq, &s, &c); rotate
  //   Hint: the float values (course::to_float) and write them back (course::from_float<T>) into the
  //   Hint: two vectors; then store both with one wide store each. HEAD_DIM and VEC are compile-time
  //   Hint: constants here: #pragma unroll the j loop, and the compiler folds 2 / HEAD_DIM away.
}

}  // namespace day13

#ifndef COURSE_JIT
// Compiled on its own (`python -m grader compile day13`, the tests' first load), the file still
// defines one specialisation; the JIT defines COURSE_JIT and renders the ones it needs instead.
extern "C" __global__ void __launch_bounds__(64 * 4)
rope_f16_d128_v1_h4(half* x, const int* pos, int heads, int64_t token_stride, float log2_theta) {
  day13::rope<half, 128, 1, 4>(x, pos, heads, token_stride, log2_theta);
}
#endif
