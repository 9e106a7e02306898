"""Pictures without a GPU: the emulator's instruction mix (warp instructions per PTX family, by the SASS
they become), the figure `nb.bench` shows and `python -m grader bench` saves in place of bandwidth
plots, and its labels in Chinese."""
import re
import warnings

import numpy as np
import pytest

from grader import cli, device, exercises, notebook, paths
from grader.emulator import report

# Per warp: one cp.async (16 bytes a thread), its commit and wait, a barrier, one ldmatrix, `rounds`
# mma (a loop the compiler cannot unroll), five shuffles and one store (lane 0). With `first_warp_only`
# the second warp leaves before its shuffles and store.
PROBE = r"""
extern "C" __global__ void mix_probe(const float* in, float* out, int rounds, int first_warp_only) {
    __shared__ __align__(16) unsigned short tile[64 * 8];
    int t = threadIdx.x;
    unsigned dst = (unsigned)__cvta_generic_to_shared(tile + t * 8);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(dst), "l"(in + t * 4));
    asm volatile("cp.async.commit_group;");
    asm volatile("cp.async.wait_group 0;");
    __syncthreads();
    unsigned a, row = (unsigned)__cvta_generic_to_shared(tile + (t % 8) * 8);
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(a) : "r"(row));
    float c0 = 0.f, c1 = 0.f, c2 = 0.f, c3 = 0.f;
    for (int r = 0; r < rounds; ++r)
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%4,%4,%4}, {%4,%4}, "
                     "{%0,%1,%2,%3};" : "+f"(c0), "+f"(c1), "+f"(c2), "+f"(c3) : "r"(a));
    if (first_warp_only && t >= 32) return;
    float v = c0 + c1 + c2 + c3;
    for (int o = 16; o; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    if (t % 32 == 0) out[t / 32] = v;
}
"""


@pytest.fixture
def emulator(monkeypatch):
    monkeypatch.setenv(device.BACKEND_ENV, "emulator")
    monkeypatch.setenv(paths.KERNELS_ENV, "days")
    monkeypatch.setenv(notebook.LANG_ENV, "en")
    monkeypatch.chdir(paths.ROOT)
    import matplotlib
    import matplotlib.pyplot as plt

    matplotlib.use("Agg")
    with matplotlib.rc_context():
        yield
    plt.close("all")


@pytest.fixture(scope="module")
def probe():
    from grader import emulator

    return emulator.load_source(PROBE, "mix_probe.cu").get_function("mix_probe")


@pytest.mark.parametrize("rounds, first_warp_only", [(3, 0), (5, 1)])
def test_the_mix_counts_each_family_once_per_warp_that_runs_it(emulator, probe, rounds, first_warp_only):
    from grader import emulator as emu

    x = emu.DeviceArray.from_host(np.random.default_rng().standard_normal(256).astype(np.float32))
    out = emu.DeviceArray.empty(2, np.float32)
    launch = probe((1,), (64,), (x, out, np.int32(rounds), np.int32(first_warp_only)))
    mix = report.instruction_mix(launch)
    late = 1 if first_warp_only else 2  # warps that reach the shuffles and the store
    assert {f: mix[f] for f in ("cp.async", "ldmatrix", "mma", "shfl", "st.global", "ld.global", "ld.shared")} == {
        "cp.async": 2, "ldmatrix": 2, "mma": 2 * rounds, "shfl": 5 * late, "st.global": late, "ld.global": 0,
        "ld.shared": 0}
    assert mix["bar"] == 2 * 3  # commit, wait and __syncthreads, per warp
    assert list(mix) == list(report.SASS) and sum(mix.values()) == launch.instructions
    assert "HMMA (mma) " + f"{2 * rounds:,}" in report.mix_text(mix)


@pytest.mark.parametrize("opcode, spaces, family", [
    ("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32", (), "mma"), ("wmma.mma.sync.aligned", (), "mma"),
    ("wmma.load.a.sync.aligned", (), "other"), ("cp.async.ca.shared.global", (), "cp.async"),
    ("cp.async.wait_group", (), "bar"), ("ld.global.nc.v4.u32", (), "ld.global"),
    ("ld.u32", ("shared",), "ld.shared"),
    ("st.u32", ("global",), "st.global"), ("ld.u32", ("global", "shared"), "other"), ("ld.param.u64", (), "other"),
    ("red.global.add.f32", (), "atom"), ("shfl.sync.bfly.b32", (), "shfl"), ("barrier.sync", (), "bar")])
def test_families(opcode, spaces, family):
    assert report.family(opcode, spaces) == family


def _bars(ax) -> list[float]:
    return [v for c in ax.containers for v in c.datavalues]


@pytest.mark.parametrize("name, case", [
    ("silu_and_mul", {"rows": 5, "d": 33, "dtype": "float16"}),
    ("gemm", {"m": 33, "n": 31, "k": 24})])
def test_bench_on_the_emulator_draws_yours_and_the_solution(emulator, monkeypatch, capsys, name, case):
    day = "day02" if name == "silu_and_mul" else "day10"
    monkeypatch.setattr(report, "largest_case", lambda ex: case)
    fig = notebook.bench(day, name)
    sectors, moved, shared, mix = fig.axes
    labels = [t.get_text() for t in sectors.get_xticklabels()]
    assert labels[0] in ("yours", "yours (failed)") and labels[1:] == ["solution"]  # days/ holds the stub
    assert len(sectors.patches) == len(moved.patches) == 2
    solution = dict(zip([t.get_text() for t in mix.get_yticklabels()], mix.containers[1].datavalues))
    out = capsys.readouterr().out
    assert "not timed on the emulator" in out and "instruction mix:" in out
    rows = [r for r in report.memory_rows() if r["kind"] == "global"]  # the solution's launch, table by table
    requests = sum(r["requests"] for r in rows)
    assert _bars(sectors)[1] == pytest.approx(sum(r["per_request"] * r["requests"] for r in rows) / requests)
    if name == "gemm":  # tensor cores fed by cp.async and ldmatrix, through shared memory
        assert all(solution[k] > 0 for k in ("HMMA (mma)", "LDGSTS (cp.async)", "LDSM (ldmatrix)"))
        assert shared.axison and _bars(shared) and min(_bars(shared)) >= 1
    else:  # 16-byte global loads and stores, no shared memory
        assert solution["LDG (ld.global)"] > 0 and "HMMA (mma)" not in solution
        assert not shared.axison and shared.texts[0].get_text() == "no shared-memory instruction"


def test_grader_bench_without_a_gpu_saves_the_pictures(emulator, monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(report, "largest_case", lambda ex: ex.cases[3])
    assert cli.main(["bench", "day02", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    benched = [ex.name for ex in exercises.day_exercises("day02") if ex.bench is not None]
    for name in benched:
        png = tmp_path / f"day02-{name}-emulator.png"
        assert f"pictures: {png}" in out and png.stat().st_size > 20_000


GLOSSARY = {"PTX", "sector", "wavefront", "warp"}  # English kept beside the Chinese, as the glossary does
NAMES = set(re.findall(r"[A-Za-z]+", " ".join([*report.SASS.values(), *report.SASS]))) - {"other"}


def untranslated(texts) -> list[str]:
    """The texts holding an English word that is neither a name (of a kernel, a file and line, a SASS or
    PTX instruction, a case's parameter) nor a glossary term: a label without its translation."""
    bad = []
    for text in texts:
        words = re.findall(r"[A-Za-z]+", re.sub(r"\(in [^)]*\)|\S*[_\d./:=]\S*", " ", text))
        if set(words) - GLOSSARY - NAMES:
            bad.append(text)
    return bad


def test_the_chinese_figure_has_every_label_translated(emulator, monkeypatch):
    pytest.importorskip("mplfonts", reason="the zh extra (mplfonts) is not installed: pip install -e '.[zh]'")
    monkeypatch.setenv(notebook.LANG_ENV, "zh")
    monkeypatch.setattr(report, "largest_case", lambda ex: {"m": 16, "n": 8, "k": 16})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fig = notebook.bench("day10", "gemm")
        fig.canvas.draw()
    texts = [t.get_text() for t in fig.findobj(lambda o: hasattr(o, "get_text")) if t.get_text().strip()]
    assert "指令构成" in texts and any("PTX 模拟器" in t for t in texts)
    assert not untranslated(texts), untranslated(texts)
    assert not [w for w in caught if "missing from font" in str(w.message)]
    assert untranslated(["instruction mix", "你的 (未通过)"]) == ["instruction mix"]  # the check can fail
