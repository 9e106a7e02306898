// Your exercise file. Generated from solutions/day03/bf16_bits.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: 75e2aa8bfb9f972b
// Day 3, exercise 4: type punning. float <-> bfloat16 through their bits, and two bf16 in one word.
//
//   bits[i]   = the bfloat16 nearest to x[i] (ties to even; NaN stays NaN), its 16 bits in a uint32_t
//   back[i]   = that bfloat16 as a float again
//   packed[j] = bits[2j] | bits[2j + 1] << 16   for j < n / 2   (the layout of a __nv_bfloat162: .x low)
//   packed_hw[j] = the same word from the hardware's one-instruction conversion, cvt.rn.bf16x2.f32
//
// A bfloat16 is the top half of a float32: sign, the same 8 exponent bits, 7 of the 23 mantissa bits.
// Narrowing drops the low 16 bits, rounded to nearest, ties to even, and may carry into the exponent
// (the largest floats round up to infinity, as they should). __float_as_uint and __uint_as_float
// reinterpret the same 32 bits (no instruction: the "r" / "f" move of inline asm).
// The library's conversions (__float2bfloat16 ...) are not allowed here; the source must use
// __float_as_uint and an asm statement with cvt.rn.bf16x2.f32. The test compares every output bit for
// bit with numpy's rounding (inputs include ties, NaNs with low-only mantissas, infinities, the largest
// floats and denormals), n from 1 to 2^20 + 1 (odd n: the last element has no pair). The grader
// launches grid = (min(1024, ceil(n / 256)),), block = (256,): the grid may be smaller than n.
#include <course/common.cuh>

namespace {

COURSE_INLINE uint32_t float_to_bf16_bits(float x) {
  // TODO: your code here.
  //   Hint: Dropping the low 16 bits truncates. What could you add to the 32-bit pattern first so that the
  //   Hint: truncation rounds to nearest instead, and how would a tie then go to the even side?
  //   Hint: Which input must not go through that arithmetic at all?
  return 0;
}

COURSE_INLINE float bf16_bits_to_float(uint32_t b) {
  // TODO: your code here.
  //   Hint: Widening is exact: where do the 16 bits go in the float, and what fills the rest?
  return 0.f;
}

}  // namespace

extern "C" __global__ void bf16_bits(const float* __restrict__ x, uint32_t* __restrict__ bits,
                                     float* __restrict__ back, uint32_t* __restrict__ packed,
                                     uint32_t* __restrict__ packed_hw, int64_t n) {
  // TODO: your code here.
  //   Hint: Two jobs of different lengths: n elements (bits, back) and n / 2 pairs (packed, packed_hw).
  //   Hint: Which half of a packed word holds the even element?
}
