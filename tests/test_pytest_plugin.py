"""What a student sees from `pytest days/dayNN`: each failure once, a compile error's log once per
exercise, a missing kernel named without a traceback, and a summary that counts skipped cases."""
import os
import re
import shutil
import subprocess
import sys

import pytest

from grader import device, exercises, paths


@pytest.fixture(scope="module")
def planted_run(tmp_path_factory):
    """pytest days/day02 on planted kernels: strided_gather does not compile, silu_and_mul's float16
    kernel has another name."""
    if device.why_no_gpu():
        pytest.skip(f"kernels cannot run here: {device.why_no_gpu()}")
    folder = tmp_path_factory.mktemp("planted")
    for source in (paths.SOLUTIONS / "day02").glob("*.cu"):
        shutil.copy(source, folder)
    gather = folder / "strided_gather.cu"
    gather.write_text(gather.read_text() + "\n#error planted: this file does not compile\n")
    silu = folder / "silu_and_mul.cu"
    silu.write_text(silu.read_text().replace("silu_and_mul_f16", "silu_and_mul_half"))
    # pytest prints whole messages in its summary under CI; a student's terminal truncates them
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "BUILD_NUMBER")}
    done = subprocess.run([sys.executable, "-m", "pytest", "days/day02", "-p", "no:cacheprovider", "-k",
                           "test_strided_gather or (test_silu_and_mul and float16)"],
                          capture_output=True, text=True, cwd=paths.ROOT, timeout=900,
                          env={**env, paths.SOURCE_DIR_ENV: str(folder)})
    return done.stdout + done.stderr


def test_each_failure_is_printed_once(planted_run):
    assert "During handling of the above exception" not in planted_run
    assert "Traceback" not in planted_run


def test_a_compile_error_is_printed_once_per_exercise(planted_run):
    assert planted_run.count("#error directive: planted") >= 2  # the log, and each case's one line
    assert planted_run.count("1 catastrophic error detected") == 1, planted_run[-4000:]
    assert "the whole message is on the first failure of day02/strided_gather" in planted_run


def test_a_missing_technique_is_printed_once():
    """day 2's quant_int8 stub lacks the day's technique: the first case prints the whole (one long line)
    message, the others its headline only (they used to repeat it in full, 7 times)."""
    if device.why_no_gpu():
        pytest.skip(f"kernels cannot run here: {device.why_no_gpu()}")
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "BUILD_NUMBER", "COURSE_LANG")}
    done = subprocess.run([sys.executable, "-m", "pytest", "days/day02", "-p", "no:cacheprovider", "-n", "0", "-k",
                           "test_quant_int8"], capture_output=True, text=True, cwd=paths.ROOT, timeout=600, env=env)
    out = done.stdout + done.stderr
    assert out.count("in the SASS of dequantize_int8") <= 2, out[-4000:]  # the first failure; the summary's first
    assert out.count("the technique of the day is missing from quant_int8.cu (the whole message is on the first "
                     "failure of day02/quant_int8)") >= 2, out[-4000:]


def test_a_crash_is_said_in_the_lessons_language(tmp_path):
    """A kernel writing past its array crashes its case: under COURSE_LANG=zh the line starts 崩溃：,
    not 'crashed: ', and the summary's first failure follows its case with a Chinese colon."""
    if device.why_no_gpu():
        pytest.skip(f"kernels cannot run here: {device.why_no_gpu()}")
    for source in (paths.SOLUTIONS / "day02").glob("*.cu"):
        shutil.copy(source, tmp_path)
    gather = tmp_path / "strided_gather.cu"
    gather.write_text(gather.read_text().replace("out[i] = in[i * stride]", "out[i + 64] = in[i * stride]"))
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "BUILD_NUMBER")}
    case = "days/day02/test_day02.py::test_strided_gather[n_out=1-stride=1]"
    done = subprocess.run([sys.executable, "-m", "pytest", case, "-p", "no:cacheprovider", "-n", "0"],
                          capture_output=True, text=True, cwd=paths.ROOT,
                          timeout=600, env={**env, "COURSE_LANG": "zh", paths.SOURCE_DIR_ENV: str(tmp_path)})
    out = done.stdout + done.stderr
    assert "崩溃：" in out and "crashed:" not in out, out[-3000:]
    assert "第一个：test_strided_gather[n_out=1-stride=1]：" in out, out[-3000:]  # the summary's first failure


def test_a_missing_kernel_is_named(planted_run):
    assert "no kernel" in planted_run and "silu_and_mul_f16" in planted_run


def test_the_summary_counts_cases_skipped_on_the_emulator(planted_run):
    gather = exercises.get("day02", "strided_gather")
    line = next(ln for ln in planted_run.splitlines() if ln.startswith("day02/strided_gather "))
    passed, failed, skipped = map(int, line.split()[1:4])
    assert passed == 0 and passed + failed + skipped == len(gather.cases), line
    if device.emulated() and skipped:
        assert re.search(r"\d+ cases? skipped \(every reason .*; the first: too large for the emulator", planted_run)


def test_a_hang_is_reported_against_the_case_chosen_and_once(tmp_path):
    """The student picks two cases by node id: the child runs those two, the hang is reported against
    the first of them (not a case the student did not select), and the other says it was not run in one
    short line that points above."""
    if device.why_no_gpu():
        pytest.skip(f"kernels cannot run here: {device.why_no_gpu()}")
    for source in (paths.SOLUTIONS / "day01").glob("*.cu"):
        shutil.copy(source, tmp_path)
    add = tmp_path / "vector_add.cu"
    text = add.read_text()
    body = text.index("{", text.index('extern "C"'))
    add.write_text(text[:body + 1] + "\n  while (true) {}\n" + text[body + 1:])
    chosen = ["days/day01/test_day01.py::test_vector_add[n=33]", "days/day01/test_day01.py::test_vector_add[n=255]"]
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "BUILD_NUMBER")}
    done = subprocess.run([sys.executable, "-m", "pytest", *chosen, "-p", "no:cacheprovider", "-q", "-n", "0"],
                          capture_output=True, text=True, cwd=paths.ROOT, timeout=600,
                          env={**env, paths.SOURCE_DIR_ENV: str(tmp_path)})
    out = done.stdout + done.stderr
    assert "in case n=33 (a kernel that never finishes?)" in out, out[-3000:]
    assert "in case n=1 " not in out
    assert "not run: the checking process of day01/vector_add ended at case n=33 (timed out, reported above)" in out
    assert out.count("a kernel that never finishes?") == 2, out[-3000:]  # the failure, and the summary's first
