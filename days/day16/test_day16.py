"""Day 16 self-check (Hopper, sm_90a). Your kernels: `pytest days/day16`; the course's: `pytest days/day16 --solutions`.

How to read the output:
- On a GPU that is not an sm_90 (Hopper) one the checks skip with that sentence; without a GPU the
  emulator runs them, and names an accumulator read before its wgmma_wait, a named barrier whose turn is
  never given (a ping-pong that deadlocks), or an mbarrier that never completes, with your source line.
- attention_wgmma compares o = softmax(q k^T / sqrt(d)) v with day 12's float64 reference (fp16 output
  tolerance), at sequence lengths that are not multiples of the 128-query and 128-key tiles (1, 129,
  200, 520, 1000), head_dim 64 and 128; attention_wgmma_causal the same with the causal mask. A wrong
  P fragment or a missing rescale gives errors of order 1; "still hold the NaN poison" means rows never written
  or a softmax that divided by zero.
- The technique is checked on the SASS for sm_90a: HGMMA (both products), UTMALDG and SYNCS (TMA on
  mbarriers), MUFU.EX2, BAR.ARV (the warpgroups take turns) and WARPGROUP.DEPBAR.LE gsb0, 0x1 (P V left
  in flight while the next softmax runs); no LDG, no HMMA, no spills.
- The benchmarks time the kernel in turns with torch's SDPA backends (default, flash, cuDNN, efficient)
  at B x S = 16384, 16 heads, d 128; the ceiling is the fastest of them, each named in the report.
The checks themselves are in grader/exercises/day16.py.
"""
import pytest

from grader.exercises import case_id, day16

ATTENTION, CAUSAL = day16.EXERCISES


@pytest.mark.parametrize("case", ATTENTION.cases, ids=case_id)
def test_attention_wgmma(course, case):
    course.check(ATTENTION, case)


@pytest.mark.parametrize("case", CAUSAL.cases, ids=case_id)
def test_attention_wgmma_causal(course, case):
    course.check(CAUSAL, case)


@pytest.mark.perf
def test_attention_wgmma_throughput(course):
    course.bench(ATTENTION)


@pytest.mark.perf
def test_attention_wgmma_causal_throughput(course):
    course.bench(CAUSAL)
