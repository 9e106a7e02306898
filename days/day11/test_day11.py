"""Day 11 self-check. Your kernels: `pytest days/day11`; the course's: `pytest days/day11 --solutions`.

How to read the output:
- Each correctness case draws fresh random inputs. A failure names the output, the worst element
  (index, expected, got, relative error) and the seed: COURSE_SEED=<seed> replays the same inputs.
- Outputs are NaN-poisoned: "still hold the NaN poison" means elements never written; "NaN the kernel
  computed" is often a NaN that got in: the paged cache's unused pages and slots are NaN, so reading a
  token that is not in the page table shows that way. o is compared with float64 numpy by the norm of the error (fp16 1e-3, bf16
  1e-2), then head by head (fp16 4e-3, bf16 1.6e-2 for each (request, head) alone: "request b,
  head h" names the worst); lse2 (base-2 log-sum-exp, float32) element by element, and an empty row
  must be exactly -inf.
- q gets a different scale per (request, head), up to 30: some softmaxes are nearly flat, some nearly
  one-hot, and with the largest exp(score) overflows float. A kernel that forgets to subtract the
  running max fails there.
- online_softmax: the state (m, d, o) after every tile, against float64; some scores -inf (masked),
  row 1's first tile all -inf (the state must stay empty), row 2 near 300.
- merge_states: random partial results, some empty (lse2 = -inf with random v: weight exactly 0),
  row 1 entirely empty (o = 0, lse2 = -inf), row 2 near lse2 = 300.
- decode_warp: one warp per (request, head), kv_len 1 to 4097 (odd lengths: a lane group past the end).
- decode_attention: batch x kv_len x heads (query / KV: GQA groups 1 to 8), kv_len from 1 to 4097.
  Cases without kv_dtype are the tuned configuration (fp16, head_dim 128, NHD); the others name
  theirs (kv_dtype bfloat16 or e4m3, head_dim 64 / 128 / 256, layout NHD or HND), and the grader
  compiles your file again for each (-DDECODE_KV=... : see the end of the file), so a failure there
  with the tuned cases passing points at what the configuration changes: the types (bf16 is not
  half), the head size (LANES, GROUPS), the HND row offset, or an fp8 cache's scales. An e4m3 case's
  cache holds k / k_scale and v / v_scale (random scales); the reference dequantises the same bytes
  exactly, so its o (fp16) is held to fp16's tolerance. The names add ", e4m3 d128 NHD" and so on.
- decode_paged: ragged requests, the first of 1 token, the last of kv_len; page sizes 1 and 16,
  pages in random order; chunks > 1 is split-KV (partial results merged by merge_chunks); the same
  configurations (HND pages: [pages, num_kv_heads, page_size, head_dim]).
- The perf tests print a table. decode_attention (batch 64, heads 32/8, d 128, NHD): GB/s on the KV
  bytes, its % of the device-to-device copy bandwidth measured in the same run at the same byte count,
  and that ceiling, for an fp16 cache (kv_len up to 8192) and an e4m3 cache at twice the tokens (the
  same bytes, up to 2 GiB); it fails below 95% at 2 GiB, the e4m3 series only where your file turns
  FP8_ON_TENSOR_CORES on (else it is drawn, not held); its last note is e4m3's tokens per second over
  fp16's. decode_paged (kv_len 32768, batch 1, 8, 32): one chunk per request against split-KV, fails
  below 88% at batch 32. day11.bench_decode_attention takes kv_dtype, head_dim and layout for the other
  configurations. A kernel is timed only after it passes its largest correctness case.
Each kernel must also use the day's technique (checked in its SASS, no GPU needed): ex2.approx,
16-byte loads, shuffles, cp.async (LDGSTS) in the decode kernels, no local-memory spills; exercises
1-3 must write the state update and merge themselves (not state_t::merge); exercises 4-5 write their
main loop and block merge (the course has no copy of them).
The checks themselves are in grader/exercises/day11.py.
"""
from grader.day_tests import exercise_tests

globals().update(exercise_tests("day11", perf={"decode_attention": "bandwidth", "decode_paged": "bandwidth"}))
