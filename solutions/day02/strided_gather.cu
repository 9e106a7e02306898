// Day 2, exercise 1: a strided read, to measure what coalescing is worth.
//
//   out[i] = in[i * stride]   for 0 <= i < n_out
//
// Writes are contiguous; reads skip `stride` floats. A warp's 32 reads then touch up to 32 different
// 32-byte sectors instead of 4: the sweep in the notebook shows useful bandwidth falling with stride.
#include <course/common.cuh>

extern "C" __global__ void strided_gather(const float* __restrict__ in, float* __restrict__ out,
                                          int64_t n_out, int64_t stride) {
  // BEGIN EXERCISE
  // HINT: one thread per output element, guarded by n_out.
  // HINT: compute the input index in 64 bits: i * stride can exceed 2^31.
  // HINT2: const int64_t i = course::global_thread_id(); if (i < n_out) out[i] = in[...];
  // HINT3: out[i] = in[i * stride];  (both int64_t: no overflow; the writes stay contiguous)
  const int64_t i = course::global_thread_id();
  if (i < n_out) out[i] = in[i * stride];
  // END EXERCISE
}
