"""Day 11's checks against planted wrong kernels: each is derived from the solution by one targeted
replacement, and each must fail with a message that names what is wrong (the solution passes)."""
import pytest

from grader.paths import SOLUTIONS
from grader.pytest_plugin import require_sass_tools

require_sass_tools()

DAY11 = SOLUTIONS / "day11"
SMALL_DECODE = [{"batch": 2, "kv_len": 33, "num_qo_heads": 8, "num_kv_heads": 2}]
SMALL_PAGED = [{"batch": 3, "kv_len": 33, "page_size": 16, "num_qo_heads": 4, "num_kv_heads": 2, "chunks": 1}]


def _derive(file: str, old: str, new: str) -> str:
    text = (DAY11 / file).read_text()
    assert text.count(old) == 1, f"{file}: the planted replacement no longer matches the solution: {old!r}"
    return text.replace(old, new)


OWN = {"state.cuh": (DAY11 / "state.cuh").read_text()}  # merge_states.cu's header: the state and its merge


@pytest.mark.parametrize("name,cases", [("online_softmax", None), ("merge_states", None), ("decode_warp", None),
                                        ("decode_attention", SMALL_DECODE), ("decode_paged", SMALL_PAGED)])
def test_solutions_pass(planted, name, cases):
    assert planted("day11", name, (DAY11 / f"{name}.cu").read_text(), cases=cases, files=OWN) is None


def test_online_update_without_rescaling_o_fails(planted):
    """d is rescaled when the max grows, o is not: o keeps weights relative to an older, smaller max."""
    text = _derive("online_softmax.cu", "#pragma unroll\n    for (int i = 0; i < N; ++i) o[i] *= scale;\n", "")
    msg = planted("day11", "online_softmax", text)
    assert msg and "online_softmax o" in msg and "after tile" in msg, msg


def test_online_update_without_guard_makes_nan(planted):
    """2^(m - m_new) with m = m_new = -inf is NaN: a first tile of masked keys poisons the row."""
    text = _derive("online_softmax.cu", "const float m_use = m_new == -course::math::inf ? 0.f : m_new;",
                   "const float m_use = m_new;")
    msg = planted("day11", "online_softmax", text)
    assert msg and "online_softmax" in msg, msg


def test_merge_without_rescaling_by_the_max_fails(planted):
    """A merge that forgets 2^(m_A - m) on the running side: the parts no longer weigh right."""
    own = {"state.cuh": _derive("state.cuh", "const float a = math::ptx_exp2(m - m_new), b", "const float a = 1.f, b")}
    msg = planted("day11", "merge_states", (DAY11 / "merge_states.cu").read_text(), files=own)
    assert msg and "merge_states" in msg and "seed" in msg, msg


def test_merge_with_the_course_header_fails_the_technique(planted):
    text = _derive("merge_states.cu", '#include "state.cuh"\n', "#include <course/attention/state.cuh>\n")
    msg = planted("day11", "merge_states", text)
    assert msg and "the course's state_t" in msg and "technique" in msg, msg


def test_warp_without_merging_the_two_lane_groups_fails(planted):
    """Lane group 0 stores its own state: only the even tokens count."""
    text = _derive("decode_warp.cu", "const float m_new = fmaxf(m, other_m);", "const float m_new = m;")
    text = text.replace("const float a = course::math::ptx_exp2(m - m_new), c = course::math::ptx_exp2(other_m - m_new);",
                        "const float a = 1.f, c = 0.f;")
    msg = planted("day11", "decode_warp", text)
    assert msg and "decode_warp o" in msg, msg


def test_decode_update_without_rescaling_o_fails(planted):
    text = _derive("decode_attention.cu", "st[g].o[i] = st[g].o[i] * a + p * vf[i];", "st[g].o[i] = st[g].o[i] + p * vf[i];")
    msg = planted("day11", "decode_attention", text, cases=SMALL_DECODE)
    assert msg and "decode_attention o" in msg, msg


def test_paged_pipeline_skipping_empty_commit_groups_fails(planted):
    """Exercise 5's attend commits a group only for a step that has a token: near the end wait_group
    counts too few groups and a step reads a slot whose copy has not landed (the emulator's data is the
    stale slot's or the zero-fill's)."""
    text = _derive("decode_paged.cu", "    course::cp_async::commit_group();  // even an empty group: wait_group counts them\n",
                   "    if (there) course::cp_async::commit_group();\n")
    msg = planted("day11", "decode_paged", text, cases=SMALL_PAGED)
    assert msg and "decode_paged" in msg, msg


def test_paged_block_merge_without_the_warp_shuffles_fails(planted):
    """Exercise 5's block_merge skips the shuffles: each warp hands on only its first token group's
    state, the other tokens of the warp are lost."""
    text = _derive("decode_paged.cu", "for (int mask = LANES; mask < 32; mask *= 2) {", "for (int mask = 32; mask < 32; mask *= 2) {")
    msg = planted("day11", "decode_paged", text, cases=SMALL_PAGED)
    assert msg and "decode_paged" in msg, msg


def test_page_walk_ignoring_last_page_len_fails(planted):
    """Every page taken as full: the last page's unused slots (NaN in the test's pool) are attended."""
    text = _derive("decode_paged.cu", "const int kv_len = num_pages > 0 ? (num_pages - 1) * page_size + kv_last_page_len[b] : 0;",
                   "const int kv_len = num_pages * page_size;")
    msg = planted("day11", "decode_paged", text, cases=SMALL_PAGED)
    assert msg and "decode_paged" in msg, msg


SEGMENTED_PAGED = [{"batch": 2, "kv_len": 5001, "page_size": 2, "num_qo_heads": 2, "num_kv_heads": 1, "chunks": 2}]


def test_page_table_indexed_by_the_request_page_fails(planted):
    """The staged table holds pages p0 .. p0 + TABLE_PAGES of the request: indexing it by the request's
    page number is right only in the first segment of the first chunk."""
    text = _derive("decode_paged.cu", "static_cast<int64_t>(table[p - p0])", "static_cast<int64_t>(table[p % TABLE_PAGES])")
    msg = planted("day11", "decode_paged", text, cases=SEGMENTED_PAGED)
    assert msg and "decode_paged" in msg, msg


def test_page_table_for_the_first_segment_only_fails(planted):
    """Staging the table once, before the loop, leaves a chunk of more than TABLE_PAGES pages reading
    a table of the wrong pages."""
    text = _derive("decode_paged.cu", "const int pages_here = (seg_end - 1) / page_size - p0 + 1;",
                   "const int pages_here = seg == begin ? (seg_end - 1) / page_size - p0 + 1 : 0;")
    msg = planted("day11", "decode_paged", text, cases=SEGMENTED_PAGED)
    assert msg and "decode_paged" in msg, msg


# ---- the other configurations (bf16, fp8 e4m3 with scales, head_dim 64 / 256, HND) ----------------

def _decode_case(kv_dtype: str, head_dim: int, layout: str) -> list[dict]:
    return [{**SMALL_DECODE[0], "kv_dtype": kv_dtype, "head_dim": head_dim, "layout": layout}]


def _paged_case(kv_dtype: str, head_dim: int, layout: str) -> list[dict]:
    return [{**SMALL_PAGED[0], "kv_dtype": kv_dtype, "head_dim": head_dim, "layout": layout}]


@pytest.mark.parametrize("name,cases", [("decode_attention", _decode_case("bfloat16", 128, "HND")),
                                        ("decode_paged", _paged_case("e4m3", 64, "HND"))])
def test_solutions_pass_other_configurations(planted, name, cases):
    assert planted("day11", name, (DAY11 / f"{name}.cu").read_text(), cases=cases, files=OWN) is None


def test_hnd_read_as_nhd_fails(planted):
    """The HND cache addressed with NHD's row offset: the right rows only for request 0, head 0."""
    text = _derive("decode_attention.cu", "  if constexpr (LAYOUT == KVLayout::HND) {\n", "  if constexpr (false) {\n")
    msg = planted("day11", "decode_attention", text, cases=_decode_case("float16", 128, "HND"))
    assert msg and "decode_attention o" in msg and "float16 d128 HND" in msg, msg


def test_paged_hnd_read_as_nhd_fails(planted):
    text = _derive("decode_paged.cu", "      if constexpr (LAYOUT == KVLayout::HND) {\n", "      if constexpr (false) {\n")
    msg = planted("day11", "decode_paged", text, cases=_paged_case("bfloat16", 64, "HND"))
    assert msg and "decode_paged" in msg and "bfloat16 d64 HND" in msg, msg


@pytest.mark.parametrize("old,new", [("scale_log2 * k_scale);", "scale_log2);"),
                                     ("    for (int i = 0; i < VEC; ++i) merged.o[i] *= v_scale;\n", "")],
                         ids=["k_scale", "v_scale"])
def test_fp8_scale_forgotten_fails(planted, old, new):
    """An fp8 cache holds k / k_scale and v / v_scale: without a scale, scores or outputs are off by it."""
    text = _derive("decode_attention.cu", old, new)
    msg = planted("day11", "decode_attention", text, cases=_decode_case("e4m3", 128, "NHD"))
    assert msg and "decode_attention o" in msg and "e4m3 d128 NHD" in msg, msg


def test_paged_fp8_v_scale_forgotten_fails(planted):
    text = _derive("decode_paged.cu", "out[i] = s.o[i] * v_scale;", "out[i] = s.o[i];")
    msg = planted("day11", "decode_paged", text, cases=_paged_case("e4m3", 64, "HND"))
    assert msg and "decode_paged o" in msg and "e4m3 d64 HND" in msg, msg


def test_bf16_treated_as_half_fails(planted):
    """bf16 bits converted as if they were fp16: every value wrong, finite or not."""
    text = _derive("decode_attention.cu", "kf[i] = course::to_float(k[i]), vf[i] = course::to_float(v[i]);",
                   "kf[i] = __half2float(reinterpret_cast<const half&>(k[i])), "
                   "vf[i] = __half2float(reinterpret_cast<const half&>(v[i]));")
    msg = planted("day11", "decode_attention", text, cases=_decode_case("bfloat16", 128, "NHD"))
    assert msg and "decode_attention o" in msg and "bfloat16 d128 NHD" in msg, msg
