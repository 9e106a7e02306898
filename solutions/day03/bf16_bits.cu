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
  // BEGIN EXERCISE
  // HINT: Dropping the low 16 bits truncates. What could you add to the 32-bit pattern first so that the
  // HINT: truncation rounds to nearest instead, and how would a tie then go to the even side?
  // HINT: Which input must not go through that arithmetic at all?
  // HINT2: The float's bits as an integer; a NaN test on them (a NaN keeps its top half and must stay a
  // HINT2: NaN); otherwise add a rounding amount that depends on the lowest kept bit, then shift.
  // HINT3: Adding just under half (0x7fff) carries into the kept part only when the dropped part is more
  // HINT3: than half; adding one more when the kept part is odd makes an exact tie (0x8000) carry only
  // HINT3: then: ties to even. A NaN whose mantissa lies in the low 16 bits only would become infinity:
  // HINT3: set the quiet bit (0x40 of the top half) instead.
  // STUB: return 0;
  const uint32_t u = __float_as_uint(x);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (u >> 16) | 0x40u;
  return (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
  // END EXERCISE
}

COURSE_INLINE float bf16_bits_to_float(uint32_t b) {
  // BEGIN EXERCISE
  // HINT: Widening is exact: where do the 16 bits go in the float, and what fills the rest?
  // HINT2: One shift, then reinterpret the 32 bits as a float (no conversion instruction).
  // STUB: return 0.f;
  return __uint_as_float(b << 16);
  // END EXERCISE
}

}  // namespace

extern "C" __global__ void bf16_bits(const float* __restrict__ x, uint32_t* __restrict__ bits,
                                     float* __restrict__ back, uint32_t* __restrict__ packed,
                                     uint32_t* __restrict__ packed_hw, int64_t n) {
  // BEGIN EXERCISE
  // HINT: Two jobs of different lengths: n elements (bits, back) and n / 2 pairs (packed, packed_hw).
  // HINT: Which half of a packed word holds the even element?
  // HINT2: Two grid-stride loops: over the elements (convert, store the bits and the float back), then
  // HINT2: over the pairs (your two conversions combined into one word, and the hardware's instruction in
  // HINT2: inline asm for the same pair).
  // HINT3: Element 2j is the LOW half (little-endian, as .x of a __nv_bfloat162). cvt.rn.bf16x2.f32 d, a, b
  // HINT3: puts a in the HIGH half and b in the low half: mind the order of its two inputs.
  for (int64_t i = course::global_thread_id(); i < n; i += course::grid_threads()) {
    const uint32_t b = float_to_bf16_bits(x[i]);
    bits[i] = b;
    back[i] = bf16_bits_to_float(b);
  }
  for (int64_t j = course::global_thread_id(); j < n / 2; j += course::grid_threads()) {
    const float lo = x[2 * j], hi = x[2 * j + 1];
    packed[j] = float_to_bf16_bits(lo) | float_to_bf16_bits(hi) << 16;
    uint32_t w;
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(w) : "f"(hi), "f"(lo));
    packed_hw[j] = w;
  }
  // END EXERCISE
}
