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
