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
  and that ceiling. The target (60%, the pipelined kernel only) is read at B4 H16 S4096 D128; the batch
  prefill's (75%, GQA 32/8 and MHA 32/32 heads alike: packing the group costs nothing) at S4096. Without
  torch the ceiling is the H100 figure from platform-notes.md, and the table says so. A kernel is
  timed only after it passes its largest correctness case.
The checks themselves are in grader/exercises/day12.py.
"""
import pytest

from grader.exercises import case_id, day12

SCALAR, QK_TILE, MMA, MMA_CAUSAL, PREFILL, PREFILL_CAUSAL, BATCH_PREFILL, BATCH_PAGED = day12.EXERCISES


@pytest.mark.parametrize("case", SCALAR.cases, ids=case_id)
def test_attention_scalar(course, case):
    course.check(SCALAR, case)


@pytest.mark.parametrize("case", QK_TILE.cases, ids=case_id)
def test_qk_tile(course, case):
    course.check(QK_TILE, case)


@pytest.mark.parametrize("case", MMA.cases, ids=case_id)
def test_attention_mma(course, case):
    course.check(MMA, case)


@pytest.mark.parametrize("case", MMA_CAUSAL.cases, ids=case_id)
def test_attention_mma_causal(course, case):
    course.check(MMA_CAUSAL, case)


@pytest.mark.parametrize("case", PREFILL.cases, ids=case_id)
def test_prefill(course, case):
    course.check(PREFILL, case)


@pytest.mark.parametrize("case", PREFILL_CAUSAL.cases, ids=case_id)
def test_prefill_causal(course, case):
    course.check(PREFILL_CAUSAL, case)


@pytest.mark.parametrize("case", BATCH_PREFILL.cases, ids=case_id)
def test_batch_prefill(course, case):
    course.check(BATCH_PREFILL, case)


@pytest.mark.parametrize("case", BATCH_PAGED.cases, ids=case_id)
def test_batch_prefill_paged(course, case):
    course.check(BATCH_PAGED, case)


@pytest.mark.perf
def test_prefill_throughput(course):
    course.bench(PREFILL)


@pytest.mark.perf
def test_prefill_causal_throughput(course):
    course.bench(PREFILL_CAUSAL)


@pytest.mark.perf
def test_batch_prefill_throughput(course):
    course.bench(BATCH_PREFILL)
