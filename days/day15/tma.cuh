// Your exercise file. Generated from solutions/day15/tma.cuh by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: a9706ff90fcfa622
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
  // TODO: your code here.
  //   Hint: One instruction: the barrier's shared address and its arrival count.
  (void)bar; (void)arrivals;
}

// After the inits, before any use: makes the initialised barriers visible to the copy engine.
COURSE_INLINE void fence_mbarrier_init() {
  // TODO: your code here.
  //   Hint: One fence without operands; its .sem and .scope are the only ones the grammar allows.
}

// Arrive, and add `bytes` to the transaction count the current phase waits for.
COURSE_INLINE void mbarrier_arrive_expect_tx(uint64_t* bar, uint32_t bytes) {
  // TODO: your code here.
  //   Hint: One instruction with the barrier and the byte count; nobody needs the state it returns.
  (void)bar; (void)bytes;
}

// Arrive (no bytes): one of the phase's expected arrivals.
COURSE_INLINE void mbarrier_arrive(uint64_t* bar) {
  // TODO: your code here.
  //   Hint: As the arrive above, without expect_tx and its byte count.
  (void)bar;
}

// Wait until the phase of parity `parity` (0 for the 1st, 3rd, ... completion; 1 for the 2nd, ...) completed.
COURSE_INLINE void mbarrier_wait(uint64_t* bar, uint32_t parity) {
  // TODO: your code here.
  //   Hint: try_wait only reports a predicate, and it may give up early: how do you keep trying until it
  //   Hint: says the phase completed?
  (void)bar; (void)parity;
}

// One thread: the box of `map` at (c0 innermost, c1) into shared memory at `dst`, completing on `bar`.
COURSE_INLINE void tma_load_2d(void* dst, const TensorMap* map, uint64_t* bar, int c0, int c1) {
  // TODO: your code here.
  //   Hint: One cp.async.bulk.tensor: which .dim, .dst, .src, load mode and completion mechanism?
  (void)dst; (void)map; (void)bar; (void)c0; (void)c1;
}

}  // namespace hopper
}  // namespace course
