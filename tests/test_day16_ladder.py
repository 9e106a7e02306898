"""Day 16's ladder: three rungs in one file, each its own kernels, technique and benchmark. Each rung's
technique asks for what the rung below lacks (test_day16_planted.py proves it on the SASS), and its
benchmark draws the rung below beside it, dotted and not held to the target."""
import matplotlib

from grader import bench, hints, plots
from grader.exercises import day16

matplotlib.use("Agg")


def test_each_rung_checks_its_own_kernels_and_adds_to_the_one_below():
    serial, overlap, pingpong, causal = (ex.technique[0] for ex in day16.EXERCISES)
    assert all(k.startswith("attention_wgmma_serial_") for k in serial.kernels)
    assert all(k.startswith("attention_wgmma_overlap_") for k in overlap.kernels)
    assert set(pingpong.kernels) | set(causal.kernels) == {f"attention_wgmma_d{d}{c}" for d in (64, 128)
                                                           for c in ("", "_causal")}
    assert not serial.require_lines and "BAR\\.ARV" not in serial.require
    assert overlap.require_lines and "BAR\\.ARV" not in overlap.require
    assert pingpong.require_lines and "BAR\\.ARV" in pingpong.require
    assert set(serial.require) <= set(overlap.require) <= set(pingpong.require)


def test_the_rung_below_is_drawn_dotted_and_named_in_chinese():
    sizes = [512, 1024, 2048]
    r = bench.Report("attention_wgmma_overlap (overlap in a warpgroup)", "sequence length", "TFLOP/s")
    r.series["yours"] = [bench.Measurement("yours", s, 1.0, flops=1e12) for s in sizes]
    r.series["previous rung, serial (yours)"] = [bench.Measurement("p", s, 2.0, flops=1e12) for s in sizes]
    r.ceiling = [bench.Measurement("torch SDPA cuDNN", s, 0.5, flops=1e12) for s in sizes]
    r.earlier = ("previous rung, serial (yours)",)
    fig = plots.plot(r)
    styles = {line.get_label().split(" (")[0]: line.get_linestyle() for line in fig.axes[0].get_lines()}
    assert styles["yours"] == "-" and styles["previous rung, serial"] == ":", styles
    assert plots.translate("previous rung, serial (yours)", "zh") == "上一级、串行（你的）"


def test_a_rung_shows_the_hints_of_the_softmax_and_of_its_own_schedule():
    first = hints.hints("day16", "attention_wgmma_serial", 3)
    second = hints.hints("day16", "attention_wgmma_overlap", 3)
    third = hints.hints("day16", "attention_wgmma_causal", 3)
    assert len(first) == len(second) == len(third) == 2
    assert first[0] == second[0] == third[0]  # the softmax, written once
    text = ["\n".join(t for _, t in part[1]) for part in (first, second, third)]
    assert "empty barrier" in text[0] and "wgmma_wait<1>" not in text[0] and "turn" not in text[0]
    assert "other P buffer" in text[1] and "turn" not in text[1]
    assert "bar.sync" in text[2]


def test_the_solution_runs_its_exponentials_while_p_v_does():
    """Rungs 2 and 3 of the course's file (NVRTC, sm_90a): between wgmma_wait<1> (WARPGROUP.DEPBAR.LE gsb0,
    0x1) and wgmma_wait<0> a tile's 64 exponentials (MUFU.EX2) run while P V is on the tensor cores. ptxas
    moves a wait to the top of its basic block; the given branch on l after the softmax keeps it below. A
    ptxas that undid it would lose the overlap (99% -> 92% of cuDNN at d 128) with correct results."""
    from grader import sass, technique
    from grader.paths import SOLUTIONS

    _, dis, _ = sass.load(SOLUTIONS / "day16" / "attention_wgmma.cu")
    overlapped = {k: lines for k, lines in dis.items() if "serial" not in k}
    assert len(overlapped) == 8, sorted(dis)
    start, end, opcode = day16._OVERLAP_WINDOW[:3]  # the overlap rungs' own check, at the solution's count
    for kernel, lines in overlapped.items():
        most = technique._most_between(lines, start, end, opcode)
        assert most is not None and most >= 64, f"{kernel}: at most {most} MUFU.EX2 between the waits"
