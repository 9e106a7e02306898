// Day 3, exercise 4: type punning. float <-> bfloat16 through their bits, and two bf16 in one word.
//
//   bits[i]   = the bfloat16 nearest to x[i] (ties to even; NaN stays NaN), its 16 bits in a uint32_t
//   back[i]   = that bfloat16 as a float again
//   packed[j] = bits[2j] | bits[2j + 1] << 16   for j < n / 2   (the layout of a __nv_bfloat162: .x low)
//   packed_hw[j] = the same word from the hardware's one-instruction conversion, cvt.rn.bf16x2.f32
//
// A bfloat16 is the top half of a float32: sign, the same 8 exponent bits, 7 of the 23 mantissa bits.
// Widening is a shift; narrowing drops the low 16 bits, rounded to nearest, ties to even, and may
// carry into the exponent (the largest floats round up to infinity, as they should). __float_as_uint and
// __uint_as_float reinterpret the same 32 bits (no instruction: the "r" / "f" move of inline asm).
// The library's conversions (__float2bfloat16 ...) are not allowed here. The grader launches
// grid = (min(1024, ceil(n / 256)),), block = (256,): a grid-stride loop.
#include <course/common.cuh>

namespace {

COURSE_INLINE uint32_t float_to_bf16_bits(float x) {
  // BEGIN EXERCISE
  // HINT: add just under half of the dropped part (0x7fff), plus 1 when the kept part is odd, then >> 16.
  // HINT: a NaN must stay a NaN: its mantissa may live in the low 16 bits only (rounding would lose it).
  // HINT2: const uint32_t u = __float_as_uint(x); a NaN is (u & 0x7fffffff) > 0x7f800000: return its top
  // HINT2: half with the quiet bit 0x40 set; otherwise add the rounding amount to u and keep the top half.
  // HINT3: return (u + 0x7fff + ((u >> 16) & 1)) >> 16;  -- a tie (low half 0x8000) carries only when odd.
  // STUB: return 0;
  const uint32_t u = __float_as_uint(x);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (u >> 16) | 0x40u;
  return (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
  // END EXERCISE
}

COURSE_INLINE float bf16_bits_to_float(uint32_t b) {
  // BEGIN EXERCISE
  // HINT: the 16 bits become the top half of a float; the low half is zero.
  // STUB: return 0.f;
  return __uint_as_float(b << 16);
  // END EXERCISE
}

}  // namespace

extern "C" __global__ void bf16_bits(const float* __restrict__ x, uint32_t* __restrict__ bits,
                                     float* __restrict__ back, uint32_t* __restrict__ packed,
                                     uint32_t* __restrict__ packed_hw, int64_t n) {
  // BEGIN EXERCISE
  // HINT: a grid-stride loop over the n elements (bits and back), then one over the n / 2 pairs (packed).
  // HINT2: for (i ...) { b = float_to_bf16_bits(x[i]); bits[i] = b; back[i] = bf16_bits_to_float(b); }
  // HINT2: for (j < n / 2 ...) packed[j] = lo | hi << 16, lo from x[2j] and hi from x[2j + 1].
  // HINT2: packed_hw[j]: asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(w) : "f"(..), "f"(..)).
  // HINT3: element 2j is the LOW half: little-endian, as .x of a __nv_bfloat162 (and of a half2).
  // HINT3: cvt.rn.bf16x2.f32 d, a, b puts a in the HIGH half: pass x[2j + 1] first, then x[2j].
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
