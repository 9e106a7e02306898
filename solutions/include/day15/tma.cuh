// Generated from solutions/day15/tma.cuh by `python -m grader stubs` (edit that file): the course's version,
// which later days' course headers include and `grader unlock` releases.
// Day 15 (with tma_copy.cu): your mbarrier and TMA load instructions, written once, as inline PTX.
// tma_copy.cu includes this header from beside it (#include "tma.cuh") and is graded on it; the GEMMs
// (gemm_wgmma.cu, gemm_persistent.cu) and day 16 use course/hopper/tma.cuh, which gives them these:
// yours, until the course's version (kernels/unlocked/day15/) is released. Keep the names and
// signatures; the PTX grammar of each instruction is quoted in tma_copy.cu's header. Every shared
// address is a 32-bit "r" operand (course::hopper::smem_address).
#pragma once
#include <course/hopper/tensor_map.cuh>

namespace course {
namespace hopper {

// One thread: a barrier whose phases complete after `arrivals` arrivals (and their expected bytes).
COURSE_INLINE void mbarrier_init(uint64_t* bar, uint32_t arrivals) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem_address(bar)), "r"(arrivals) : "memory");
}

// After the inits, before any use: makes the initialised barriers visible to the copy engine.
COURSE_INLINE void fence_mbarrier_init() {
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}

// Arrive, and add `bytes` to the transaction count the current phase waits for.
COURSE_INLINE void mbarrier_arrive_expect_tx(uint64_t* bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smem_address(bar)), "r"(bytes)
               : "memory");
}

// Arrive (no bytes): one of the phase's expected arrivals.
COURSE_INLINE void mbarrier_arrive(uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(smem_address(bar)) : "memory");
}

// Wait until the phase of parity `parity` (0 for the 1st, 3rd, ... completion; 1 for the 2nd, ...) completed.
COURSE_INLINE void mbarrier_wait(uint64_t* bar, uint32_t parity) {
  uint32_t done;
  do {
    asm volatile(
        "{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(smem_address(bar)), "r"(parity)
        : "memory");
  } while (!done);
}

// One thread: the box of `map` at (c0 innermost, c1) into shared memory at `dst`, completing on `bar`.
COURSE_INLINE void tma_load_2d(void* dst, const TensorMap* map, uint64_t* bar, int c0, int c1) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n" ::"r"(
          smem_address(dst)),
      "l"(map), "r"(c0), "r"(c1), "r"(smem_address(bar))
      : "memory");
}

}  // namespace hopper
}  // namespace course
