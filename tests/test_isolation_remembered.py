"""grade-class's workers grade an identical submission's fixed-seed calls (the hidden tests) once:
`isolation.remembering()`. The verdict is keyed by the bytes the child got, kept only in the grading
process's memory, and given only where it is a function of those bytes (the emulator, a kernel, a seed)."""
import shutil
from pathlib import Path

import pytest

from grader import classgrade, child, device, exercises, isolation, paths

pytestmark = pytest.mark.skipif(device.backend() != "emulator", reason="verdicts are remembered on the emulator only")

SOLUTION = paths.SOLUTIONS / "day01" / "vector_add.cu"
ADD = "if (i < n) c[i] = a[i] + b[i];"
CASES = [{"n": 33}, {"n": 1000}]


@pytest.fixture
def children(monkeypatch):
    """The child processes started, counted."""
    started = []
    real = child.run

    def counted(argv, **kwargs):
        started.append(argv)
        return real(argv, **kwargs)

    monkeypatch.setattr(isolation.child, "run", counted)
    monkeypatch.setattr(isolation._Remembered, "verdicts", type(isolation._Remembered.verdicts)())
    return started


def _student(tmp_path, name: str, text: str, **others) -> str:
    folder = tmp_path / name
    folder.mkdir()
    (folder / "vector_add.cu").write_text(text)
    for file, body in others.items():
        (folder / file.replace("_", ".")).write_text(body)
    return str(folder)


def _grade(folder: str, seed=7):
    return isolation.run_exercise("day01", "vector_add", CASES, source_dir=folder, seed=seed)


def test_identical_bytes_are_graded_once_and_name_their_own_folder(tmp_path, children):
    broken = "#error this does not compile\n" + SOLUTION.read_text()
    a, b = _student(tmp_path, "a", broken), _student(tmp_path, "b", broken)
    with isolation.remembering():
        first, second = _grade(a), _grade(b)
    assert len(children) == 1
    assert first.status == second.status == "failed" and (first.passed, first.total) == (second.passed, second.total)
    assert a in first.message and b in second.message and a not in second.message, second.message
    assert first.files == second.files


def test_an_edited_kernel_is_graded_again(tmp_path, children):
    folder = _student(tmp_path, "a", SOLUTION.read_text())
    with isolation.remembering():
        assert _grade(folder).status == "passed"
        (tmp_path / "a" / "vector_add.cu").write_text(SOLUTION.read_text().replace(ADD, ADD.replace("+", "-")))
        wrong = _grade(folder)
    assert len(children) == 2 and wrong.status == "failed", wrong


def test_a_header_or_an_included_file_is_part_of_the_key(tmp_path, children):
    """Another student's different header (or a .cu file the kernel names) keys another verdict; a file
    the kernel cannot reach does not."""
    text = SOLUTION.read_text()
    with isolation.remembering():
        _grade(_student(tmp_path, "a", text))
        _grade(_student(tmp_path, "b", text, extra_cuh="#define X 1\n"))
        _grade(_student(tmp_path, "c", '#include "other.cu"\n' + text, other_cu="// one\n"))
        _grade(_student(tmp_path, "d", '#include "other.cu"\n' + text, other_cu="// two\n"))
        assert len(children) == 4
        other = _grade(_student(tmp_path, "e", text, saxpy_cu="// anything\n"))
    assert len(children) == 4
    assert set(other.files) == {"vector_add.cu", "saxpy.cu"}, "the files graded are this submission's own"


def test_only_a_deterministic_verdict_is_remembered(tmp_path, children):
    """Outside grade-class (serial nbgrader), with a fresh seed (the visible tests), a kernel that traps:
    the child runs every time."""
    folder = _student(tmp_path, "a", SOLUTION.read_text())
    for _ in range(2):
        _grade(folder)
    assert len(children) == 2
    with isolation.remembering():
        for _ in range(2):
            _grade(folder, seed=None)
        assert len(children) == 4
        traps = _student(tmp_path, "t", SOLUTION.read_text().replace(ADD, "if (i == 0) __trap();\n  " + ADD))
        assert _grade(traps).status == "crashed"
        assert _grade(traps).status == "crashed"
    assert len(children) == 6


def test_a_wrong_kernel_never_lends_its_verdict(tmp_path, children):
    """A hostile student's submission (a wrong kernel beside the right one's name, then rewritten to the
    solution's bytes after it was graded) cannot pass its verdict to an honest student, nor the honest
    one's to itself: the key is the bytes the child compiled, read by the grader."""
    wrong_text = SOLUTION.read_text().replace(ADD, ADD.replace("+", "-"))
    hostile, honest = _student(tmp_path, "h", wrong_text), _student(tmp_path, "s", SOLUTION.read_text())
    with isolation.remembering():
        assert _grade(hostile).status == "failed"
        shutil.copyfile(SOLUTION, tmp_path / "h" / "vector_add.cu")
        assert _grade(honest).status == "passed"
        (tmp_path / "h" / "vector_add.cu").write_text(wrong_text)
        assert _grade(hostile).status == "failed"
    assert len(children) == 2
    assert not list(tmp_path.rglob("*remember*")) and not list(paths.STATE.glob("*remember*"))


def test_grade_class_remembers_and_nothing_else_does(tmp_path, monkeypatch):
    """grade-class's task grades inside `remembering()`; outside it (serial `nbgrader autograde`), nothing is."""
    seen = []
    monkeypatch.setattr(classgrade, "autograde_here", lambda *a: seen.append(isolation._Remembered.on))
    monkeypatch.setattr(classgrade, "_copy_db", lambda *a: None)
    monkeypatch.setattr(classgrade, "_read_submission", lambda *a: classgrade.Result("s", "day01", 0.0))
    classgrade.grade_pair(str(tmp_path), "s", "day01")
    assert seen == [True] and isolation._Remembered.on is False


def _calls(folder, *calls, timeout=None):
    return isolation.run_calls("day01", [("vector_add", *call) for call in calls], source_dir=folder,
                               timeout=timeout)


def test_an_exercises_calls_share_one_child_each_with_its_own_seeds_and_verdict(tmp_path, children):
    """grade-class: a cell's visible call (fresh seeds) and hidden call (its seed) in one child; a trap in
    one case fails that call alone; a compile error fails both."""
    traps = SOLUTION.read_text().replace(ADD, "if (n == 1000 && i == 0) __trap();\n  " + ADD)
    folder = _student(tmp_path, "a", traps)
    with isolation.remembering():
        visible, hidden = _calls(folder, ([{"n": 33}, {"n": 1000}], None), ([{"n": 33}, {"n": 257}], 7))
        assert len(children) == 1
        assert visible.status == "crashed" and [r.status for r in visible.cases] == ["passed", "crashed"]
        assert hidden.status == "passed" and [r.seed for r in hidden.cases] == [7, 7], hidden
        assert visible.cases[0].seed != 7 and "n=1000" in visible.message and "n=1000" not in hidden.message
        broken = _student(tmp_path, "b", "#error no\n" + SOLUTION.read_text())
        outcomes = _calls(broken, ([{"n": 33}], None), ([{"n": 257}], 7))
    assert len(children) == 2
    assert all(o.status == "failed" and "does not compile" in o.message for o in outcomes), outcomes


def test_a_call_the_shared_child_never_reached_runs_in_its_own(tmp_path, children):
    """The visible call hangs: it times out, and the hidden call is graded in a child of its own, as it
    would have been alone."""
    hangs = SOLUTION.read_text().replace(ADD, "if (n == 1000) while (true) {}\n  " + ADD)
    folder = _student(tmp_path, "a", hangs)
    with isolation.remembering():
        visible, hidden = _calls(folder, ([{"n": 1000}], None), ([{"n": 33}, {"n": 257}], 7), timeout=3)
    assert len(children) == 2
    assert visible.status == "timed out" and hidden.status == "passed", (visible, hidden)


def test_autograde_shares_a_child_between_a_cells_calls_only_in_grade_class(tmp_path, children):
    """GradeKernels' calls of one cell (visible, then hidden): one child in grade-class's workers, one
    each under `nbgrader autograde`; the same verdicts, in the cell's order."""
    from grader import autograde

    cell = ('nb.grade("day01", "vector_add")\n### BEGIN HIDDEN TESTS\n'
            'nb.grade("day01", "vector_add", cases=[{"n": 2}, {"n": 257}], seed=101)\n### END HIDDEN TESTS\n')
    calls = autograde.grade_calls(cell)
    folder = tmp_path / "a"
    folder.mkdir()
    shutil.copyfile(SOLUTION, folder / "vector_add.cu")
    alone = autograde._graded_calls("day01", calls, folder)
    assert len(children) == 2
    with isolation.remembering():
        shared = autograde._graded_calls("day01", calls, folder)
    assert len(children) == 3
    assert [(o.status, o.total) for o, _ in alone] == [(o.status, o.total) for o, _ in shared] == \
        [("passed", len(isolation.runnable_cases(exercises.get("day01", "vector_add")))), ("passed", 2)]


def test_a_days_exercises_share_one_child_each_with_its_own_compile(tmp_path, children):
    """grade-class: a notebook's calls of several exercises in one child; one that does not compile or
    is missing fails alone."""
    folder = tmp_path / "a"
    folder.mkdir()
    (folder / "vector_add.cu").write_text("#error no\n" + SOLUTION.read_text())
    shutil.copyfile(paths.SOLUTIONS / "day01" / "saxpy.cu", folder / "saxpy.cu")
    calls = [("vector_add", [{"n": 33}], None), ("saxpy", [{"n": 513}], None), ("saxpy", [{"n": 2}], 7),
             ("thread_info", [{"grid": (1, 1, 1), "block": (32, 1, 1)}], 7)]
    with isolation.remembering():
        add, saxpy, hidden, missing = isolation.run_calls("day01", calls, source_dir=str(folder))
    assert len(children) == 1
    assert add.status == "failed" and "does not compile" in add.message, add
    assert saxpy.status == hidden.status == "passed" and hidden.cases[0].seed == 7, (saxpy, hidden)
    assert missing.status == "failed" and "thread_info.cu is missing" in missing.message, missing


@pytest.fixture
def on_a_gpu(monkeypatch):
    """run_calls as on a GPU (the cupy backend, each case a second's budget); no GPU here: the tests
    stand in for the children."""
    monkeypatch.setattr(device, "why_no_gpu", lambda: None)
    monkeypatch.setattr(device, "backend", lambda: "cupy")
    monkeypatch.setattr(isolation, "case_budgets", lambda ex, cases, backend: [1.0] * len(cases))


def _handed_in(folder, day: str, names: tuple[str, ...]) -> str:
    for name in names:
        shutil.copyfile(paths.SOLUTIONS / day / name, folder / name)
    return str(folder)


def test_on_a_gpu_too_a_notebooks_kernel_calls_share_one_child(tmp_path, monkeypatch, on_a_gpu):
    """grade-class on a GPU: the notebook's kernel calls go to one child together (one compile per file,
    not one per call), as on the emulator (a crash there ends the child; what it did not reach runs alone)."""
    folder = _handed_in(tmp_path, "day01", ("vector_add.cu", "saxpy.cu"))
    batches = []
    monkeypatch.setattr(isolation, "_run_parts", lambda parts, **kw: batches.append(len(parts)) or
                        [isolation.Outcome(ex.key, "passed", "", len(cases), len(cases)) for ex, cases, _, _ in parts])
    monkeypatch.setattr(isolation, "_run", lambda *a, **kw: pytest.fail("a call graded in a child of its own"))
    calls = [("vector_add", [{"n": 33}], None), ("vector_add", [{"n": 2}], 7), ("saxpy", [{"n": 513}], 7)]
    with isolation.remembering():
        outcomes = isolation.run_calls("day01", calls, source_dir=folder)
    assert batches == [3] and [o.status for o in outcomes] == ["passed"] * 3


def test_on_a_gpu_an_exercise_is_racechecked_once_for_all_its_calls(tmp_path, monkeypatch, on_a_gpu):
    """A race is the kernel's, not a case's: a notebook's visible and hidden calls of one exercise share
    one compute-sanitizer run (its verdict fails both); the notebook's exercises share one child."""
    folder = _handed_in(tmp_path, "day06", ("block_sum.cu", "rmsnorm.cu"))
    checked = []
    monkeypatch.setattr(isolation, "_run", lambda ex, cases, **kw: isolation.Outcome(
        ex.key, "passed", "", len(cases), len(cases), [isolation.CaseResult(c, "passed") for c in cases]))
    monkeypatch.setattr(isolation, "_racecheck", lambda todo, folder: checked.append([ex.name for ex, _, _ in todo])
                        or {ex.key: (True, "racecheck: a race") if ex.name == "block_sum" else (False, "")
                            for ex, _, _ in todo})
    calls = [("block_sum", [{"n": 33}], None), ("block_sum", [{"n": 2}], 601), ("rmsnorm", None, 602)]
    visible, hidden, rms = isolation.run_calls("day06", calls, source_dir=folder)
    assert checked == [["block_sum", "rmsnorm"]]  # one compute-sanitizer child for the notebook
    assert visible.status == hidden.status == "failed" and hidden.cases[0].message == "racecheck: a race"
    assert rms.status == "passed", rms


def test_one_racecheck_child_names_the_race_in_the_exercise_whose_kernel_raced(tmp_path, monkeypatch):
    """The notebook's exercises share one compute-sanitizer child: its report fails only the exercise
    whose file defines the racing kernel; a part that did not finish says racecheck proves nothing."""
    from grader import sanitize

    folder = _handed_in(tmp_path, "day06", ("block_sum.cu", "rmsnorm.cu", "fused_add_rmsnorm.cu"))
    src = f"{folder}/rmsnorm.cu"
    report = (f"========= Error: Race reported between Write access at rmsnorm_f16+0x1c0 in {src}:120\n"
              f"=========     and Read access at rmsnorm_f16+0x2a0 in {src}:131 [64 hazards]\n=========\n")
    monkeypatch.setattr(sanitize, "find_sanitizer", lambda: "compute-sanitizer")
    wrappers = []

    def run_parts(parts, *, source_dir, backend, wrapper, **kw):
        wrappers.append((len(parts), wrapper[1:]))
        return [isolation.Outcome(ex.key, "timed out" if ex.name == "fused_add_rmsnorm" else "passed",
                                  "case 1 timed out", 1, 1, output=report) for ex, _, _, _ in parts]

    monkeypatch.setattr(isolation, "_run_parts", run_parts)
    todo = [(exercises.get("day06", n), [{"n": 1000}, {"n": 33}] if n == "block_sum" else list(exercises.get("day06", n).cases),
             [1.0] * (2 if n == "block_sum" else len(exercises.get("day06", n).cases)))
            for n in ("block_sum", "rmsnorm", "fused_add_rmsnorm")]
    verdicts = isolation._racecheck(todo, tmp_path)
    assert wrappers == [(3, ["--tool", "racecheck"])]
    block, rms, fused = (verdicts[f"day06/{n}"] for n in ("block_sum", "rmsnorm", "fused_add_rmsnorm"))
    assert block == (False, "")
    assert rms[0] and "rmsnorm_f16" in rms[1] and "rmsnorm.cu:120" in rms[1], rms
    assert fused == (False, "(racecheck did not finish: timed out: case 1 timed out)"), fused


def test_a_shared_child_compiles_its_files_together_first(tmp_path, monkeypatch):
    """runner.precompile: each .cu file once and each technique's SASS once per file, in pool threads (NVRTC
    runs outside the GIL); a file that does not compile or is missing is left to its own load to report."""
    import threading

    from grader import compiler, runner, technique

    for name in ("attention_mma.cu", "attention_prefill.cu"):
        shutil.copyfile(paths.SOLUTIONS / "day12" / name, tmp_path / name)
    monkeypatch.setenv(paths.SOURCE_DIR_ENV, str(tmp_path))
    monkeypatch.setenv("OMP_NUM_THREADS", "2")
    monkeypatch.setattr(device, "backend", lambda: "cupy")  # on a GPU machine only (the emulator's cores are busy)
    calls, lock = [], threading.Lock()

    def record(kind):
        def fake(*args):
            with lock:
                calls.append((kind, Path(args[-1]).name, threading.current_thread() is threading.main_thread()))
            if Path(args[-1]).name == "attention_prefill.cu" and kind == "compile":
                raise compiler.CompileError("attention_prefill.cu", "error: planted")
        return fake

    monkeypatch.setattr(device, "compile", record("compile"))
    monkeypatch.setattr(technique, "prepare", record("technique"))
    names = ("attention_mma", "attention_mma_causal", "prefill", "prefill_causal", "qk_tile")  # qk_tile.cu: missing
    runner.precompile([exercises.get("day12", n) for n in names])
    assert sorted(calls) == [("compile", "attention_mma.cu", False), ("compile", "attention_prefill.cu", False),
                             ("technique", "attention_mma.cu", False), ("technique", "attention_prefill.cu", False)]
    calls.clear()
    monkeypatch.setenv("OMP_NUM_THREADS", "1")  # grade-class gave this worker one core: nothing ahead of the loads
    runner.precompile([exercises.get("day12", n) for n in names])
    assert calls == []
