// Your exercise file. Generated from solutions/day07/cp_async.cuh by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: d982296829e95fbe
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
  // TODO: your code here.
  //   Hint: One PTX instruction without operands closes this thread's group of copies: which one?
}

// Wait until at most n of this thread's committed groups are still in flight (groups complete in commit
// order). Reads of the copied bytes must not move above the wait.
template <int n>
COURSE_INLINE void wait_group() {
  // TODO: your code here.
  //   Hint: The wait instruction takes the number of groups that may stay pending as an immediate: how do
  //   Hint: you pass a template parameter to inline asm as an immediate?
}

// Copy Bytes (4, 8 or 16) bytes from gmem_ptr to smem_ptr asynchronously, with ONE cp.async: the first
// src_bytes (0..Bytes) from gmem_ptr, the rest zeros (nothing past them is read). Both addresses are
// aligned to Bytes.
template <int Bytes>
COURSE_INLINE void copy_zfill(void* smem_ptr, const void* gmem_ptr, int src_bytes) {
  // TODO: your code here.
  //   Hint: Read the PTX ISA's cp.async: which operand makes it copy fewer bytes than cp-size and zero the
  //   Hint: rest? In which state space must the destination address be, and in what form?
}

}  // namespace cp_async
}  // namespace course
