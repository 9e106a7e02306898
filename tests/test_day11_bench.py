"""Day 11's decode_attention benchmark without a GPU: it times an fp16 and an e4m3 cache at kv_len's that
read the same KV bytes (one copy ceiling for both), holds the e4m3 series to the target only where the
file turns its optional fp8 path on, and notes e4m3's tokens per second over fp16's at the kv_len's both
were timed at. The sweep itself is replaced (its points would be GiBs on the emulator)."""
from types import SimpleNamespace

import pytest

from grader import bench
from grader.exercises import day11
from grader.paths import SOLUTIONS


def test_the_caches_read_the_same_bytes_at_each_point():
    for quick in (True, False):
        lens = day11.bench_lens(quick, day11.BENCH_KV_DTYPES)
        assert [2 * n for n in lens["float16"]] == lens["e4m3"]
        for n16, n8 in zip(lens["float16"], lens["e4m3"]):
            assert day11.kv_bytes(64, n16, 8) == day11.kv_bytes(64, n8, 8, kv_dtype="e4m3")
        assert day11.kv_bytes(64, lens["float16"][-1], 8) == 2 << 30  # the target's point: 2 GiB of KV
        assert set(lens["float16"]) & set(lens["e4m3"]), "no kv_len to compare tokens per second at"
    assert day11.bench_lens(True, ("e4m3",)) == {"e4m3": [1024, 4096, 8192]}


def _fake_sweep(gbps: dict):
    """bandwidth_sweep without launches: series label -> GB/s at every point, a copy ceiling of 3000."""
    def sweep(report, series, make, points, nbytes, xs=None, ceiling=None):
        assert len(points) == len(nbytes)
        for label in series:
            report.series[label] = [bench.Measurement(label, n, n / (gbps[label] * 1e6), n) for n in nbytes]
        report.ceiling = [bench.Measurement("copy (ceiling)", n, n / 3e6, n) for n in nbytes]
        return report
    return sweep


@pytest.fixture
def modules():
    on = (SOLUTIONS / "day11" / "decode_attention.cu").read_text()
    assert day11.fp8_on_tensor_cores(SimpleNamespace(code=on)), "the solution turns its fp8 path on"
    off = on.replace("FP8_ON_TENSOR_CORES = true;", "FP8_ON_TENSOR_CORES = false;")
    return {"yours": SimpleNamespace(code=off), "solution": SimpleNamespace(code=on)}


def test_both_caches_are_timed_and_e4m3_held_only_where_turned_on(monkeypatch, modules):
    gbps = {"yours float16": 2900, "yours e4m3": 1300, "solution float16": 2910, "solution e4m3": 2940}
    monkeypatch.setattr(bench, "bandwidth_sweep", _fake_sweep(gbps))
    report = day11.bench_decode_attention(modules, quick=True)
    assert list(report.series) == list(gbps)
    assert report.earlier == ("yours e4m3",)  # the stub's switch: drawn, not held
    held = {label: report.final_ratio(label) for label in report.series if label not in report.earlier}
    assert min(held.values()) > next(e for e in day11.EXERCISES if e.name == "decode_attention").target
    assert any("FP8_ON_TENSOR_CORES" in note and "yours e4m3" in note for note in report.notes)
    ratios = [note for note in report.notes if "tokens per second" in note]
    # kv_len 8192 (quick): e4m3 1 GiB against fp16 2 GiB, tokens per second 2 x the GB/s ratio
    assert len(ratios) == 2 and ratios[1].endswith(f"8192: {2 * 2940 / 2910:.2f}x"), ratios


def test_one_cache_alone_as_before(monkeypatch, modules):
    monkeypatch.setattr(bench, "bandwidth_sweep", _fake_sweep({"solution": 1000}))
    report = day11.bench_decode_attention({"solution": modules["solution"]}, quick=True, kv_dtype="e4m3")
    assert list(report.series) == ["solution"] and report.earlier == () and report.notes == []
    assert report.ceiling[-1].nbytes == day11.kv_bytes(64, 8192, 8, kv_dtype="e4m3")
