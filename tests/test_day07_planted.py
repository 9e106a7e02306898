"""Day 7's checks against planted wrong kernels: each is derived from the solution by one targeted
replacement, and each must fail with a message that names what is wrong (the solution passes)."""
import re

import pytest

from grader import sass
from grader.paths import SOLUTIONS
from grader.pytest_plugin import require_sass_tools

require_sass_tools()

DAY7 = SOLUTIONS / "day07"
OWN = {"cp_async.cuh": (DAY7 / "cp_async.cuh").read_text()}  # exercise 1's header, beside async_copy.cu


def _derive(file: str, old: str, new: str) -> str:
    text = (DAY7 / file).read_text()
    assert text.count(old) == 1, f"{file}: the planted replacement no longer matches the solution: {old!r}"
    return text.replace(old, new)


def test_solutions_pass(planted):
    for name, file in (("async_copy", "async_copy.cu"), ("double_buffer", "double_buffer.cu"),
                       ("pipeline", "pipeline.cu"), ("qk_scores", "qk_scores.cu")):
        assert planted("day07", name, (DAY7 / file).read_text(), files=OWN) is None, name


# ---- async_copy ---------------------------------------------------------------------------------

PLAIN_STAGING = _derive(
    "async_copy.cu", "  cpa::copy_zfill<BYTES>(tile + tid * (BYTES / 4), in + first, src_bytes);\n",
    "  for (int q = 0; q < BYTES / 4; ++q) tile[tid * (BYTES / 4) + q] = 4 * q < src_bytes ? in[first + q] : 0.f;\n")


def test_plain_loads_into_shared_memory_fail_the_technique(planted):
    """Right values, but staged through registers (LDG + STS): not what day 7 teaches."""
    msg = planted("day07", "async_copy", PLAIN_STAGING, files=OWN)
    assert msg and "LDGSTS (cp.async)" in msg and "technique" in msg, msg


def test_the_course_header_instead_of_your_own_ptx_fails(planted):
    """async_copy.cu on the course's version (through course/cp_async.cuh) instead of its own header."""
    text = _derive("async_copy.cu", '#include "cp_async.cuh"\n', "#include <course/cp_async.cuh>\n")
    msg = planted("day07", "async_copy", text)
    assert msg and "the course's finished cp.async header" in msg, msg


def test_no_zero_fill_leaves_the_tail_unwritten(planted):
    """Copies issued only where all BYTES exist: the partial piece and the tail keep their NaN poison."""
    text = _derive("async_copy.cu", "  cpa::copy_zfill<BYTES>(tile + tid * (BYTES / 4), in + first, src_bytes);\n",
                   "  if (src_bytes == BYTES) cpa::copy_zfill<BYTES>(tile + tid * (BYTES / 4), in + first, BYTES);\n")
    msg = planted("day07", "async_copy", text, files=OWN)
    assert msg and re.search(r"async_copy_\d+b out\[", msg) and "elements" in msg, msg


def test_commit_without_wait_reads_copies_not_landed(planted):
    text = _derive("async_copy.cu", "  cpa::commit_group();\n  cpa::wait_group<0>();\n", "  cpa::commit_group();\n")
    msg = planted("day07", "async_copy", text, files=OWN)
    assert msg and "no DEPBAR" in msg, msg


# ---- double_buffer ------------------------------------------------------------------------------

def test_waiting_too_little_uses_a_tile_before_it_lands(planted):
    msg = planted("day07", "double_buffer", _derive("double_buffer.cu", "    cpa::wait_group<1>();\n", "    cpa::wait_group<2>();\n"))
    # on a GPU the tile read early gives wrong results; the emulator names the read (ordering.py)
    assert msg and ("double_buffer out" in msg or "read before cp.async.wait_group" in msg), msg


def test_no_empty_group_at_the_end_skips_the_wait_for_the_last_tile(planted):
    """Committing only when a tile was issued: on the last step wait_group<1> lets the LAST tile,
    not the one after it, stay in flight."""
    text = _derive("double_buffer.cu",
                   "    issue_tile(buf[(k + 1) % 2], in, t + step, num_tiles, n);\n    cpa::commit_group();\n",
                   "    if (t + step < num_tiles) {\n      issue_tile(buf[(k + 1) % 2], in, t + step, num_tiles, n);\n"
                   "      cpa::commit_group();\n    }\n")
    msg = planted("day07", "double_buffer", text)
    # on a GPU the tile read early gives wrong results; the emulator names the read (ordering.py)
    assert msg and ("double_buffer out" in msg or "read before cp.async.wait_group" in msg), msg


# ---- pipeline -----------------------------------------------------------------------------------

def test_waiting_for_one_group_too_few_fails(planted):
    msg = planted("day07", "pipeline", _derive("pipeline.cu", "    cpa::wait_group<STAGES - 1>();\n", "    cpa::wait_group<STAGES>();\n"))
    assert msg and "pipeline_s" in msg, msg


WAIT_ALL = _derive("pipeline.cu", "    cpa::wait_group<STAGES - 1>();\n", "    cpa::wait_group<0>();\n")


def _wait_counts(path, kernel: str) -> set[int]:
    """The counts of the kernel's DEPBAR.LE SB0, N (cp.async.wait_group N) instructions."""
    _, code, _ = sass.load(path)
    return {int(m.group(1), 0) for line in code[kernel]
            if (m := re.search(r"\bDEPBAR\.LE SB0, (0x[0-9a-f]+|\d+)", line))}


@pytest.mark.parametrize("stages", (2, 3, 4, 6, 8))
def test_waiting_for_everything_is_seen_in_the_sass(tmp_path, stages):
    """wait_group<0> on every step is correct but overlaps nothing, so the results cannot catch it.
    The SASS can: the solution's pipeline_sS waits with DEPBAR.LE SB0, S - 1, the planted one with 0."""
    planted_file = tmp_path / "pipeline.cu"
    planted_file.write_text(WAIT_ALL)
    assert _wait_counts(DAY7 / "pipeline.cu", f"pipeline_s{stages}") == {stages - 1}
    assert _wait_counts(planted_file, f"pipeline_s{stages}") == {0}


def test_waiting_for_everything_fails_the_technique(planted):
    msg = planted("day07", "pipeline", WAIT_ALL, cases=[{"n": 31, "stages": 2, "blocks": 1}])
    assert msg and "cp.async.wait_group 1 (DEPBAR.LE SB0, 0x1)" in msg and "in flight" in msg, msg


# ---- qk_scores ----------------------------------------------------------------------------------

def test_half_a_butterfly_fails(planted):
    text = _derive("qk_scores.cu", "for (int o = 16; o > 0; o /= 2)", "for (int o = 8; o > 0; o /= 2)")
    msg = planted("day07", "qk_scores", text)
    assert msg and "qk_scores" in msg and "allowed error" in msg, msg


def test_k_through_registers_fails_the_technique(planted):
    text = _derive("qk_scores.cu", "      cpa::load_128b(stage + row * D + col, k + j * D + col, j < n);\n",
                   "      *reinterpret_cast<float4*>(stage + row * D + col) =\n"
                   "          j < n ? *reinterpret_cast<const float4*>(k + j * D + col) : make_float4(0.f, 0.f, 0.f, 0.f);\n")
    msg = planted("day07", "qk_scores", text)
    assert msg and "LDGSTS (cp.async)" in msg, msg
