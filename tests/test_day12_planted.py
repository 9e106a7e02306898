"""Day 12's checks against planted wrong kernels: each is derived from a solution by one targeted
replacement (or, for the scalar kernel handed in as the tensor-core exercise, by renaming its
kernels), and each must fail with a message that names what is wrong (the solutions pass). The
tensor-core exercises are graded with the warp steps of prefill_steps.cuh beside them: the solution's,
a planted one, or the stub's."""
import pytest

from grader.paths import SOLUTIONS
from grader.pytest_plugin import require_sass_tools

require_sass_tools()

DAY12 = SOLUTIONS / "day12"
STEPS = "prefill_steps.cuh"  # the student's warp steps, included by exercises 3 to 6


def _case(heads, q_len, kv_len, head_dim, causal):
    return {"heads": heads, "q_len": q_len, "kv_len": kv_len, "head_dim": head_dim, "causal": causal}


# Three K/V tiles, the max of a row grows from one to the next; a cache being extended (q_len < kv_len).
SEVERAL_TILES = [_case(1, 31, 150, 64, False)]
EXTENDED_CACHE = [_case(1, 17, 150, 64, True)]
SQUARE = [_case(1, 33, 33, 64, True)]


def _derive(file: str, old: str, new: str) -> str:
    text = (DAY12 / file).read_text()
    assert text.count(old) == 1, f"{file}: the planted replacement no longer matches the solution: {old!r}"
    return text.replace(old, new)


@pytest.fixture
def graded(planted):
    """planted(...) with the warp steps beside the kernel: the solution's, or `steps` (their text)."""
    def grade(name, text, cases=None, steps=None):
        return planted("day12", name, text, cases=cases, files={STEPS: steps or (DAY12 / STEPS).read_text()})
    return grade


@pytest.mark.parametrize("name,file,cases", [
    ("qk_tile", "qk_tile.cu", None),
    ("attention_mma", "attention_mma.cu", SEVERAL_TILES),
    ("attention_mma_causal", "attention_mma.cu", SQUARE),
    ("prefill", "attention_prefill.cu", SEVERAL_TILES),
    ("prefill_causal", "attention_prefill.cu", EXTENDED_CACHE + SQUARE),
])
def test_solutions_pass(graded, name, file, cases):
    assert graded(name, (DAY12 / file).read_text(), cases=cases) is None


def test_scalar_kernel_handed_in_as_the_mma_exercise_fails(planted):
    """Right results from one thread per query: the day grades mma.sync, and the SASS has no HMMA."""
    text = (DAY12 / "attention_scalar.cu").read_text().replace("attention_scalar_d", "attention_mma_d")
    msg = planted("day12", "attention_mma", text, cases=SEVERAL_TILES)
    assert msg and "HMMA" in msg and "technique" in msg, msg


def test_scalar_kernel_handed_in_as_the_prefill_exercise_fails(planted):
    text = (DAY12 / "attention_scalar.cu").read_text().replace("attention_scalar_d", "prefill_d")
    msg = planted("day12", "prefill", text, cases=SEVERAL_TILES)
    assert msg and "HMMA" in msg and "LDGSTS" in msg, msg


def test_qk_tile_with_a_wrong_c_layout_fails(graded):
    """Rows g and g + 8 swapped in the store: the scores of two queries trade places."""
    store = "      const int row = lane / 4 + 8 * (i / 2), col = 8 * n + 2 * (lane % 4) + i % 2;\n"
    text = _derive("qk_tile.cu", store, store.replace("8 * (i / 2)", "8 * (1 - i / 2)"))
    msg = graded("qk_tile", text)
    assert msg and "qk_tile_d" in msg and "worst at index" in msg, msg


LARGE_LOGITS = [{**_case(1, 40, 200, 128, False), "logits": "rising"}]


@pytest.mark.parametrize("file,name,cases,where", [("attention_mma.cu", "attention_mma", SEVERAL_TILES, "kv_len=150"),
                                                   ("attention_prefill.cu", "prefill", LARGE_LOGITS, "kv_len=200")])
def test_online_softmax_without_rescaling_o_fails(graded, file, name, cases, where):
    """d is rescaled when a row's max grows, o is not: the earlier tiles keep weights relative to an
    older, smaller max and count too much. The prefill keeps a max up to PREFILL_RESCALE_SLACK (4) stale,
    which normal scores rarely outgrow after the first tile: its own cases with logits rising along the
    keys catch it."""
    steps = _derive(STEPS, "#pragma unroll\n    for (int i = 0; i < 2 * Tr::D_N8; ++i) st.o[i] *= alpha;\n", "")
    msg = graded(name, (DAY12 / file).read_text(), cases=cases, steps=steps)
    assert msg and "relative error norm" in msg and where in msg, msg


def test_online_softmax_without_a_running_max_fails_only_on_large_logits(graded):
    """exp(s) without subtracting the row's maximum: exact enough for scores of N(0, 1), which never
    overflow, so only the cases of large, growing logits catch it (inf, then NaN)."""
    text = _derive("attention_scalar.cu", "const float m_new = fmaxf(m, tile_max);", "const float m_new = 0.f;")
    text = text.replace("if (m_new == -math::inf) continue;", "if (tile_max == -math::inf) continue;")
    assert graded("attention_scalar", text, cases=SEVERAL_TILES) is None  # the hole the large logits close
    msg = graded("attention_scalar", text, cases=LARGE_LOGITS)
    assert msg and "attention_scalar" in msg and "NaN" in msg, msg


def test_online_softmax_rescaling_o_the_wrong_way_fails(graded):
    """o multiplied by 2^(m_new - m_old) instead of 2^(m_old - m_new)."""
    steps = _derive(STEPS, "++i) st.o[i] *= alpha;", "++i) st.o[i] /= alpha;")
    msg = graded("attention_mma", (DAY12 / "attention_mma.cu").read_text(), cases=SEVERAL_TILES, steps=steps)
    assert msg and "attention_mma_d64" in msg, msg


def test_causal_mask_aligned_to_the_start_fails_when_the_cache_is_longer(graded):
    """Query i sees keys j <= i (offset 0) instead of j <= i + kv_len - q_len: the same when q_len = kv_len,
    wrong as soon as the queries extend a cache."""
    text = _derive("attention_prefill.cu", "kv_len, kv_len - q_len, lane);", "kv_len, 0, lane);")
    assert graded("prefill_causal", text, cases=SQUARE) is None
    msg = graded("prefill_causal", text, cases=EXTENDED_CACHE)
    assert msg and "prefill_d64" in msg and "q_len=17, kv_len=150, causal" in msg, msg


# Exercise 4's warp owns 32 query rows, two 16-row halves (rows 32 warp .. + 15 and + 16 .. + 31 of the
# block): the cases must tell the halves apart. SEVERAL_TILES (31 rows) has a second half in warp 0.

def test_m32_second_half_reading_the_first_halfs_queries_fails(graded):
    """compute_qk_m32 loads the second half's A fragments from the first half's q rows: rows 16 .. 31 of
    each warp get the scores, and so the outputs, of rows 0 .. 15."""
    steps = _derive(STEPS, "mma::ldmatrix_m8n8x4(a[1], q_row + 16 * Tr::STRIDE + 16 * kk);",
                    "mma::ldmatrix_m8n8x4(a[1], q_row + 16 * kk);")
    msg = graded("prefill", (DAY12 / "attention_prefill.cu").read_text(), cases=SEVERAL_TILES, steps=steps)
    assert msg and "prefill_d64" in msg and "kv_len=150" in msg, msg


def test_m32_second_half_masked_at_the_first_halfs_rows_fails_causal(graded):
    """The causal diagonal of both halves taken at the first half's rows: rows 16 .. 31 of a warp see 16
    keys too few. Without a mask only kv_len is masked, the same for every row, so only causal cases
    catch it."""
    text = _derive("attention_prefill.cu", "mask_scores<Tr, CAUSAL>(s[h], q0 + 32 * warp + 16 * h, j * Tr::BLOCK_N,",
                   "mask_scores<Tr, CAUSAL>(s[h], q0 + 32 * warp, j * Tr::BLOCK_N,")
    assert graded("prefill", text, cases=SEVERAL_TILES) is None
    msg = graded("prefill_causal", text, cases=SQUARE)
    assert msg and "prefill_d64" in msg and "causal" in msg, msg


def _batch(batch, qo_len, kv_len, hq, hkv, head_dim, causal):
    return {"batch": batch, "qo_len": qo_len, "kv_len": kv_len, "num_qo_heads": hq, "num_kv_heads": hkv,
            "head_dim": head_dim, "causal": causal}


# Ragged requests (no query, one query, queries without keys), GQA group 4, packed rows past one tile.
RAGGED_GQA = [_batch(4, 17, 40, 8, 2, 64, True)]
MHA = [_batch(4, 17, 40, 2, 2, 64, True)]


def test_batch_prefill_solution_passes(graded):
    assert graded("batch_prefill", (DAY12 / "batch_prefill.cu").read_text(), cases=RAGGED_GQA) is None


def test_batch_mask_by_packed_row_instead_of_query_fails_with_gqa(graded):
    """The diagonal taken at the packed row p instead of its query p / group: right for MHA only."""
    text = _derive("batch_prefill.cu", "const int query = group.div(p_row + mma::frag_c_row(lane, i));",
                   "const int query = p_row + mma::frag_c_row(lane, i);")
    assert graded("batch_prefill", text, cases=MHA) is None
    msg = graded("batch_prefill", text, cases=RAGGED_GQA)
    assert msg and "batch_prefill" in msg and "heads 8/2" in msg, msg


def test_batch_rows_packed_head_major_fail(graded):
    """Packed row p read as head p / qo_len, query p % qo_len (heads outermost): the rows of one tile
    then belong to other queries than the mask and the output assume."""
    text = _derive("batch_prefill.cu", "    const int i = group.div(p);\n    return",
                   "    const int i = p % max(qo_len, 1);\n    return")
    text = text.replace("kv_head * group.d + p - i * group.d)", "kv_head * group.d + p / max(qo_len, 1))")
    msg = graded("batch_prefill", text, cases=RAGGED_GQA)
    assert msg and "batch_prefill" in msg, msg


def test_batch_lse_in_natural_log_fails(graded):
    """lse = (m + log2 d) * ln 2: the natural log-sum-exp where the course's merge expects base 2."""
    text = _derive("batch_prefill.cu", "st.d > 0.f ? st.m + math::ptx_log2(st.d) : -math::inf",
                   "st.d > 0.f ? (st.m + math::ptx_log2(st.d)) * math::loge2 : -math::inf")
    msg = graded("batch_prefill", text, cases=RAGGED_GQA)
    assert msg and "batch_prefill lse2" in msg, msg


def test_batch_lse_of_an_empty_row_must_be_minus_inf(graded):
    """A row that sees no key (the test's third request has queries and no keys) must say so: lse2 =
    -inf, the empty state that weighs nothing in a merge; 0 would weigh as much as a real row."""
    text = _derive("batch_prefill.cu", "st.d > 0.f ? st.m + math::ptx_log2(st.d) : -math::inf",
                   "st.d > 0.f ? st.m + math::ptx_log2(st.d) : 0.f")
    msg = graded("batch_prefill", text, cases=RAGGED_GQA)
    assert msg and "lse2" in msg and "-inf" in msg, msg


def test_exercises_3_and_4_grade_the_steps_of_the_students_header(graded):
    """The steps are written once, in prefill_steps.cuh: a finished loop over the stub's steps fails (on
    the SASS first: exercise 3's mma.sync are the header's; exercise 4 issues its own, in compute_qk_m32
    and compute_pv_m32, but with the stub's empty finalize_and_store nothing they compute is stored, so
    the compiler drops them too)."""
    from grader import stubs

    stub = stubs.render(DAY12 / STEPS)
    for name, file in (("attention_mma", "attention_mma.cu"), ("prefill", "attention_prefill.cu")):
        msg = graded(name, (DAY12 / file).read_text(), cases=SEVERAL_TILES, steps=stub)
        assert msg and "technique" in msg and "no HMMA" in msg, msg


PAGED = [{**RAGGED_GQA[0], "page_size": 5}]


def test_batch_prefill_paged_solution_passes(graded):
    assert graded("batch_prefill_paged", (DAY12 / "batch_prefill.cu").read_text(), cases=PAGED) is None


def test_paged_length_counting_the_last_page_as_full_fails(graded):
    """Every page taken as full: the last page's unused slots (NaN in the test's pool) are attended."""
    text = _derive("batch_prefill.cu", "len = num_pages > 0 ? (num_pages - 1) * page_size + kv_last_page_len[b] : 0;",
                   "len = num_pages * page_size;")
    msg = graded("batch_prefill_paged", text, cases=PAGED)
    assert msg and "batch_prefill_paged" in msg, msg


def test_paged_rows_read_as_if_the_pages_were_in_order_fail(graded):
    """Key t taken from the request's first page onwards, as if its pages were contiguous in the pool."""
    text = _derive("batch_prefill.cu", "return ((static_cast<int64_t>(pages[p]) * page.d + slot) * num_kv_heads",
                   "return ((static_cast<int64_t>(pages[0]) * page.d + t) * num_kv_heads")
    msg = graded("batch_prefill_paged", text, cases=PAGED)
    assert msg and "batch_prefill_paged" in msg, msg
