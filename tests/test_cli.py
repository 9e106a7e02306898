"""`python -m grader` works without a GPU where it can, and names what is wrong otherwise (bad input:
tests/test_bad_input.py)."""
import importlib.util
import json
import re
import subprocess
import sys

import pytest

from grader import cli, cupy_backend, days, device, exercises, paths, progress


def run(*args):
    return subprocess.run([sys.executable, "-m", "grader", *args], capture_output=True, text=True,
                          cwd=paths.ROOT, timeout=300)


def test_show_config_without_gpu(capsys):
    assert cli.main(["show-config"]) == 0
    out = capsys.readouterr().out
    for key in ("cupy", "NVRTC", "GPU", "include paths", "kernel cache"):
        assert key in out
    versions = re.findall(r"^(?:CUDA runtime|driver)[^\n]*?  (\S+)$", out, re.M)
    assert versions and all(re.fullmatch(r"\d+\.\d+|none", v) for v in versions), versions


def test_cuda_versions_read_as_people_write_them():
    assert [cli._cuda_version(n) for n in (13020, 12080, 13000, 0)] == ["13.2", "12.8", "13.0", "none"]


def test_compile_one_file():
    done = run("compile", "solutions/day02/silu_and_mul.cu")
    assert done.returncode == 0 and "2 of 2 compilations succeeded" in done.stdout


def test_bad_input_is_named(capsys):
    assert cli.main(["check", "day99"]) == 2 and "unknown day 'day99'" in capsys.readouterr().err
    assert cli.main(["compile", "nope.cu"]) == 2 and "no such file: nope.cu" in capsys.readouterr().err
    assert cli.main(["sass", "solutions/day02/silu_and_mul.cu", "--kernel", "nope"]) == 2
    assert "no kernel 'nope'" in capsys.readouterr().err
    assert cli.main(["hint", "day02", "nope"]) == 2
    assert capsys.readouterr().err.startswith("error: day02 has no exercise 'nope'")  # no KeyError quotes


def test_sass_compare_student_vs_solution():
    done = run("sass", "days/day02/silu_and_mul.cu", "--compare", "solutions/day02/silu_and_mul.cu",
               "--kernel", "silu_and_mul_f16")
    assert done.returncode == 0 and "LDG.E.128" in done.stdout


def test_check_selects_exactly_one_exercise_s_tests():
    """`-k test_prefill` alone also picks test_prefill_causal: one row per exercise needs the others out."""
    for day in days.NAMES:
        exs = exercises.day_exercises(day)
        tests = [name for name in vars(_self_check(day)) if name.startswith("test_")] if exs else []
        for ex in exs:
            picked = {t for t in tests if _matches(cli._only(ex, exs), t)}
            assert f"test_{ex.name}" in picked, (ex.key, picked)
            owners = {o.name for o in exs for t in picked if t == f"test_{o.name}"}
            assert owners == {ex.name}, f"{ex.key}: -k {cli._only(ex, exs)!r} picks {sorted(picked)}"


def _self_check(day: str):
    """days/dayNN/test_dayNN.py imported: its tests are made from the registry when it runs."""
    spec = importlib.util.spec_from_file_location(f"self_check_{day}", paths.DAYS / day / f"test_{day}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _matches(expression: str, name: str) -> bool:
    """pytest -k on a test name, for the `a and not b` expressions cli._only makes."""
    terms = expression.split(" and ")
    return all((t[4:] not in name) if t.startswith("not ") else (t in name) for t in terms)


def test_progress_lists_every_day(capsys):
    assert cli.main(["progress"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [line[:5] for line in out] == list(days.NAMES)
    for line in out:
        assert re.search(r"\b1 exercise,|\b\d+ exercises,", line) or line.endswith("coming"), line
        assert "1 exercises" not in line


@pytest.fixture
def progress_file(tmp_path, monkeypatch):
    monkeypatch.setattr(progress, "FILE", tmp_path / "progress.json")
    monkeypatch.delenv(paths.KERNELS_ENV, raising=False)
    monkeypatch.delenv(paths.SOURCE_DIR_ENV, raising=False)
    return tmp_path / "progress.json"


def test_progress_records_a_pytest_run_of_the_student_s_kernels(progress_file, monkeypatch):
    """A run of `pytest days/day06` (its summary rows) counts for `progress`; a run of the solutions
    or of another folder does not; an exercise all of whose cases were skipped keeps its result."""
    row = {"exercise": "day06/rmsnorm", "status": "passed", "passed": 5, "failed": 0, "skipped": 1}
    progress.record([row], "pytest")
    assert progress.day_summary("day06", ["day06/block_sum", "day06/rmsnorm"]).startswith("1 of 2 passed (last run: pytest")
    progress.record([{**row, "status": "skipped", "passed": 0, "skipped": 6}], "pytest")
    assert json.loads(progress_file.read_text())["day06/rmsnorm"]["status"] == "passed"
    monkeypatch.setenv(paths.KERNELS_ENV, "solutions")
    progress.record([{**row, "status": "FAILED", "passed": 0, "failed": 5}], "pytest")
    assert json.loads(progress_file.read_text())["day06/rmsnorm"]["status"] == "passed"
    assert progress.day_summary("day07", ["day07/pipeline"]) == "not checked yet: pytest days/day07"


def test_pytest_run_of_a_day_lands_in_progress(progress_file, tmp_path):
    """End to end: `pytest days/day02 -k strided_gather` on the student's (stub) kernel is recorded."""
    report = tmp_path / "report.json"
    done = subprocess.run([sys.executable, "-c", "import sys, pytest; from grader import progress; "
                           f"progress.FILE = __import__('pathlib').Path({str(progress_file)!r}); "
                           f"sys.exit(pytest.main(['days/day02', '-q', '-p', 'no:cacheprovider', '-k', "
                           f"'test_strided_gather', '--course-report', {str(report)!r}]))"],
                          capture_output=True, text=True, cwd=paths.ROOT, timeout=600)
    if device.why_no_gpu():
        pytest.skip(f"no GPU and no emulator: {device.why_no_gpu()}")
    assert done.returncode == 1, done.stdout[-2000:]  # the stub fails
    entry = json.loads(progress_file.read_text())["day02/strided_gather"]
    assert entry["status"] == "FAILED" and entry["by"] == "pytest" and entry["total"] == len(
        exercises.get("day02", "strided_gather").cases)


def test_stubs_are_up_to_date(capsys):
    assert cli.main(["stubs"]) == 0
    assert set(line.rsplit(": ", 1)[1] for line in capsys.readouterr().out.splitlines()) == {"up to date"}


def test_bench_without_a_gpu_shows_the_emulator_s_memory_statistics(monkeypatch, capsys):
    """No GPU: not an error about drivers, but what the emulator measures, exercise by exercise (the
    statistics themselves: tests/test_emulator_integration.py); a wrong kernel is named, not timed."""
    from grader import notebook

    if not device.emulated():
        pytest.skip("a GPU is here: bench times the kernels")
    benched = [ex.name for ex in exercises.day_exercises("day02") if ex.bench is not None]
    shown = []

    def statistics(day, name):
        shown.append(name)
        if name == benched[0]:
            raise AssertionError("out: 3 of 3 elements are NaN")

    monkeypatch.setattr(notebook, "bench", statistics)
    assert cli.main(["bench", "day02"]) == 1
    out = capsys.readouterr().out
    assert shown == benched and "nothing is timed here" in out and device.why_not_hardware() in out
    assert f"day02/{benched[0]}: not measured: out: 3 of 3 elements are NaN" in out


def test_no_gpu_is_said_in_words_a_person_can_act_on(monkeypatch):
    import ctypes
    from types import SimpleNamespace

    def runtime(driver, built_for):
        return SimpleNamespace(cuda=SimpleNamespace(runtime=SimpleNamespace(
            driverGetVersion=lambda: driver, runtimeGetVersion=lambda: built_for)))

    def no_library(name):
        raise OSError(f"{name}: cannot open shared object file")

    monkeypatch.setattr(ctypes, "CDLL", no_library)
    assert cupy_backend.driver_problem(runtime(0, 13000)) == "no GPU: this machine has no NVIDIA driver"
    monkeypatch.setattr(ctypes, "CDLL", lambda name: object())
    old = cupy_backend.driver_problem(runtime(12080, 13000))
    assert "CUDA 12.8" in old and "CUDA 13.0" in old and "COURSE_CUDA=12" in old
    assert cupy_backend.driver_problem(runtime(13000, 13000)) is None  # something else: cupy's own words


def test_tables_cut_nothing():
    """The emulator's memory table once cut its source column at 34 characters."""
    from grader import tables

    where = "silu_and_mul.cu:39 (in vec_dtypes.cuh:81, inlined into silu_and_mul<__nv_bfloat16>)"
    text = tables.render(["source line", "requests"], [[where, 11094], ["a.cu:1", 3]], right=("requests",))
    lines = text.splitlines()
    assert where in text and lines[0].startswith("source line")
    assert lines[-1].endswith("3") and lines[-2].endswith("11094")  # numbers right-aligned


def test_the_command_line_needs_no_jupyter():
    """A bare GPU machine has cupy but no nbformat or nbgrader: every command's module still imports."""
    code = ("import sys; sys.modules.update(nbformat=None, nbgrader=None, nbclient=None); "
            "from grader import cli; cli.parser()")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=paths.ROOT)


@pytest.mark.parametrize("how", ["python -m grader", "pytest"])
def test_outside_the_environment_is_one_line(how):
    """A shell without the course's environment (here: ml_dtypes hidden) gets one line saying what to do."""
    run = ("import runpy; sys.argv = ['grader', 'progress']; runpy.run_module('grader', run_name='__main__')"
           if how == "python -m grader" else
           "import pytest; sys.exit(pytest.main(['days/day02', '-q', '-p', 'no:cacheprovider', '-n', '0']))")
    done = subprocess.run([sys.executable, "-c", f"import sys; sys.modules['ml_dtypes'] = None; {run}"],
                          cwd=paths.ROOT, capture_output=True, text=True)
    lines = [l for l in (done.stdout + done.stderr).splitlines() if l.strip()]
    assert done.returncode != 0 and len(lines) == 1, lines
    assert "environment is not active" in lines[0] and "ml_dtypes" in lines[0] and "course.sh check" in lines[0]
