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
  // BEGIN EXERCISE
  // HINT: One instruction: the barrier's shared address and its arrival count.
  // STUB: (void)bar; (void)arrivals;
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem_address(bar)), "r"(arrivals) : "memory");
  // END EXERCISE
}

// After the inits, before any use: makes the initialised barriers visible to the copy engine.
COURSE_INLINE void fence_mbarrier_init() {
  // BEGIN EXERCISE
  // HINT: One fence without operands; its .sem and .scope are the only ones the grammar allows.
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  // END EXERCISE
}

// Arrive, and add `bytes` to the transaction count the current phase waits for.
COURSE_INLINE void mbarrier_arrive_expect_tx(uint64_t* bar, uint32_t bytes) {
  // BEGIN EXERCISE
  // HINT: One instruction with the barrier and the byte count; nobody needs the state it returns.
  // HINT2: The state operand may be the sink `_`; a "memory" clobber keeps earlier stores before it.
  // STUB: (void)bar; (void)bytes;
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smem_address(bar)), "r"(bytes)
               : "memory");
  // END EXERCISE
}

// Arrive (no bytes): one of the phase's expected arrivals.
COURSE_INLINE void mbarrier_arrive(uint64_t* bar) {
  // BEGIN EXERCISE
  // HINT: As the arrive above, without expect_tx and its byte count.
  // STUB: (void)bar;
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(smem_address(bar)) : "memory");
  // END EXERCISE
}

// Wait until the phase of parity `parity` (0 for the 1st, 3rd, ... completion; 1 for the 2nd, ...) completed.
COURSE_INLINE void mbarrier_wait(uint64_t* bar, uint32_t parity) {
  // BEGIN EXERCISE
  // HINT: try_wait only reports a predicate, and it may give up early: how do you keep trying until it
  // HINT: says the phase completed?
  // HINT2: Declare a .reg .pred inside a { } scope of the asm and either branch back while it is false or
  // HINT2: turn it into a register (selp) that a C++ loop tests.
  // STUB: (void)bar; (void)parity;
  uint32_t done;
  do {
    asm volatile(
        "{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(smem_address(bar)), "r"(parity)
        : "memory");
  } while (!done);
  // END EXERCISE
}

// One thread: the box of `map` at (c0 innermost, c1) into shared memory at `dst`, completing on `bar`.
COURSE_INLINE void tma_load_2d(void* dst, const TensorMap* map, uint64_t* bar, int c0, int c1) {
  // BEGIN EXERCISE
  // HINT: One cp.async.bulk.tensor: which .dim, .dst, .src, load mode and completion mechanism?
  // HINT2: The tensor map operand is the 64-bit generic address of the __grid_constant__ parameter itself
  // HINT2: ("l"); tensorCoords are innermost first, {c0, c1}, in elements.
  // STUB: (void)dst; (void)map; (void)bar; (void)c0; (void)c1;
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n" ::"r"(
          smem_address(dst)),
      "l"(map), "r"(c0), "r"(c1), "r"(smem_address(bar))
      : "memory");
  // END EXERCISE
}

}  // namespace hopper
}  // namespace course
