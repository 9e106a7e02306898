// day07/cp_async.cuh: the course's cp.async instructions (day 7, exercise 1): commit and wait for
// groups, and one copy of 4, 8 or 16 bytes, zero-filled or predicated, which course/cp_async.cuh's
// load_128b / load_64b / load_32b / load_128b_zfill give exercise 2 on and later days.
#pragma once
#include <course/cp_async.cuh>  // the modes, smem_addr, sync_copy (it includes this header part-way)

namespace course {
namespace cp_async {

// Close the group of copies this thread issued since the previous commit (possibly an empty group:
// committing on every pipeline step, even past the end of the data, keeps wait_group's count right).
COURSE_INLINE void commit_group() {
#ifdef COURSE_CP_ASYNC_ENABLED
  asm volatile("cp.async.commit_group;\n" ::);
#endif
}

// Wait until at most `n` of this thread's committed groups are still pending. The "memory" clobber
// keeps the compiler from moving reads of the copied bytes above the wait: a thread that reads only
// its own copies (day 11's decode pipeline) has no __syncthreads to do that for it.
template <int n>
COURSE_INLINE void wait_group() {
  static_assert(n >= 0, "wait_group<n> needs n >= 0");
#ifdef COURSE_CP_ASYNC_ENABLED
  asm volatile("cp.async.wait_group %0;\n" ::"n"(n) : "memory");
#endif
}

// Wait for every copy this thread issued, committed or not.
COURSE_INLINE void wait_all() {
#ifdef COURSE_CP_ASYNC_ENABLED
  asm volatile("cp.async.wait_all;\n" ::: "memory");
#endif
}

namespace detail {

// One cp.async of Bytes (4, 8 or 16) bytes of which the first src_bytes are read, the rest zeroed.
template <int Bytes, PrefetchMode prefetch>
COURSE_INLINE void copy_zfill(void* smem_ptr, const void* gmem_ptr, int src_bytes) {
  static_assert(Bytes == 4 || Bytes == 8 || Bytes == 16, "cp.async copies 4, 8 or 16 bytes");
#ifdef COURSE_CP_ASYNC_ENABLED
  const uint32_t dst = smem_addr(smem_ptr);
  if constexpr (Bytes == 16) {
    if constexpr (prefetch == PrefetchMode::kPrefetch) {
      asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16, %2;\n"
                   ::"r"(dst), "l"(gmem_ptr), "r"(src_bytes) : "memory");
    } else {
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n"
                   ::"r"(dst), "l"(gmem_ptr), "r"(src_bytes) : "memory");
    }
  } else {
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n"
                 ::"r"(dst), "l"(gmem_ptr), "n"(Bytes), "r"(src_bytes) : "memory");
  }
#else
  sync_copy<Bytes>(smem_ptr, gmem_ptr, src_bytes);
#endif
}

// One cp.async of Bytes, issued only when `predicate` holds (no src-size operand).
template <int Bytes, PrefetchMode prefetch>
COURSE_INLINE void copy_if(void* smem_ptr, const void* gmem_ptr, bool predicate) {
  static_assert(Bytes == 4 || Bytes == 8 || Bytes == 16, "cp.async copies 4, 8 or 16 bytes");
#ifdef COURSE_CP_ASYNC_ENABLED
  const uint32_t dst = smem_addr(smem_ptr);
  const int p = predicate;
  if constexpr (Bytes == 16 && prefetch == PrefetchMode::kPrefetch) {
    asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %0, 0;\n"
                 " @p cp.async.cg.shared.global.L2::128B [%1], [%2], 16;\n}\n"
                 ::"r"(p), "r"(dst), "l"(gmem_ptr) : "memory");
  } else if constexpr (Bytes == 16) {
    asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %0, 0;\n"
                 " @p cp.async.cg.shared.global [%1], [%2], 16;\n}\n"
                 ::"r"(p), "r"(dst), "l"(gmem_ptr) : "memory");
  } else {
    asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %0, 0;\n"
                 " @p cp.async.ca.shared.global [%1], [%2], %3;\n}\n"
                 ::"r"(p), "r"(dst), "l"(gmem_ptr), "n"(Bytes) : "memory");
  }
#else
  if (predicate) sync_copy<Bytes>(smem_ptr, gmem_ptr, Bytes);
#endif
}

}  // namespace detail
}  // namespace cp_async
}  // namespace course
