"""Day 16 self-check (Hopper, sm_90a). Your kernels: `pytest days/day16`; the course's: `pytest days/day16 --solutions`.

The day is a ladder of three rungs in attention_wgmma.cu, each its own kernels and its own test:
attention_wgmma_serial (rung 1), attention_wgmma_overlap (rung 2), attention_wgmma and
attention_wgmma_causal (rung 3). `pytest days/day16 -k serial` runs one rung.

How to read the output:
- On a GPU that is not an sm_90 (Hopper) one the checks skip with that sentence; without a GPU the
  emulator runs them, and names an accumulator read before its wgmma_wait, a named barrier whose turn is
  never given (a ping-pong that deadlocks), or an mbarrier that never completes, with your source line.
- Each rung compares o = softmax(q k^T / sqrt(d)) v with day 12's float64 reference (fp16 output
  tolerance), at sequence lengths that are not multiples of the 128-query and 128-key tiles (1, 129,
  200, 520, 1000), head_dim 64 and 128, with and without the causal mask. A wrong P fragment or a
  missing rescale gives errors of order 1; "still hold the NaN poison" means rows never written or a
  softmax that divided by zero.
- The technique is checked on the SASS for sm_90a, on each rung's own kernels: HGMMA (both products),
  UTMALDG and SYNCS (TMA on mbarriers), MUFU.EX2, no LDG, no HMMA, no spills (rung 1); rung 2 adds
  WARPGROUP.DEPBAR.LE gsb0, 0x1 (P V left in flight while the next softmax runs); rung 3 adds BAR.ARV
  (the warpgroups take turns).
- The benchmarks time each rung, and the rung below it from the same file, in turns with torch's SDPA
  backends (default, flash, cuDNN, efficient) at B x S = 16384, 16 heads, d 128; the ceiling is the
  fastest of them, each named in the report. Rung 3 is held to its target, not the rung below.
The checks themselves are in grader/exercises/day16.py.
"""
from grader.day_tests import exercise_tests

globals().update(exercise_tests("day16", perf={
    "attention_wgmma_serial": "throughput", "attention_wgmma_overlap": "throughput",
    "attention_wgmma": "throughput", "attention_wgmma_causal": "throughput"}))
