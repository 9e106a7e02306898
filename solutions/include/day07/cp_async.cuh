// day07/cp_async.cuh: the course's cp.async instructions (day 7, exercise 1): commit and wait for
// groups, and one copy of 4, 8 or 16 bytes with a src-size operand, on which course/cp_async.cuh builds
// load_128b / load_64b / load_32b / load_128b_zfill and wait_all for exercise 2 on and later days.
// The same contract as a student's days/day07/cp_async.cuh, which stands in for it until it is released.
#pragma once
#include <course/common.cuh>

namespace course {
namespace cp_async {

// Close the group of copies this thread issued since the previous commit (possibly an empty group:
// committing on every pipeline step, even past the end of the data, keeps wait_group's count right).
COURSE_INLINE void commit_group() {
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 800)
  asm volatile("cp.async.commit_group;\n" ::);
#endif
}

// Wait until at most `n` of this thread's committed groups are still pending. The "memory" clobber
// keeps the compiler from moving reads of the copied bytes above the wait: a thread that reads only
// its own copies (day 11's decode pipeline) has no __syncthreads to do that for it.
template <int n>
COURSE_INLINE void wait_group() {
  static_assert(n >= 0, "wait_group<n> needs n >= 0");
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 800)
  asm volatile("cp.async.wait_group %0;\n" ::"n"(n) : "memory");
#endif
}

// One cp.async of Bytes (4, 8 or 16) bytes to smem_ptr of which the first src_bytes (0..Bytes) are read
// from gmem_ptr, the rest zeroed; both addresses aligned to Bytes. 16-byte copies bypass L1 (.cg), 4 and
// 8 must go through it (.ca). Below sm_80: an ordinary load and store, so kernels still compile and run.
template <int Bytes>
COURSE_INLINE void copy_zfill(void* smem_ptr, const void* gmem_ptr, int src_bytes) {
  static_assert(Bytes == 4 || Bytes == 8 || Bytes == 16, "cp.async copies 4, 8 or 16 bytes");
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 800)
  const uint32_t dst = static_cast<uint32_t>(__cvta_generic_to_shared(smem_ptr));
  if constexpr (Bytes == 16) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n"
                 ::"r"(dst), "l"(gmem_ptr), "r"(src_bytes) : "memory");
  } else {
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n"
                 ::"r"(dst), "l"(gmem_ptr), "n"(Bytes), "r"(src_bytes) : "memory");
  }
#else
  unsigned char* d = static_cast<unsigned char*>(smem_ptr);
  const unsigned char* s = static_cast<const unsigned char*>(gmem_ptr);
#pragma unroll
  for (int i = 0; i < Bytes; ++i) d[i] = i < src_bytes ? s[i] : 0;
#endif
}

}  // namespace cp_async
}  // namespace course
