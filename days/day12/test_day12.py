"""Day 12 self-check. Your kernels: `pytest days/day12`; the course's: `pytest days/day12 --solutions`.

How to read the output:
- Each case draws fresh random fp16 q, k, v (standard normal) and compares your output with a float64
  numpy reference (grader/exercises/day12.py: attention_reference) by the norm of the error: relative
  1e-3. qk_tile compares its float scores with q k^T in float64: relative 1e-5 of the norm (only the
  float32 sums round).
- The tensor-core exercises are also graded on their SASS (compiled here, no GPU needed): qk_tile and
  attention_mma must use HMMA and LDSM (ldmatrix), the attention kernels SHFL (the quad reductions) and
  MUFU.EX2, the pipelined one LDGSTS (cp.async), and none may spill to local memory. A failure names the kernel, the shape, the worst element (index (head, query, dim), expected,
  got, relative error) and the seed: COURSE_SEED=<seed> replays the same inputs.
- The output is poisoned with NaN before each launch: "still hold the NaN poison" means rows never written
  (often: the last, partial query tile, or a whole exercise region still empty).
- Case ids read heads, q_len, kv_len, head_dim, causal. q_len < kv_len is a cache being extended: with
  causal, query i sees key j iff j <= i + kv_len - q_len (the mask aligned to the END of the KV).
  Lengths such as 1, 31, 33, 1000 are not multiples of any tile; a case that fails only there points
  at the zero-fill of partial tiles or at the mask of the last tile.
- batch_prefill draws ragged requests (from batch 3: one with no query, one with a single query) with
  GQA groups of 1 to 8 heads and checks o and the base-2 log-sum-exp lse2 (relative 1e-4; a row that
  sees no key must have o = 0 and lse2 = -inf exactly); batch_prefill_paged the same requests with their
  keys in randomly placed pages of 1, 5 or 16 tokens (every slot no request owns is NaN).
- The perf tests (16 heads, d 128, batch x seq = 16384 tokens, fp16) print a table: TFLOP/s of your
  kernel at each sequence length, its % of torch's flash SDPA timed in the same run on the same data,
  and that ceiling. The pipelined kernel's target (95%, non-causal and causal alike; the course's solution
  measured 99% and 98% on an H100) is read at B4 H16 S4096 D128; the batch prefill's (80%, GQA 32/8 and
  MHA 32/32 heads alike: packing the group costs nothing) at S4096; the paged prefill's (75%) against your
  own ragged batch prefill on the same requests, pages of 16 tokens. Without
  torch the ceiling is the H100 figure from platform-notes.md, and the table says so. A kernel is
  timed only after it passes its largest correctness case.
The checks themselves are in grader/exercises/day12.py.
"""
from grader.day_tests import exercise_tests

globals().update(exercise_tests("day12", perf={
    "prefill": "throughput", "prefill_causal": "throughput", "batch_prefill": "throughput",
    "batch_prefill_paged": "throughput"}))
