"""`python -m grader sanitize`: parsing compute-sanitizer's reports (samples in the formats it prints),
the runs it plans, its argument errors; the run on a GPU skips here with a reason."""
import json
import sys

import pytest

from grader import cli, device, paths, sanitize
from grader.exercises import day04

RACE_SRC = str(paths.SOLUTIONS / "day04/demos/transpose_race.cu")
OOB_SRC = str(paths.SOLUTIONS / "day04/demos/transpose_oob.cu")

MEMCHECK = f"""\
========= COMPUTE-SANITIZER
========= Invalid __global__ write of size 4 bytes
=========     at transpose_oob+0x2d0 in {OOB_SRC}:30
=========     by thread (0,1,0) in block (0,1,0)
=========     Access at 0x7f3c1e000f80 is out of bounds
=========     and is 4 bytes after the nearest allocation at 0x7f3c1e000a00 of size 4216 bytes
=========     Saved host backtrace up to driver entry point at kernel launch time
=========         Host Frame: [0x2b6e0f] in libcuda.so.1
=========         Host Frame: cupy.cuda.function._launch [0x7a3b] in function.cpython-312-x86_64-linux-gnu.so
=========
========= Invalid __global__ write of size 4 bytes
=========     at transpose_oob+0x2d0 in {OOB_SRC}:30
=========     by thread (1,1,0) in block (0,1,0)
=========     Address 0x7f3c1e000f84 is out of bounds
=========
========= Program hit cudaErrorLaunchFailure (error 719) due to "unspecified launch failure" on CUDA API call to cudaStreamSynchronize.
=========     Saved host backtrace up to driver entry point at error
=========
COURSE-SANITIZE {{"status": "crashed", "message": "rows=33-cols=31: transpose_oob failed"}}
========= ERROR SUMMARY: 3 errors
"""

RACECHECK = f"""\
========= COMPUTE-SANITIZER
========= Error: Race reported between Write access at transpose_race+0x1c0 in {RACE_SRC}:21
=========     and Read access at transpose_race+0x2a0 in {RACE_SRC}:27 [248 hazards]
=========     and Read access at transpose_race+0x2b0 in {RACE_SRC}:27 [8 hazards]
=========
========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)
"""

RACECHECK_OLD = f"""\
========= Error: Race reported between Write access at 0x000001c0 in {RACE_SRC}:21:transpose_race
=========     and Read access at 0x000002a0 in {RACE_SRC}:27:transpose_race [1,024 hazards]
"""

SYNCCHECK = """\
========= Barrier error detected. Divergent thread(s) in block
=========     at block_sum+0x3f0 in /home/me/course/days/day06/block_sum.cu:44
=========     by thread (37,0,0) in block (0,0,0)
=========
========= Barrier error detected. Divergent thread(s) in block
=========     at block_sum+0x3f0 in /home/me/course/days/day06/block_sum.cu:44
=========     by thread (38,0,0) in block (0,0,0)
========= ERROR SUMMARY: 2 errors
"""

INLINED = f"""\
========= Invalid __global__ read of size 16 bytes
=========     at course::load_as_float+0x80 in {paths.INCLUDE}/course/vec_dtypes.cuh:66
=========     by thread (3,0,0) in block (0,0,0)
=========     Device Frame: transpose_swizzled+0x80 in /x/days/day04/transpose_swizzled.cu:101
"""


# Captured on the H100 (compute-sanitizer of CUDA 13, 2026-11-22), host frames shortened: the tool
# prints the file's name only.
CAPTURED_MEMCHECK = """\
========= COMPUTE-SANITIZER
========= Invalid __global__ write of size 4 bytes
=========     at transpose_oob+0x5f0 in transpose_oob.cu:26
=========     by thread (1,7,0) in block (0,1,0)
=========     Access to 0x7fd1b2a01080 is out of bounds
=========     and is 1 bytes after the nearest allocation at 0x7fd1b2a00000 of size 4,224 bytes
=========     Saved host backtrace up to driver entry point at kernel launch time
=========         Host Frame: __pyx_f_4cupy_4cuda_8function__launch(long, long, int) in function.cpp:11120 [0x1a148] in f.so
=========         Host Frame: _PyObject_MakeTpCall [0x14907d] in python3
========= 
========= Invalid __global__ write of size 4 bytes
=========     at transpose_oob+0x5f0 in transpose_oob.cu:26
=========     by thread (2,7,0) in block (0,1,0)
=========     Access to 0x7fd1b2a01084 is out of bounds
=========     and is 5 bytes after the nearest allocation at 0x7fd1b2a00000 of size 4,224 bytes
========= 
========= Program hit cudaErrorLaunchFailure (error 719) due to "unspecified launch failure" on CUDA API call to cudaStreamSynchronize.
========= ERROR SUMMARY: 34 errors
"""

CAPTURED_RACECHECK = """\
========= COMPUTE-SANITIZER
========= Error: Race reported between Write access at transpose_race+0x550 in transpose_race.cu:19
=========     and Read access at transpose_race+0x5c0 in transpose_race.cu:25 [252 hazards]
=========     and Read access at transpose_race+0x690 in transpose_race.cu:25 [288 hazards]
========= 
========= Error: Race reported between Write access at transpose_race+0x5a0 in transpose_race.cu:19
=========     and Read access at transpose_race+0x5c0 in transpose_race.cu:25 [256 hazards]
========= 
COURSE-SANITIZE {"status": "failed", "message": "rows=33-cols=31: wrong"}
========= RACECHECK SUMMARY: 4 hazards displayed (4 errors, 0 warnings)
"""


def test_captured_reports_name_the_demo_files():
    f, = sanitize.parse(CAPTURED_MEMCHECK, "memcheck", OOB_SRC)
    assert (f.kernel, f.count, f.where) == ("transpose_oob", 2, "solutions/day04/demos/transpose_oob.cu:26")
    r, = sanitize.parse(CAPTURED_RACECHECK, "racecheck", RACE_SRC)
    assert (r.kernel, r.line, r.detail, r.count) == ("transpose_race", 19, "other access at line 25", 796)
    assert r.where == "solutions/day04/demos/transpose_race.cu:19"


def test_memcheck_report_is_folded_by_line_and_names_the_file():
    findings = sanitize.parse(MEMCHECK, "memcheck", OOB_SRC)
    assert len(findings) == 1, findings  # the API error after the fault is not a finding
    f = findings[0]
    assert (f.what, f.kernel, f.line, f.count) == ("Invalid __global__ write of size 4 bytes", "transpose_oob", 30, 2)
    assert f.where == "solutions/day04/demos/transpose_oob.cu:30"


@pytest.mark.parametrize("text,hazards", [(RACECHECK, 256), (RACECHECK_OLD, 1024)], ids=["current", "older"])
def test_racecheck_report_names_both_lines(text, hazards):
    f, = sanitize.parse(text, "racecheck", RACE_SRC)
    assert f.what == "race (error): write vs read" and f.kernel == "transpose_race"
    assert f.line == 21 and f.detail == "other access at line 27" and f.count == hazards
    assert f.where.endswith("transpose_race.cu:21")


def test_synccheck_report():
    f, = sanitize.parse(SYNCCHECK, "synccheck")
    assert f.what == "Barrier error detected. Divergent thread(s) in block"
    assert (f.kernel, f.line, f.count) == ("block_sum", 44, 2)
    assert f.where == "/home/me/course/days/day06/block_sum.cu:44"  # outside the course: shown in full


INITCHECK = """\
========= Uninitialized __global__ memory read of size 4 bytes
=========     at gemm_persistent+0x1a40 in /x/days/day15/gemm_persistent.cu:88
=========     by thread (5,0,0) in block (2,0,0)
=========     Address 0x7f0000000010
========= ERROR SUMMARY: 1 error
"""


def test_initcheck_report():
    f, = sanitize.parse(INITCHECK, "initcheck")
    assert f.what == "Uninitialized __global__ memory read of size 4 bytes"
    assert (f.kernel, f.line, f.count) == ("gemm_persistent", 88, 1)
    assert "initcheck" not in sanitize.DEFAULT_TOOLS  # on request: --tool initcheck


def test_the_students_file_is_preferred_to_an_inlined_header():
    f, = sanitize.parse(INLINED, "memcheck", "/elsewhere/transpose_swizzled.cu")
    assert f.line == 101 and f.kernel == "transpose_swizzled"
    g, = sanitize.parse(INLINED, "memcheck")
    assert g.file.endswith("vec_dtypes.cuh") and g.line == 66


def test_clean_output_has_no_findings():
    clean = ("========= COMPUTE-SANITIZER\nCOURSE-SANITIZE {}\n========= ERROR SUMMARY: 0 errors\n"
             "========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)\n")
    assert sanitize.parse(clean, "memcheck") == []
    assert sanitize.parse("", "racecheck") == []


def test_unknown_tool_is_named():
    with pytest.raises(ValueError, match="unknown tool 'leakcheck'"):
        sanitize.parse("", "leakcheck")


def test_runs_planned_for_day04():
    jobs = sanitize.jobs_for("day04", cases=2)
    assert len(jobs) == 3 * (len(day04.EXERCISES) + len(day04.DEMOS))
    assert {j.tool for j in jobs} == set(sanitize.DEFAULT_TOOLS)
    tiled = next(j for j in jobs if j.exercise.name == "transpose_tiled")
    assert tiled.cases == list(day04.EXERCISES[0].cases[:2]) and not tiled.demo
    race = next(j for j in jobs if j.exercise.name == "race")
    assert race.demo and race.expect == "racecheck" and race.label == "demo day04/race"
    assert race.source().is_file()
    only = sanitize.jobs_for("4", tools=("memcheck",), names=["transpose_swizzled"])
    assert [(j.tool, j.exercise.name) for j in only] == [("memcheck", "transpose_swizzled")]
    assert all(not j.demo for j in sanitize.jobs_for("day04", demos=False))
    assert [(j.tool, j.exercise.name) for j in sanitize.jobs_for("day04", ("memcheck",), demos_only=True)] == \
        [("memcheck", "race"), ("memcheck", "oob_write")]
    with pytest.raises(ValueError, match="day06 has no planted-bug demos"):
        sanitize.jobs_for("day06", demos_only=True)


def test_command_runs_the_child_under_the_tool(tmp_path):
    job = sanitize.jobs_for("day04", tools=("racecheck",), cases=1)[0]
    cmd = sanitize.command(tmp_path / "compute-sanitizer", job)
    assert cmd[1:3] == ["--tool", "racecheck"] and cmd[3:6] == [sys.executable, "-m", "grader.sanitize"]
    assert json.loads(cmd[6]) == {"day": "day04", "name": "transpose_tiled", "demo": False,
                                  "cases": [{"rows": 1, "cols": 1}]}


def test_problems_are_findings_in_exercises_and_missed_demos():
    exercise = sanitize.jobs_for("day04", tools=("racecheck",))[0]
    finding = sanitize.Finding("racecheck", "race", "k")
    assert sanitize.Result(exercise, "passed").problem is None
    assert "finding" in sanitize.Result(exercise, "passed", findings=[finding]).problem
    race = next(j for j in sanitize.jobs_for("day04") if j.exercise.name == "race" and j.tool == "racecheck")
    assert "NOT reported" in sanitize.Result(race, "passed").problem
    assert sanitize.Result(race, "passed", findings=[finding]).problem is None
    race_under_memcheck = next(j for j in sanitize.jobs_for("day04") if j.exercise.name == "race" and j.tool == "memcheck")
    assert sanitize.Result(race_under_memcheck, "passed").problem is None  # not the tool for a race
    assert "not run" in sanitize.Result(exercise, "not run", "exit status 1").problem
    table = sanitize.table([sanitize.Result(race, "passed", findings=[finding]), sanitize.Result(exercise, "passed")])
    assert "demo day04/race" in table and "no findings" in table


@pytest.mark.parametrize("argv,message", [
    (["sanitize", "day99"], "unknown day 'day99'"),
    (["sanitize", "day04", "--cases", "0"], "argument --cases: expected a positive whole number, got '0'"),
    (["sanitize", "day04", "--exercise", "nope"], "has no exercise 'nope'"),
    (["sanitize", "day04", "--jobs", "0"], "argument --jobs: expected a positive whole number, got '0'"),
])
def test_argument_errors(argv, message, capsys):
    try:
        status = cli.main(argv)
    except SystemExit as e:  # refused by the parser itself
        status = e.code
    assert status == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1, err


def test_bad_tool_is_refused(capsys):
    with pytest.raises(SystemExit):
        cli.main(["sanitize", "day04", "--tool", "leakcheck"])
    assert "invalid choice: 'leakcheck'" in capsys.readouterr().err


def test_missing_sanitizer_is_explained(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv(sanitize.SANITIZER_ENV, raising=False)
    with pytest.raises(FileNotFoundError, match="no compute-sanitizer executable at /nowhere"):
        sanitize.find_sanitizer("/nowhere/compute-sanitizer")
    fake = tmp_path / "compute-sanitizer"
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    assert sanitize.find_sanitizer() == fake


@pytest.mark.gpu
def test_day04_solutions_are_clean_and_planted_bugs_are_reported():
    if device.why_not_hardware():
        pytest.skip(f"compute-sanitizer needs a CUDA GPU: {device.why_not_hardware()}")
    try:
        sanitize.find_sanitizer()
    except FileNotFoundError as e:
        pytest.skip(str(e))
    results = sanitize.run("day04", cases=2, solutions=True)
    assert not [r.problem for r in results if r.problem]
    assert any(r.findings for r in results if r.job.expect == r.job.tool == "racecheck")
    assert any(r.findings for r in results if r.job.expect == r.job.tool == "memcheck")


def test_the_table_and_its_verdicts_in_chinese(monkeypatch):
    """Under COURSE_LANG=zh what `python -m grader sanitize` prints (and day 4's lesson shows) is Chinese:
    the headers, the race and memcheck findings, the verdicts, a missing sanitizer; columns lined up by
    display width (grader.tables); file:line, kernel names and counts as they are. English unchanged."""
    from rich.cells import cell_len

    from test_module_texts_zh import chinese

    monkeypatch.setenv("COURSE_LANG", "zh")
    jobs = {(j.exercise.name, j.tool): j for j in sanitize.jobs_for("day04")}
    race, oob, exercise = jobs["race", "racecheck"], jobs["oob_write", "memcheck"], jobs["transpose_tiled", "racecheck"]
    found_race, = sanitize.parse(CAPTURED_RACECHECK, "racecheck", RACE_SRC)
    found_oob, = sanitize.parse(CAPTURED_MEMCHECK, "memcheck", OOB_SRC)
    assert found_race.shown == "竞争（错误）：写与读（另一次访问在第 25 行）", found_race.shown
    assert found_oob.shown == "无效的 __global__ 写访问，大小 4 字节", found_oob.shown
    table = sanitize.table([sanitize.Result(race, "failed", findings=[found_race]),
                            sanitize.Result(oob, "crashed", findings=[found_oob]), sanitize.Result(exercise, "passed")])
    lines = table.splitlines()
    assert lines[0].split() == ["工具", "练习", "检查", "发现", "核函数", "位置", "次数"], table
    assert "演示 day04/race" in table and "transpose_race.cu:19" in table and "796" in table, table
    rows = lines[2:]  # under the headers and their rule
    assert all(chinese(line) for line in rows), table
    starts = {cell_len(line[:line.index(cell)])
              for line, cell in zip([lines[0], *rows], ["练习", "演示", "演示", "day04/"])}
    assert len(starts) == 1, table  # the exercise column starts at one display column
    assert chinese(sanitize.Result(race, "passed").problem)
    assert chinese(sanitize.Result(exercise, "passed", findings=[found_race]).problem)
    with pytest.raises(FileNotFoundError) as e:
        sanitize.find_sanitizer("/nowhere/compute-sanitizer")
    assert chinese(str(e.value)), e.value
    monkeypatch.setenv("COURSE_LANG", "en")
    assert found_race.shown == "race (error): write vs read (other access at line 25)"
    assert (found_race.what, found_race.detail) == ("race (error): write vs read", "other access at line 25")
    assert found_oob.shown == "Invalid __global__ write of size 4 bytes"
