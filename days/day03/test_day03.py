"""Day 3 self-check. Your kernels: `pytest days/day03`; the course's: `pytest days/day03 --solutions`.

How to read the output:
- Each case draws fresh random inputs; a failure names the output, the worst element (its input,
  expected, got, the error in ulps and relative terms, and what was allowed) and the seed:
  COURSE_SEED=<seed> replays the same inputs. Outputs are NaN-poisoned: "still hold the NaN poison"
  means elements never written (a grid-stride loop that stops early, a forgotten tail); "NaN the
  kernel computed" means your arithmetic made it.
- ptx_math checks each operation (op 0 to 6: exp2, lg2, rsqrt, rcp, tanh, exp, log) against numpy in float64
  with the error the PTX ISA states for its instruction (APPROX_BOUNDS in the checks), the ends of
  its domain included. A wrong op order shows as a huge error on the first op you swapped.
- warp_reduce compares the group sums (within 1e-6 of the group's sum of |x|) and maxes (exactly),
  then every lane's pair in all_lanes: a lane that is not lane 0 without the result means a
  reduction that only lane 0 finishes (shfl_down instead of shfl_xor). x runs on with +inf to the
  end of the last group: an inf means lanes past n read x instead of taking the identity.
- gelu_tanh allows tanh.approx's 2^-11, carried to the output (0.5 |x| 2^-11), plus rounding.
- bf16_bits compares bits exactly (any NaN for a NaN), naming the input's bits: ties, the largest
  floats, subnormals, infinities and NaNs are among the inputs.
Each exercise is also graded on its technique (your own asm, MUFU / SHFL in the SASS): a library call
in its place fails with a sentence saying which.
There is no perf test: the exp throughput plot is in the notebook (`nb.bench("day03", "ptx_math")`).
The checks themselves are in grader/exercises/day03.py.
"""
from grader.day_tests import exercise_tests

globals().update(exercise_tests("day03"))
