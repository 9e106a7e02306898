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


def test_a_classs_tasks_measure_a_budget_once(tmp_path, monkeypatch):
    """A class's tasks of one day start together: one measures the solution's times, the others wait for
    it and read them (they measured one each before: 14 day-12 tasks on an H200 took 119 s each); tasks
    recording other exercises' times side by side keep them all."""
    import threading
    import time

    monkeypatch.setattr(paths, "STATE", tmp_path)
    measured = []

    def measure(ex, cases, *, backend, **_):
        measured.append(ex.key)
        time.sleep(0.3)
        isolation._record_times(backend, {isolation._case_key(ex, c): 0.01 for c in cases})

    monkeypatch.setattr(isolation, "_run", measure)
    day1 = exercises.day_exercises("day01")[0]
    others = [ex for ex in exercises.day_exercises("day06")[:3]]
    got = {}

    def task(k, ex):
        got[k] = isolation.case_budgets(ex, [{"n": 33}], "cupy")

    threads = [threading.Thread(target=task, args=(k, day1)) for k in range(6)]
    threads += [threading.Thread(target=task, args=(10 + k, ex)) for k, ex in enumerate(others)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert measured.count(day1.key) == 1, measured
    assert len(set(measured)) == 1 + len(others), measured
    assert all(b == [isolation.BUDGET_FLOOR_S["cupy"]] for b in got.values()), got
    assert len(isolation._read_times("cupy")) == 1 + len(others)


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
