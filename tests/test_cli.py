"""`python -m grader` works without a GPU where it can, and names what is wrong otherwise."""
import subprocess
import sys

from grader import cli, paths


def run(*args):
    return subprocess.run([sys.executable, "-m", "grader", *args], capture_output=True, text=True,
                          cwd=paths.ROOT, timeout=300)


def test_show_config_without_gpu():
    done = run("show-config")
    assert done.returncode == 0, done.stderr
    for key in ("cupy", "NVRTC", "GPU", "include paths", "kernel cache"):
        assert key in done.stdout


def test_compile_one_file():
    done = run("compile", "solutions/day02/silu_and_mul.cu")
    assert done.returncode == 0 and "2 of 2 compilations succeeded" in done.stdout


def test_bad_input_is_named():
    assert "unknown day 'day99'" in run("check", "day99").stderr
    assert "no such file: nope.cu" in run("compile", "nope.cu").stderr
    done = run("sass", "solutions/day02/silu_and_mul.cu", "--kernel", "nope")
    assert done.returncode == 2 and "no kernel 'nope'" in done.stderr
    assert run("frobnicate").returncode == 2


def test_sass_compare_student_vs_solution():
    done = run("sass", "days/day02/silu_and_mul.cu", "--compare", "solutions/day02/silu_and_mul.cu",
               "--kernel", "silu_and_mul_f16")
    assert done.returncode == 0 and "LDG.E.128" in done.stdout


def test_progress_lists_every_day(capsys):
    assert cli.main(["progress"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [line[:5] for line in out] == list(cli.ALL_DAYS)
    for line in out:
        assert "exercises" in line or line.endswith("coming"), line


def test_stubs_are_up_to_date(capsys):
    assert cli.main(["stubs"]) == 0
    assert set(line.rsplit(": ", 1)[1] for line in capsys.readouterr().out.splitlines()) == {"up to date"}
