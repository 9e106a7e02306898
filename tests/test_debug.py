"""grader.debug: the float64 tile-by-tile reference, and the first diverging KV tile of planted kernels
(modified copies of the solutions) on small sizes the emulator runs; the solutions agree throughout."""
import math
from pathlib import Path

import numpy as np
import pytest

from grader import cli, debug, device
from grader.references.prefill_attention import attention_reference, visible_keys
from grader.paths import SOLUTIONS

SMALL12 = {"heads": 1, "q_len": 40, "kv_len": 150, "head_dim": 64}  # tiles of 64: 2 full, 1 partial
SMALL11 = {"batch": 2, "kv_len": 24, "heads": 2, "kv_heads": 2}
SEED = 5


def _planted(tmp_path, day: str, file: str, old: str, new: str, header: str | None = None):
    """`file` of the solution copied to tmp_path with `old` replaced; with `header`, the replacement is
    made in that header of the day (day 12's warp steps live in prefill_steps.cuh), copied beside it."""
    planted = header or file
    text = (SOLUTIONS / day / planted).read_text()
    assert text.count(old) == 1, f"{planted}: the planted replacement no longer matches the solution: {old!r}"
    (tmp_path / planted).write_text(text.replace(old, new))
    if header:
        (tmp_path / file).write_text((SOLUTIONS / day / file).read_text())
    return str(tmp_path / file)


# ---- the reference ------------------------------------------------------------------------------

@pytest.mark.parametrize("causal", [False, True])
def test_the_last_tile_is_attention(causal):
    """After the last tile (a partial one) the online state's O / l is softmax(s) v, in float64."""
    rng = np.random.default_rng(1)
    q, k, v = (rng.standard_normal((2, n, 64)).astype(np.float16) for n in (30, 77, 77))
    x = q.astype(np.float64) @ k.astype(np.float64).transpose(0, 2, 1) / math.sqrt(64) * debug.LOG2E
    x[:, visible_keys(30, 77, causal)[:, None] <= np.arange(77)[None, :]] = -np.inf
    states = list(debug.online_tiles(x, v, 16))
    assert [(s.begin, s.end) for s in states] == [(0, 16), (16, 32), (32, 48), (48, 64), (64, 77)]
    np.testing.assert_allclose(states[-1].output(), attention_reference(q, k, v, causal), rtol=1e-12, atol=1e-12)
    # the running max only grows, and a tile after which it grew has rescaled the earlier part
    assert all(np.all(b.m >= a.m) for a, b in zip(states, states[1:]))


def test_an_empty_row_stays_empty():
    x = np.array([[-np.inf, -np.inf, 1.0, 2.0]])
    first, second = debug.online_tiles(x, np.ones((4, 3)), 2)
    assert np.isneginf(first.m[0]) and first.l[0] == 0 and not first.output().any()
    assert second.m[0] == 2.0 and second.l[0] == pytest.approx(1.5)


def test_row_errors_count_a_nan_as_infinite():
    err = debug.row_errors(np.array([[1.0, np.nan], [1.0, 2.0]]), np.array([[1.0, 1.0], [1.0, 2.0]]))
    assert np.isinf(err[0]) and err[1] == 0


# ---- day 12 -------------------------------------------------------------------------------------

def test_prefill_solution_agrees_after_every_tile():
    report = debug.debug("day12", "prefill", solutions=True, seed=SEED, **SMALL12)
    assert report.agrees, report.text()
    assert report.steps == ["tile 0", "tile 1", "tile 2"]
    assert "agree after every step" in report.text()


@pytest.mark.parametrize("name", ["prefill", "prefill_causal"])
def test_a_missing_rescale_of_o_is_found_on_the_first_tile_whose_max_rises(tmp_path, name):
    """d is rescaled when a row's max grows, O is not: tile 0 cannot show it (O is still 0 when it is
    scaled), tile 1 does, and the report says that the row's max rose there."""
    source = _planted(tmp_path, "day12", "attention_prefill.cu",
                      "#pragma unroll\n    for (int i = 0; i < 2 * Tr::D_N8; ++i) st.o[i] *= alpha;\n", "",
                      header="prefill_steps.cuh")
    # with the exact max (SLACK 0): the solution keeps a max up to 4 stale, which normal scores rarely
    # outgrow after tile 0, so its o would seldom need the rescale this kernel leaves out
    kernel, slack = Path(source), "#define PREFILL_RESCALE_SLACK 4"
    assert slack in kernel.read_text(), "the solution's slack changed: this test sets it to 0"
    kernel.write_text(kernel.read_text().replace(slack, "#define PREFILL_RESCALE_SLACK 0"))
    report = debug.debug("day12", name, source=source, seed=SEED, **SMALL12)
    assert not report.agrees
    d = report.divergence
    assert d.step == "KV tile 1 (keys 64..127)", report.text()
    assert "the row max rises" in "\n".join(d.detail) and abs(d.got - d.expected) > 1e-3
    assert report.steps == ([] if name.endswith("causal") else ["tile 0"])  # causal: tile 0 ends no query's keys


def test_a_mask_past_kv_len_is_found_on_the_partial_tile(tmp_path, capsys):
    """Keys up to kv_len + 8 are let through: only the last, partial tile (keys 128..149) has such keys.
    Through the command line, as a student runs it."""
    source = _planted(tmp_path, "day12", "attention_mma.cu", "      if (col >= kv_len ||",
                      "      if (col >= kv_len + 8 ||", header="prefill_steps.cuh")
    args = ["debug", "day12", "attention_mma", "--source", source, "--seed", str(SEED)]
    args += [f"--{k.replace('_', '-')}={v}" for k, v in SMALL12.items()]
    assert cli.main(args) == 1
    out = capsys.readouterr().out
    assert "agree before it: tile 0 .. tile 1: 2 steps" in out, out
    assert "FIRST DIVERGENCE after KV tile 2 (keys 128..149): head 0, query" in out and "expected" in out, out


# ---- day 11 -------------------------------------------------------------------------------------

def test_decode_warp_solution_agrees():
    report = debug.debug("day11", "decode_warp", solutions=True, seed=SEED, **SMALL11)
    assert report.agrees and len(report.steps) == 12, report.text()


def test_decode_warp_update_without_rescale_is_found(tmp_path):
    """o is not rescaled when a lane group's max grows: the first step after which it can (tile 1, the
    second token of each lane group) diverges."""
    source = _planted(tmp_path, "day11", "decode_warp.cu", "acc[i] = acc[i] * scale + p * vf[i];",
                      "acc[i] = acc[i] + p * vf[i];")
    report = debug.debug("day11", "decode_warp", source=source, seed=SEED, **SMALL11)
    assert report.divergence and report.divergence.step == "KV tile 1 (tokens 2..3)", report.text()
    assert "the max of token group" in "\n".join(report.divergence.detail)


def test_decode_paged_solution_agrees_tile_by_tile_chunk_by_chunk_and_merged():
    report = debug.debug("day11", "decode_paged", solutions=True, seed=SEED, batch=2, kv_len=40, heads=4,
                         kv_heads=2, chunks=3)
    assert report.agrees, report.text()
    assert report.steps[-4:] == ["chunk 0", "chunk 1", "chunk 2", "merge"]


def test_a_merge_that_forgets_to_normalise_is_named(tmp_path):
    """merge_chunks stores o without dividing by the merged d: every tile and every chunk agree, the
    merge does not."""
    source = _planted(tmp_path, "day11", "decode_paged.cu", "  st.normalize();\n  course::store_from_float(o + r",
                      "  course::store_from_float(o + r")
    report = debug.debug("day11", "decode_paged", source=source, seed=SEED, batch=2, kv_len=40, heads=4,
                         kv_heads=2, chunks=3)
    assert report.divergence and report.divergence.step.startswith("the merge of the 3 chunks"), report.text()
    assert report.steps[-3:] == ["chunk 0", "chunk 1", "chunk 2"]


def test_a_wrong_chunk_lse_is_named(tmp_path):
    """A chunk's lse2 written as its max alone (m, not m + log2 d): its partial o is right, its lse2 not."""
    source = _planted(tmp_path, "day11", "decode_paged.cu", "if (dim0 == 0) tmp_lse2[part] = s.lse2();",
                      "if (dim0 == 0) tmp_lse2[part] = s.m;")
    report = debug.debug("day11", "decode_paged", source=source, seed=SEED, batch=2, kv_len=40, heads=4,
                         kv_heads=2, chunks=3)
    d = report.divergence
    assert d and d.step.startswith("split-KV chunk 0") and "lse2" in d.where, report.text()


# ---- bad input: one line, before anything is compiled --------------------------------------------

@pytest.mark.parametrize("args,message", [
    (["day05", "x"], "day11 or day12"),
    (["day12", "qk_tile"], "debug takes attention_scalar"),
    (["day11", "decode_paged", "--q-len", "3"], "--q-len does not apply to day11"),
    (["day12", "prefill", "--solutions", "--source", "x.cu"], "choose one"),
    (["day12", "prefill", "--source", "no_such.cu"], "no kernel source no_such.cu"),
    (["day12", "prefill_causal", "--q-len", "300", "--kv-len", "200"], "q_len=300 > kv_len=200"),
])
def test_bad_input_is_one_line(capsys, args, message):
    assert cli.main(["debug", *args]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1, err


@pytest.mark.gpu
def test_on_the_gpu_a_long_causal_prefill_is_followed_tile_by_tile(tmp_path):
    if device.why_not_hardware():
        pytest.skip(f"needs a CUDA GPU: {device.why_not_hardware()}")
    source = _planted(tmp_path, "day12", "attention_prefill.cu",
                      "#pragma unroll\n    for (int i = 0; i < 2 * Tr::D_N8; ++i) st.o[i] *= alpha;\n", "",
                      header="prefill_steps.cuh")
    sizes = {"heads": 4, "q_len": 1000, "kv_len": 1000, "head_dim": 128}
    assert debug.debug("day12", "prefill_causal", solutions=True, seed=SEED, **sizes).agrees
    report = debug.debug("day12", "prefill_causal", source=source, seed=SEED, **sizes)
    assert report.divergence and report.divergence.step == "KV tile 1 (keys 64..127)", report.text()
    assert debug.debug("day11", "decode_attention", solutions=True, seed=SEED, batch=4, kv_len=1000, heads=32,
                       kv_heads=8).agrees


# ---- replaying the last failure -----------------------------------------------------------------

def test_the_last_failing_case_is_replayed_by_default(tmp_path, monkeypatch, capsys):
    """A causal diagonal one key late agrees on the unmasked default; recorded as the last failure of
    attention_mma_causal (as pytest records it), `debug day12 attention_mma` replays that causal case
    with its seed and finds it, and says so; once the exercise passes, nothing is left to replay."""
    from grader import paths, progress

    monkeypatch.setattr(progress, "FAILURES", tmp_path / "failures.json")
    monkeypatch.setattr(progress, "FILE", tmp_path / "progress.json")
    monkeypatch.delenv(paths.SOURCE_DIR_ENV, raising=False)
    monkeypatch.delenv(paths.KERNELS_ENV, raising=False)
    progress.record_failure("day12/attention_mma_causal", {**SMALL12, "causal": True}, SEED)
    _planted(tmp_path, "day12", "attention_mma.cu", "      if (col >= kv_len || (CAUSAL && col > row + causal_offset))",
             "      if (col >= kv_len || (CAUSAL && col > row + causal_offset + 1))", header="prefill_steps.cuh")
    monkeypatch.setenv(paths.SOURCE_DIR_ENV, str(tmp_path))  # the student's file: the planted one
    assert debug.debug("day12", "attention_mma", **SMALL12).agrees  # sizes given: no replay, no mask
    assert cli.main(["debug", "day12", "attention_mma"]) == 1
    out = capsys.readouterr().out
    assert "replaying the last failing case of day12/attention_mma_causal" in out and f"seed {SEED}" in out, out
    assert "causal" in out and "FIRST DIVERGENCE" in out, out
    monkeypatch.delenv(paths.SOURCE_DIR_ENV)
    progress.record([{"exercise": "day12/attention_mma_causal", "status": "passed", "passed": 10, "failed": 0,
                      "skipped": 0}], "pytest")
    assert progress.last_failure("day12/attention_mma_causal") is None
