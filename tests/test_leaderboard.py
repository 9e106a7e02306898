"""`python -m grader leaderboard`: times cannot be faked.

Three planted day-1 kernels pass the ordinary check (one run per case) yet must be rejected: one caches
its results between launches, one writes only on its first launch of a size, one returns early on
inputs it has seen. Fresh inputs for every run, poisoned outputs checked after every run and a repeat of
the last inputs catch them on the emulator as on a GPU; the physical bound and the outlier count are
checked on made-up measurements, and the timings themselves on a GPU.
"""
from __future__ import annotations

import csv
import os
import sys
from pathlib import Path

import pytest

from grader import cli, device, exercises, isolation, leaderboard, paths

DAY = "day01"
EX = exercises.get(DAY, "vector_add")
SOLUTION = (paths.SOLUTIONS / DAY / "vector_add.cu").read_text()
ADD = "if (i < n) c[i] = a[i] + b[i];"
CASE = {"n": 1000}


def _planted(state: str, body: str) -> str:
    """The solution with device globals that outlive a launch (`state`) and `body` before its store."""
    assert ADD in SOLUTION and 'extern "C"' in SOLUTION
    return SOLUTION.replace('extern "C"', state + 'extern "C"', 1).replace(ADD, body + "\n  " + ADD)


CHEATS = {  # name: (kernel, the rule the leaderboard names)
    "caches": (_planted("__device__ float kept_c[1 << 16];\n__device__ long long kept_n[1 << 16];\n",
                        "if (i < n && i < (1 << 16) && kept_n[i] == n + 1) { c[i] = kept_c[i]; return; }\n"
                        "  if (i < n && i < (1 << 16)) { kept_c[i] = a[i] + b[i]; kept_n[i] = n + 1; }"),
               "must not reuse an earlier launch's result"),
    "first_launch_only": (_planted("__device__ long long done_n[1 << 16];\n",
                                   "if (i < n && i < (1 << 16)) {\n    if (done_n[i] == n + 1) return;\n"
                                   "    done_n[i] = n + 1;\n  }"),
                          "wrong output in warm-up run 1"),
    "skips_repeats": (_planted("__device__ float seen_a[1 << 16];\n__device__ float seen_b[1 << 16];\n",
                               "if (i < n && i < (1 << 16)) {\n"
                               "    if (seen_a[i] == a[i] && seen_b[i] == b[i]) return;\n"
                               "    seen_a[i] = a[i];\n    seen_b[i] = b[i];\n  }"),
                      "must not skip inputs it has seen"),
}


def _folder(tmp_path, name: str, text: str):
    folder = tmp_path / name
    folder.mkdir()
    (folder / "vector_add.cu").write_text(text)
    return folder


@pytest.mark.parametrize("name", CHEATS)
def test_a_cheat_passes_the_check_and_is_rejected(tmp_path, name):
    kernel, rule = CHEATS[name]
    folder = _folder(tmp_path, name, kernel)
    graded = isolation.run_exercise(DAY, "vector_add", [CASE, {"n": 33}], source_dir=str(folder), seed=3)
    assert graded.status == "passed", graded  # the ordinary check, one run per size, misses it
    entry = leaderboard.time_submission(EX, folder, name, case=CASE)
    assert entry.status == "rejected" and rule in entry.reason and entry.median_ms is None, entry


def test_the_solution_is_accepted():
    entry = leaderboard.time_submission(EX, paths.SOLUTIONS / DAY, "solution", case=CASE)
    assert entry.status == ("not timed (emulator)" if device.emulated() else "timed"), entry


def test_the_traffic_of_a_run_is_counted(monkeypatch):
    """vector_add of n floats: three arrays of 4n bytes; the output (NaN before) is what changes."""
    from grader import runner

    monkeypatch.setenv(paths.KERNELS_ENV, "solutions")
    launch = device.launch
    measured = list(leaderboard.runs(EX, runner.load(EX), {"n": 1000}, leaderboard.schedule(1, 2)))
    first = measured[0]
    assert first["bytes"] == 12_000 and 3_900 <= first["written"] <= 4_000 and first["launches"] == 1, first
    assert len(measured) == 5 and sum("ms" in m for m in measured) == (0 if device.emulated() else 2), measured
    assert device.launch is launch


def test_flops_of_products_and_attention():
    assert leaderboard.flops({"m": 2, "n": 3, "k": 5}) == 60
    assert leaderboard.flops({"heads": 2, "q_len": 8, "kv_len": 8, "head_dim": 4, "causal": True}) == 1024
    assert leaderboard.flops({"n": 1 << 20}) == 0


PEAKS = {"copy_gbps": 3000.0, "matmul_tflops": 700.0, "peak_gbps": 3350.0, "peak_tflops": 1979.0}


def test_a_time_below_the_physical_bound_is_rejected():
    data = {"ms": [0.010, 0.011, 0.0005], "bytes": 3 << 26, "written": 1 << 26, "flops": 0.0, **PEAKS}
    entry = leaderboard.verdict("fast", DAY, data)  # 64 MiB written cannot take 0.5 us
    assert entry.status == "rejected" and "below the physical bound" in entry.reason, entry
    assert entry.bound_ms == pytest.approx((1 << 26) / 3350e9 * 1e3)


def test_outliers_are_counted_and_the_median_is_the_result():
    times = [0.070] * 9 + [0.200]
    data = {"ms": times, "bytes": 3 << 26, "written": 1 << 26, "flops": 0.0, **PEAKS}
    entry = leaderboard.verdict("steady", DAY, data)
    assert entry.status == "timed" and entry.outliers == 1 and entry.median_ms == pytest.approx(0.070), entry
    assert entry.of_ceiling == pytest.approx((3 << 26) / 3000e9 * 1e3 / 0.070)
    assert "1 outliers" in entry.reason


@pytest.fixture(scope="module")
def course_dir(tmp_path_factory):
    """A course folder holding day-1 submissions (nothing graded: every kernel is timed)."""
    from nbgrader.api import Gradebook

    course = tmp_path_factory.mktemp("leaderboard") / "course"
    course.mkdir()
    (course / "nbgrader_config.py").write_text("c = get_config()\n")
    with pytest.MonkeyPatch.context() as mp:  # nbgrader runs `alembic` from PATH
        mp.setenv("PATH", os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]))
        Gradebook(f"sqlite:///{course / 'gradebook.db'}").close()
    for student, text in {"honest": SOLUTION, "caches": CHEATS["caches"][0],
                          "lazy": (paths.DAYS / DAY / "vector_add.cu").read_text()}.items():
        folder = course / "submitted" / student / DAY
        folder.mkdir(parents=True)
        (folder / "vector_add.cu").write_text(text)
    return course


def test_the_command_writes_a_table_and_a_csv(course_dir, capsys):
    assert cli.main(["leaderboard", str(course_dir), DAY, "vector_add", "--runs", "2"]) == 0
    out = capsys.readouterr().out
    with (course_dir / "leaderboard" / f"{DAY}-vector_add.csv").open() as f:
        rows = {r["student"]: r for r in csv.DictReader(f)}
    assert set(rows) == {"honest", "caches", "lazy", leaderboard.SOLUTION}, rows
    accepted = "not timed (emulator)" if device.emulated() else "timed"
    assert rows["honest"]["status"] == rows[leaderboard.SOLUTION]["status"] == accepted, rows
    assert rows["caches"]["status"] == "rejected" and rows["lazy"]["status"] == "not passing", rows
    assert "wrong output in the first run" in rows["lazy"]["reason"], rows["lazy"]
    assert "honest" in out and "CSV:" in out


@pytest.mark.parametrize("args,message", [
    (["{course}", DAY, "no_such_kernel"], "has no exercise 'no_such_kernel'"),
    (["{course}", "day99"], "unknown day"),
    (["{course}", DAY, "--students", "nobody"], "no day01 submission from nobody"),
    (["/nonexistent", DAY], "has no nbgrader_config.py"),
])
def test_bad_input_gets_one_line(course_dir, capsys, args, message):
    assert cli.main(["leaderboard", *[a.format(course=course_dir) for a in args]]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1, err


@pytest.mark.gpu
def test_on_a_gpu_the_solution_is_timed_near_its_ceiling_and_cheats_rejected(tmp_path):
    if device.why_not_hardware():
        pytest.skip(f"timings need a CUDA GPU: {device.why_not_hardware()}")
    entry = leaderboard.time_submission(EX, paths.SOLUTIONS / DAY, "solution")  # the largest case, 2^24 + 3
    assert entry.status == "timed" and entry.runs == leaderboard.RUNS, entry
    assert entry.median_ms > entry.bound_ms and 0.5 < entry.of_ceiling < 1.2, entry
    for name, (kernel, rule) in CHEATS.items():
        cheat = leaderboard.time_submission(EX, _folder(tmp_path, name, kernel), name)
        assert cheat.status == "rejected" and rule in cheat.reason, cheat


def test_the_table_and_its_reasons_in_chinese(monkeypatch):
    """Under COURSE_LANG=zh the leaderboard's table (title, headers, statuses, the course's row, the
    reasons) is Chinese, lined up by display width; the plan the child keys on stays English."""
    from rich.cells import cell_len

    from test_module_texts_zh import chinese

    monkeypatch.setenv("COURSE_LANG", "zh")
    data = {"ms": [0.0005] * 3, "written": 1 << 26, "peak_gbps": 3350, "flops": 0, "peak_tflops": 990,
            "bytes": 3 << 26, "copy_gbps": 3000, "matmul_tflops": 600}
    entries = [leaderboard.verdict("fast", "day01/vector_add", data),
               leaderboard.verdict(leaderboard.SOLUTION, "day01/vector_add", {**data, "ms": [0.07, 0.07, 0.5]}),
               leaderboard.Entry("lazy", "day01/vector_add", "not passing",
                                 reason=leaderboard.say("leaderboard.not_full"))]
    text = leaderboard.table(entries)
    lines = text.splitlines()
    assert all(chinese(line) for line in [lines[0], lines[1], *lines[3:]]), text
    assert "（课程参考解答）" in text and "已计时" in text and "被拒绝" in text, text
    assert len({cell_len(line[:line.index("day01/")]) for line in lines[3:]}) == 1, text
    plan = leaderboard.schedule(2, 3)
    assert plan[1].startswith("warm-up run 1 of 2") and plan[3].startswith("a repeat"), plan
    said = [leaderboard._run_said(plan, i) for i in range(len(plan))]
    assert said[0] == "第一次运行" and said[2].startswith("第 2 次预热运行（共 2 次"), said
    assert said[-1].startswith("第 3 次计时运行"), said
    assert all(chinese(s) for s in said), said
    monkeypatch.setenv("COURSE_LANG", "en")
    assert [leaderboard._run_said(plan, i) for i in range(len(plan))] == plan
