"""A kernel that crashes or hangs is reported with the exercise's name; grading goes on."""
import subprocess

from grader import device, isolation


def test_timeout_is_reported():
    outcome, done = isolation.run_child(["-c", "import time; time.sleep(30)"], exercise="day01/x", timeout=1)
    assert done is None and outcome.status == "timed out" and "day01/x" in str(outcome)


def test_a_child_that_dies_is_reported_as_crashed():
    _, done = isolation.run_child(["-c", "import os, signal; print('launching'); os.kill(os.getpid(), signal.SIGSEGV)"],
                                  exercise="day02/silu_and_mul", timeout=30)
    outcome = isolation.classify(done, "day02/silu_and_mul")
    assert outcome.status == "crashed" and "signal 11" in outcome.message and "launching" in outcome.message


def test_reported_result_is_read():
    fake = subprocess.CompletedProcess([], 0, stdout='noise\nCOURSE-RESULT {"exercise": "day01/saxpy", '
                                       '"status": "failed", "message": "n=33: wrong", "passed": 6, "total": 7}\n',
                                       stderr="")
    outcome = isolation.classify(fake, "day01/saxpy")
    assert (outcome.status, outcome.passed, outcome.total) == ("failed", 6, 7)
    assert str(outcome).startswith("day01/saxpy: failed (6/7 cases)")


def test_run_exercise_reports_why_when_nothing_can_run():
    outcome = isolation.run_exercise("day01", "vector_add", timeout=120)
    if device.gpu_available():
        assert outcome.status == "failed" and outcome.total == 8  # the stub
    else:
        assert outcome.status == "failed" and "GPU" in outcome.message
