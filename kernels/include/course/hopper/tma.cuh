// course/hopper/tma.cuh: the Tensor Memory Accelerator and the mbarrier (day 15, sm_90a and sm_90).
//
// What day 15's tma_copy.cu writes by hand, as helpers for the GEMM (from day 15's headers): an
// mbarrier is a 64-bit shared-memory object with a phase, a count of pending arrivals and a count of
// pending transaction bytes; a phase completes when both reach zero. A TMA load (cp.async.bulk.tensor)
// copies a box described by a tensor map (128 opaque bytes the host builds: grader.tensor_map) into
// shared memory and subtracts its bytes from the barrier's transaction count as they land. Modelled on
// the roles of FlashInfer's include/flashinfer/attention/hopper/ barrier and copy helpers (CUTLASS's
// ClusterTransactionBarrier).
#pragma once
#include "../common.cuh"
#include "tensor_map.cuh"  // TensorMap, smem_address

// mbarrier_init(bar, arrivals) (one thread; then fence_mbarrier_init() before any use),
// mbarrier_arrive_expect_tx(bar, bytes), mbarrier_arrive(bar), mbarrier_wait(bar, parity) (until the
// phase of that parity completed: 0 for the 1st, 3rd, ... completion) and tma_load_2d(dst, map, bar,
// c0, c1) (one thread: the box of `map` at (c0 innermost, c1) into shared memory at dst, completing on
// bar) are day 15's tma_copy exercise, written in days/day15/tma.cuh. The course's versions
// (<day15/tma.cuh> on the include path: the instructor's, or kernels/unlocked once released) come
// first; where they are absent, the include path's days/ folder gives your own, so the GEMMs build on it.
#if __has_include(<day15/tma.cuh>)
#include <day15/tma.cuh>
#else
namespace course {
namespace hopper {
template <typename B> COURSE_INLINE void mbarrier_init(B*, uint32_t) {
  COURSE_LOCKED(B, "course::hopper::mbarrier_init", "day15", "tma_copy.cu");
}
template <typename T = char> COURSE_INLINE void fence_mbarrier_init() {
  COURSE_LOCKED(T, "course::hopper::fence_mbarrier_init", "day15", "tma_copy.cu");
}
template <typename B> COURSE_INLINE void mbarrier_arrive_expect_tx(B*, uint32_t) {
  COURSE_LOCKED(B, "course::hopper::mbarrier_arrive_expect_tx", "day15", "tma_copy.cu");
}
template <typename B> COURSE_INLINE void mbarrier_arrive(B*) {
  COURSE_LOCKED(B, "course::hopper::mbarrier_arrive", "day15", "tma_copy.cu");
}
template <typename B> COURSE_INLINE void mbarrier_wait(B*, uint32_t) {
  COURSE_LOCKED(B, "course::hopper::mbarrier_wait", "day15", "tma_copy.cu");
}
template <typename B> COURSE_INLINE void tma_load_2d(void*, const TensorMap*, B*, int, int) {
  COURSE_LOCKED(B, "course::hopper::tma_load_2d", "day15", "tma_copy.cu");
}
}  // namespace hopper
}  // namespace course
#endif

namespace course {
namespace hopper {

// Ordinary shared-memory stores become visible to the async proxy (TMA, wgmma) after this.
COURSE_INLINE void fence_proxy_async() { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }

// One thread: the box of `map` at (c0 innermost, c1) written from shared memory at `src` (a TMA store:
// the parts of the box outside the tensor are not written). Asynchronous: it joins the thread's open
// bulk group, which bulk_commit_group() closes.
COURSE_INLINE void tma_store_2d(const TensorMap* map, const void* src, int c0, int c1) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];\n" ::"l"(map), "r"(c0),
               "r"(c1), "r"(smem_address(src)) : "memory");
}
COURSE_INLINE void bulk_commit_group() { asm volatile("cp.async.bulk.commit_group;\n" ::: "memory"); }
// Wait until at most N of this thread's committed bulk groups still read their shared memory (the
// buffer of the others may be written again; their global writes may still be under way).
template <int N>
COURSE_INLINE void bulk_wait_group_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(N) : "memory");
}

// A barrier for `threads` threads (a multiple of 32) of the block, `id` 1-15 (0 is __syncthreads'):
// one warpgroup synchronises without the others.
COURSE_INLINE void named_barrier_sync(int id, int threads) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

}  // namespace hopper
}  // namespace course
