// course/fastdiv.cuh: division by a divisor known only at run time, as a multiply (day 11).
//
// Modelled on FlashInfer's include/flashinfer/fastdiv.cuh. `n / d` with d in a register compiles to
// about twenty instructions (I2F.RP, MUFU.RCP, F2I, IMAD.HI and corrections in SASS): too many for a
// loop that divides once per token, as a paged KV cache does (page = t / page_size). When d is the
// same for a whole kernel, compute once a magic number m and a shift s such that for every n < 2^31
//   n / d == (umulhi(n, m) + n) >> s,     s = ceil(log2(d)),  m = floor(2^32 (2^s - d) / d) + 1
// (Granlund and Montgomery, "Division by invariant integers using multiplication", 1994: m + 2^32 is
// the 33-bit reciprocal of d rounded up; umulhi(n, m) + n is n (m + 2^32) / 2^32 without overflow while
// n < 2^31). Then each division is one IMAD.HI, one IADD and one shift; a power of two gives m = 1.
#pragma once
#include "common.cuh"

namespace course {

struct uint_fastdiv {
  uint32_t d, m, s;

  // Once per kernel: the magic number of a divisor 1 <= d <= 2^31. m - 1 = 2^32 (2^s - d) / d is long
  // division, one bit a step, in 32-bit registers (r = 2^s - d < d); a 64-bit `/` would be a call to a
  // library routine, across which the caller's live registers spill to the stack.
  __device__ explicit uint_fastdiv(uint32_t divisor) : d(divisor), m(0), s(0) {
    while ((1u << s) < d) ++s;
    uint32_t r = (1u << s) - d;
    for (int bit = 0; bit < 32; ++bit) {
      r <<= 1;
      m <<= 1;
      if (r >= d) r -= d, m |= 1;
    }
    m += 1;
  }

  // n / d, for 0 <= n < 2^31.
  COURSE_INLINE uint32_t div(uint32_t n) const { return (__umulhi(n, m) + n) >> s; }

  // q = n / d and r = n % d, for 0 <= n < 2^31.
  COURSE_INLINE void divmod(uint32_t n, uint32_t& q, uint32_t& r) const {
    q = div(n);
    r = n - q * d;
  }
};

}  // namespace course
