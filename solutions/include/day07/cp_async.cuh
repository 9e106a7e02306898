// Generated from solutions/day07/cp_async.cuh by `python -m grader stubs` (edit that file): the course's version,
// which later days' course headers include and `grader unlock` releases.
// Day 7, exercise 1 (with async_copy.cu): your cp.async instructions, written once, as inline PTX.
// async_copy.cu includes this header from beside it (#include "cp_async.cuh") and is graded on it; the
// later exercises of day 7 (and days 10 to 12) use course/cp_async.cuh's load_128b, load_128b_zfill,
// commit_group, wait_group and wait_all, which are built on these three functions: yours, until the
// course's version (kernels/unlocked/day07/) is released. Keep the names and signatures.
// The PTX ISA's "cp.async" section describes the operands of cp.async.ca/.cg.shared.global,
// cp.async.commit_group and cp.async.wait_group. Include nothing but <course/common.cuh> here.
#pragma once
#include <course/common.cuh>

namespace course {
namespace cp_async {

// Close this thread's group of copies: the copies it issued since its previous commit (possibly none:
// an empty group still counts for wait_group).
COURSE_INLINE void commit_group() {
  asm volatile("cp.async.commit_group;\n" ::);
}

// Wait until at most n of this thread's committed groups are still in flight (groups complete in commit
// order). Reads of the copied bytes must not move above the wait.
template <int n>
COURSE_INLINE void wait_group() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(n) : "memory");
}

// Copy Bytes (4, 8 or 16) bytes from gmem_ptr to smem_ptr asynchronously, with ONE cp.async: the first
// src_bytes (0..Bytes) from gmem_ptr, the rest zeros (nothing past them is read). Both addresses are
// aligned to Bytes.
template <int Bytes>
COURSE_INLINE void copy_zfill(void* smem_ptr, const void* gmem_ptr, int src_bytes) {
  const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(smem_ptr));
  if constexpr (Bytes == 16) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n"
                 ::"r"(dst), "l"(gmem_ptr), "r"(src_bytes) : "memory");
  } else {
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n"
                 ::"r"(dst), "l"(gmem_ptr), "n"(Bytes), "r"(src_bytes) : "memory");
  }
}

}  // namespace cp_async
}  // namespace course
