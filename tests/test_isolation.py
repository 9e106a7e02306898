"""A kernel that crashes or hangs is reported with the exercise's name and case; grading goes on.
(The cheats a student might try on the child are in test_grading_cheats.py.)"""
from grader import device, exercises, isolation, paths


def test_timeout_of_a_plain_child_is_reported():
    outcome, done = isolation.run_child(["-c", "import time; time.sleep(30)"], exercise="day01/x", timeout=1)
    assert done is None and outcome.status == "timed out" and "day01/x" in str(outcome)


def test_a_child_that_dies_is_reported_as_crashed():
    ex = exercises.get("day01", "vector_add")
    outcome = isolation._run(ex, [{"n": 33}], source_dir=paths.SOLUTIONS / "day01", seed=None, budgets=[30],
                             backend=device.backend(), record=False,
                             wrapper=["sh", "-c", "echo launching; kill -SEGV $$", "sh"])
    assert outcome.status == "crashed" and "signal 11" in outcome.message and "launching" in outcome.message


def test_each_case_is_reported():
    outcome = isolation.run_exercise("day01", "vector_add", [{"n": 1}, {"n": 33}], solutions=True)
    if not device.gpu_available():
        assert outcome.status == "failed" and "GPU" in outcome.message
        return
    assert outcome.status == "passed" and [r.status for r in outcome.cases] == ["passed", "passed"]
    assert all(r.seed is not None and r.seconds > 0 for r in outcome.cases)
    stub = isolation.run_exercise("day01", "vector_add", [{"n": 1}, {"n": 33}])
    assert stub.status == "failed" and (stub.passed, stub.total) == (0, 2)
    assert str(stub).startswith("day01/vector_add: failed (0/2 cases)") and "n=1:" in stub.message


def test_budgets_follow_the_solutions_time():
    ex = exercises.get("day01", "vector_add")
    backend = device.backend()
    budgets = isolation.case_budgets(ex, [{"n": 33}], backend)
    assert budgets[0] == isolation.BUDGET_FLOOR_S[backend]  # a tiny case: the floor
    assert isolation._read_times(backend)[isolation._case_key(ex, {"n": 33})] > 0


def test_a_kernel_fault_is_reported_as_such(tmp_path):
    """A kernel that traps: the case says so (on the emulator the child goes on and reports "done"; it
    did not die, and the message must not say it did)."""
    solution = (paths.SOLUTIONS / "day01" / "vector_add.cu").read_text()
    add = "if (i < n) c[i] = a[i] + b[i];"
    assert add in solution
    (tmp_path / "vector_add.cu").write_text(solution.replace(add, "if (i == 0) __trap();\n  " + add))
    outcome = isolation.run_exercise("day01", "vector_add", [{"n": 33}], source_dir=str(tmp_path))
    if not device.gpu_available():
        assert outcome.status == "failed" and "GPU" in outcome.message
        return
    assert outcome.status == "crashed" and outcome.cases[0].status == "crashed", outcome
    assert outcome.message.startswith("n=33: ") and "vector_add" in outcome.message, outcome
    assert "died" not in outcome.message, outcome
