"""`python -m grader grade-class` on Ray: a small day-1 class (no GPU needed: the emulator grades it).

Seven students, two Ray workers: solutions, stubs, half done, a kernel that traps, one that never
finishes, and a notebook that zeroes the gradebook. The notebook is day 1's cut to its setup cell and
two grade cells (vector_add, saxpy) with small cases, so the class fits in CI; the grading path is the
real one (nbgrader autograde with the course's preprocessors, the sandbox where Linux allows it). A
run is killed after its first merge: the gradebook must hold whole results only, and the next run
resumes. Without a sandbox the pairs are graded one at a time and the gradebook is restored.
"""
from __future__ import annotations

import csv
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import time

import nbformat
import pytest

from grader import classgrade, cli, device, paths, sandbox
from grader import nbgrader_course as course
from grader.autograde import SKIP_TAG
from grader.messages import say

pytest.importorskip("ray")
pytest.importorskip("rich")

DAY = "day01"
ADD = "if (i < n) c[i] = a[i] + b[i];"
CASES = {"vector_add": '[{"n": 33}, {"n": 1000}]', "saxpy": '[{"n": 513}, {"n": 2}]'}
POINTS = 2  # each grade cell


def _kernel(change: str) -> str:
    solution = (paths.SOLUTIONS / DAY / "vector_add.cu").read_text()
    assert ADD in solution
    return solution.replace(ADD, change + "\n  " + ADD)


TRAPS = _kernel("if (i == 0) __trap();")
HANGS = _kernel("while (true) {}")
# student: (vector_add.cu, saxpy.cu) as "solution", "stub" or a kernel's text; expected points
CLASS = {
    "honest": (("solution", "solution"), 4),
    "lazy": (("stub", "stub"), 0),
    "half": (("solution", "stub"), 2),
    "traps": ((TRAPS, "solution"), 2),
    "hangs": ((HANGS, "solution"), 2),
    "honest2": (("solution", "solution"), 4),
    "zeroes": (("solution", "solution"), 4),  # and a notebook cell that zeroes the gradebook (ZEROES)
}
ZEROES = ("import glob, sqlite3\nfor db in glob.glob('../../../gradebook.db'):\n    con = sqlite3.connect(db)\n"
          "    con.execute('update grade set auto_score=0')\n    con.commit()\n    con.close()")


def _short_notebook(folder):
    """day01's notebook cut to its setup cell, a demo cell tagged SKIP_TAG and the vector_add and saxpy
    grade cells (small cases)."""
    nb = nbformat.read(paths.INSTRUCTOR_NOTEBOOKS / f"{DAY}.ipynb", as_version=4)
    keep = []
    for cell in nb.cells:
        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id", "")
        name = grade_id.removeprefix(f"{DAY}-")
        if grade_id == f"{DAY}-setup":
            keep += [cell, nbformat.v4.new_code_cell('print("a demo")', metadata={"tags": [SKIP_TAG]})]
        elif name in CASES:
            cell.source = f'nb.grade("{DAY}", "{name}", cases={CASES[name]}, seed=5)'
            keep.append(cell)
    nb.cells = keep
    folder.mkdir()
    nbformat.write(nb, folder / f"{DAY}.ipynb")
    return folder


def _submit(course_dir, student: str, files) -> None:
    release = course_dir / "release" / DAY
    dest = course_dir / "submitted" / student / DAY
    dest.mkdir(parents=True)
    shutil.copyfile(release / f"{DAY}.ipynb", dest / f"{DAY}.ipynb")
    for name in course.exercise_files(DAY):
        shutil.copyfile(release / name, dest / name)
    for name, what in zip(("vector_add.cu", "saxpy.cu"), files):
        if what == "solution":
            shutil.copyfile(paths.SOLUTIONS / DAY / name, dest / name)
        elif what != "stub":
            (dest / name).write_text(what)


@pytest.fixture(scope="module")
def class_dir(tmp_path_factory):
    """A day-1 course with the six students' submissions, nothing graded yet."""
    tmp = tmp_path_factory.mktemp("class")
    mp = pytest.MonkeyPatch()
    mp.setattr(paths, "INSTRUCTOR_NOTEBOOKS", _short_notebook(tmp / "notebooks"))
    try:
        course_dir = course.build_course(tmp / "course", days=(DAY,))
    finally:
        mp.undo()
    with (course_dir / "nbgrader_config.py").open("a") as f:
        f.write("c.RunNotebook.cell_timeout = 5\nc.RunNotebook.budget = 30\n")  # the notebook: feedback only
    for student, (files, _) in CLASS.items():
        _submit(course_dir, student, files)
    notebook = course_dir / "submitted" / "zeroes" / DAY / f"{DAY}.ipynb"
    nb = nbformat.read(notebook, as_version=4)
    nb.cells.insert(1, nbformat.v4.new_code_cell(ZEROES))
    nbformat.write(nb, notebook)
    return course_dir


@pytest.fixture(scope="module")
def cluster():
    """A Ray cluster on this machine (two CPUs) that every grade-class run of this module joins."""
    import ray

    ray.init(address="local", num_cpus=2, include_dashboard=False, object_store_memory=100 << 20,
             log_to_driver=False, logging_level="ERROR")
    try:
        yield ray.get_runtime_context().gcs_address
    finally:
        ray.shutdown()


def _env():
    env = {**os.environ, "PYTHONPATH": paths.python_path(), "COLUMNS": "200"}
    if device.why_not_hardware():
        env[device.BACKEND_ENV] = "emulator"
    return env


def _grade_class(course_dir, address, *args):
    return subprocess.Popen([sys.executable, "-m", "grader", "grade-class", str(course_dir), "--address", address,
                             *args], cwd=paths.ROOT, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, start_new_session=True)


def _scores(course_dir) -> dict[str, float]:
    """Every submission the gradebook holds, checked whole: a grade for every grade cell."""
    scores = {}
    with course.gradebook(course_dir) as gb:
        for sub in gb.find_assignment(DAY).submissions:
            grades = [g for nb in sub.notebooks for g in nb.grades]
            assert grades and all(g.auto_score is not None for g in grades), f"{sub.student.id}: a partial result"
            scores[sub.student.id] = float(sub.code_score)
    return scores


def _merged(course_dir) -> int:
    with sqlite3.connect(f"file:{course_dir / 'gradebook.db'}?mode=ro", uri=True) as con:
        return con.execute("select count(*) from submitted_assignment").fetchone()[0]


def test_a_killed_run_keeps_whole_results_and_the_next_resumes(class_dir, cluster):
    expected = {s: points for s, (_, points) in CLASS.items()}
    if sandbox.unavailable():  # the notebook reaches the gradebook: it scores zero (the next test)
        expected["zeroes"] = 0
    start = time.monotonic()
    run = _grade_class(class_dir, cluster)
    try:
        while _merged(class_dir) == 0:
            assert run.poll() is None, f"grade-class ended before its first merge:\n{run.stdout.read()}"
            assert time.monotonic() - start < 300, "no merge within 300 s"
            time.sleep(0.2)
        os.kill(run.pid, signal.SIGKILL)  # the driver, right after its first merge
    finally:
        run.kill()
        run.wait()
    first = _scores(class_dir)
    print(f"killed after {time.monotonic() - start:.0f} s with {len(first)} merged")
    assert 1 <= len(first) < len(CLASS), first
    assert first == {s: expected[s] for s in first}, first

    start = time.monotonic()
    resumed = _grade_class(class_dir, cluster)
    out, _ = resumed.communicate(timeout=600)
    print(f"resumed: {time.monotonic() - start:.0f} s\n{out}")
    assert resumed.returncode == 0, out
    assert _scores(class_dir) == expected, out
    assert re.search(rf"skipped \(already in the gradebook; --force regrades\)\s*│\s*{len(first)}\s", out), out
    for student, how in (("traps", "crashed"), ("hangs", "timed out")):  # those graded again here
        assert student in first or re.search(rf"{student}\s*│\s*day01\s*│.*vector_add: {how}", out), out
    if not sandbox.unavailable():  # the notebook ran in its sandboxed kernel, which lived to the end
        ran = (class_dir / "autograded" / "honest" / DAY / f"{DAY}.ipynb").read_text()
        assert "the notebook itself" not in ran, ran[:3000]
        demo = next(c for c in nbformat.reads(ran, as_version=4).cells if SKIP_TAG in c.metadata.get("tags", []))
        assert [o.get("text") for o in demo.outputs] == [say("autograde.skipped", "en") + "\n"], demo.outputs
    with (class_dir / "grades.csv").open() as f:
        rows = {r["student_id"]: float(r["raw_score"]) for r in csv.DictReader(f) if r["assignment"] == DAY}
    assert rows == expected


def test_without_a_sandbox_pairs_go_one_at_a_time_and_the_gradebook_is_restored(class_dir, cluster, monkeypatch):
    """Graded again (--force) with the sandbox off: the same submission gets the same score, and the
    notebook that zeroes the course's gradebook scores zero while every other grade stands."""
    before = _scores(class_dir)
    if len(before) < len(CLASS):
        pytest.skip("needs the class graded by the test before")
    monkeypatch.setenv(sandbox.SANDBOX_ENV, "off")
    run = _grade_class(class_dir, cluster, "--force", "--students", "traps", "zeroes")
    out, _ = run.communicate(timeout=600)
    assert run.returncode == 0, out
    assert "one (student, day) at a time" in out and "changed the course's gradebook (restored)" in out, out
    assert _scores(class_dir) == {**before, "zeroes": 0}, out


def test_a_task_past_the_timeout_is_stopped_and_reported(class_dir, cluster):
    """grade-class cancels a task past --timeout (its worker with it): listed, graded again next run."""
    before = _scores(class_dir)
    run = _grade_class(class_dir, cluster, "--force", "--students", "honest", "--timeout", "2")
    out, _ = run.communicate(timeout=300)
    assert run.returncode == 1, out
    assert re.search(r"honest\s*│\s*day01\s*│\s*nbgrader autograde ran past 2 s; it was stopped", out), out
    assert _scores(class_dir) == before, out


def test_this_machine_grades_without_ray(class_dir):
    """Without --address on the emulator, grade-class's own worker processes (no Ray) give the same
    scores, report the kernels that crashed or hung, and stop a task past --timeout (its worker killed and
    replaced: the next task runs in a new one)."""
    before = _scores(class_dir)
    if len(before) < len(CLASS) or not device.emulated():
        pytest.skip("needs the class graded by the first test, on the emulator")
    run = subprocess.run([sys.executable, "-m", "grader", "grade-class", str(class_dir), "--force", "--workers", "2",
                          "--students", "traps", "hangs", "honest2"], cwd=paths.ROOT, env=_env(),
                         capture_output=True, text=True, timeout=600)
    out = run.stdout + run.stderr
    assert run.returncode == 0 and "ray" not in out.lower(), out
    assert _scores(class_dir) == before, out
    assert re.search(r"traps\s*│\s*day01\s*│.*vector_add: crashed", out), out
    assert re.search(r"hangs\s*│\s*day01\s*│.*vector_add: timed out", out), out
    run = subprocess.run([sys.executable, "-m", "grader", "grade-class", str(class_dir), "--force", "--workers", "1",
                          "--students", "honest", "lazy", "--timeout", "2"], cwd=paths.ROOT, env=_env(),
                         capture_output=True, text=True, timeout=600)
    out = run.stdout + run.stderr
    assert run.returncode == 1, out
    assert re.search(r"honest\s*│\s*day01\s*│\s*nbgrader autograde ran past 2 s; it was stopped", out), out
    assert re.search(r"lazy\s*│\s*day01\s*│\s*nbgrader autograde ran past 2 s; it was stopped", out), out
    assert _scores(class_dir) == before, out


def test_a_merge_that_fails_leaves_the_gradebook_as_it_was(class_dir, tmp_path):
    """The merge is one transaction: a record that breaks half-way writes nothing."""
    copy = tmp_path / "course"
    copy.mkdir()
    shutil.copyfile(class_dir / "gradebook.db", copy / "gradebook.db")
    with course.gradebook(copy) as gb:
        gb.update_or_create_student("newcomer")
    before = (copy / "gradebook.db").read_bytes()
    record = {"timestamp": None, "extension": None, "notebooks": {}}  # no notebook: fails on the first
    with pytest.raises(KeyError):
        classgrade.merge(copy, classgrade.Result("newcomer", DAY, 1.0, record, 0.0, 4.0))
    assert (copy / "gradebook.db").read_bytes() == before
    with course.gradebook(copy) as gb:
        assert "newcomer" not in {s.student.id for s in gb.find_assignment(DAY).submissions}


@pytest.mark.parametrize("args,message", [
    (["/nonexistent/course"], "has no nbgrader_config.py"),
    (["{course}", "--days", "day09"], "day09: not an assignment"),
    (["{course}", "--students", "nobody"], "no submissions from nobody"),
    (["{course}", "--workers", "0"], "expected a positive whole number"),
    (["{course}", "--address", "127.0.0.1:1"], "no Ray cluster answers at 127.0.0.1:1"),
])
def test_bad_input_gets_one_line(class_dir, capsys, args, message):
    try:
        status = cli.main(["grade-class", *[a.format(course=class_dir) for a in args]])
    except SystemExit as e:  # argparse's errors
        status = e.code
    err = capsys.readouterr().err
    assert status == 2 and message in err and len(err.strip().splitlines()) == 1, err


def test_the_budgets_are_measured_once_before_the_tasks(tmp_path, monkeypatch):
    """grade-class measures the case times its tasks need (each exercise's own cases, the notebook's hidden
    calls) side by side before the first task starts, a Chinese class's hidden calls included."""
    from grader import autograde, exercises, isolation

    for assignment in ("day06", "day06-zh"):
        folder = tmp_path / "source" / assignment
        folder.mkdir(parents=True)
        shutil.copy(paths.ROOT / "instructor" / "notebooks" / f"{assignment.replace('-zh', '')}.ipynb",
                    folder / f"{assignment}.ipynb")
    asked = []
    monkeypatch.setattr(isolation, "case_budgets", lambda ex, cases, backend: asked.append((ex.key, cases)) or cases)
    count = classgrade.measure_budgets(tmp_path, ["day06", "day06", "day06-zh"], threads=3)
    own = [(ex.key, isolation.runnable_cases(ex)) for ex in exercises.day_exercises("day06")]
    nb = nbformat.read(paths.ROOT / "instructor" / "notebooks" / "day06.ipynb", as_version=4)
    hidden = [(f"day06/{c.name}", list(c.cases)) for cell in nb.cells if autograde.is_autograded(cell)
              for c in autograde.grade_calls(cell.source) if c.cases]
    assert hidden and sorted(map(repr, asked)) == sorted(map(repr, (own + hidden) * 2)), asked
    assert count == 2 * sum(len(c) for _, c in own + hidden)
