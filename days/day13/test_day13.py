"""Day 13 self-check. Your kernel: `pytest days/day13`; the course's: `pytest days/day13 --solutions`.

How to read the output:
- cache_key: your jit_cache.py's key on a tree of headers in two include folders, one file edited at a
  time: each failure names the pair of inputs and whether the key should have changed (an edited header
  the source reaches, an option, the arch) or not (a header nothing includes). Groups: inputs, includes,
  unrelated, framing (("-DA", "-DB") against ("-DA -DB",)), missing_and_cycles.
- write_atomic: two writes (the bytes, nothing left in the folder); a 1 MiB write under a 64 KiB
  file-size limit (it must raise, and the old file stay whole); a reader beside 24 writes of 4 MiB (it
  must always find one version, whole). No GPU needed for either.
- Each case renders one specialisation of your rope.cu through the JIT (kernels/templates/
  rope.cu.jinja: layout, dtype, head_dim, vec, heads_per_block), compiles it on first use and takes
  it from the cache (.course/jit, or $COURSE_JIT_CACHE) after that: a second run compiles nothing.
  test_rope checks the rotate-half layout (day13::rope), test_rope_interleaved the interleaved one
  (day13::rope_interleaved); both use your rotate<HEAD_DIM>.
- rope.cu compiled on its own must show 16-byte loads and stores (LDG.E.128 / STG.E.128) in its
  vec-8 kernels: the technique check fails every case otherwise.
- The case id names the specialisation. A failure names the worst element (token, head, element),
  expected vs got, and the seed: COURSE_SEED=<seed> replays the same inputs. fp16 and bf16 are
  compared by the norm of the error (relative 1e-3 and 1e-2) with a float64 reference.
- The heads after `heads` in each row (a packed v) hold NaN and must come back untouched.
- test_chunked and test_prefix_lm first run your mask alone (the file's mask_table kernel, positions
  0..129) against numpy, naming the first wrong (q_pos, key); then they render a variant whose mask calls
  your day13::chunked_visible / day13::prefix_lm_visible into day 12's batch prefill (the course's: day 13
  grades the mask, not your day 12), through kernels/templates/attention_variant.cu.jinja, and compare
  o and the base-2 LSE with float64 attention under the same mask in numpy, on ragged GQA requests (an
  empty one, a one-query one, one with queries and no keys; relative 1e-3 for o, 1e-4 for lse2). chunked
  runs with the kernel's causal mask, prefix_lm without it: your mask alone decides.
- The perf test (vec 8, 4 heads per block; 40 heads of 128, 4096 then 16384 tokens) prints GB/s and
  the % of the device-to-device copy measured in the same run; it fails below 85% at the largest
  size. The notebook sweeps the other tile shapes.
The checks themselves are in grader/exercises/day13.py (the cache's in day13_cache.py); the JIT in grader/jit/.
"""
from grader.day_tests import exercise_tests

globals().update(exercise_tests("day13", perf={"rope": "bandwidth"}))
