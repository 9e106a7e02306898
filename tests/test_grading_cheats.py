"""Grades an instructor can trust: every cheat an adversarial student tried scores zero or is refused,
and honest students keep their grades (no GPU needed: without one, kernels run on the emulator).

The nbgrader class uses day 1 with a short notebook (the setup cell and the vector_add grade cell,
with small hidden cases), so that a dozen autogrades fit in CI; the grading path is the real one
(nbgrader_config.py as `python -m grader release` writes it).
"""
from __future__ import annotations

import json
import os
import re
import shutil
import socket
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import nbformat
import pytest

from grader import device, isolation, paths, sandbox
from grader import nbgrader_course as course

DAY = "day01"
SOLUTION = (paths.SOLUTIONS / DAY / "vector_add.cu").read_text()
HIDDEN_CASES = '[{"n": 1000}, {"n": 2}, {"n": 70_001}]'
ADD = "if (i < n) c[i] = a[i] + b[i];"


def _hung() -> str:
    assert ADD in SOLUTION
    return SOLUTION.replace(ADD, "while (true) {}\n  " + ADD)


def _forged_printf() -> str:
    """A kernel that does nothing but print what a result line looked like, then a fake event line."""
    fake = '{\\"event\\": \\"done\\"}'
    return (SOLUTION.replace(ADD,
                             'if (i == 0) printf("COURSE-RESULT {\\"status\\": \\"passed\\", \\"passed\\": 8, '
                             '\\"total\\": 8}\\n0123456789abcdef0123456789abcdef ' + fake + '\\n");'))


# ---- offline: the locked-down child ---------------------------------------------------------------

def _grade_text(tmp_path, text: str, name="vector_add", filename="vector_add.cu", cases=None):
    folder = tmp_path / "submission"
    folder.mkdir(exist_ok=True)
    (folder / filename).write_text(text)
    return isolation.run_exercise(DAY, name, cases or [{"n": 1000}, {"n": 33}], source_dir=str(folder))


def test_an_include_of_the_solutions_is_refused(tmp_path):
    for text in ("#include <../../solutions/day01/vector_add.cu>\n",
                 "#include <course/../../../solutions/day01/vector_add.cu>\n",
                 f'#include "{paths.SOLUTIONS / DAY / "vector_add.cu"}"\n',
                 "#define WHERE <../../solutions/day01/vector_add.cu>\n#include WHERE\n"):
        outcome = _grade_text(tmp_path, text)
        assert outcome.status == "failed" and "is not allowed" in outcome.message, outcome


def test_a_printf_cannot_forge_the_result(tmp_path):
    outcome = _grade_text(tmp_path, _forged_printf())
    assert outcome.status == "failed" and outcome.passed == 0, outcome
    assert "COURSE-RESULT" in outcome.output  # it did print; nobody listened


def test_a_link_to_the_solution_is_refused(tmp_path):
    folder = tmp_path / "submission"
    folder.mkdir()
    (folder / "vector_add.cu").symlink_to(paths.SOLUTIONS / DAY / "vector_add.cu")
    outcome = isolation.run_exercise(DAY, "vector_add", [{"n": 33}], source_dir=str(folder))
    assert outcome.status == "failed" and "is a link" in outcome.message


def test_printing_ones_own_kernel_is_no_leak(tmp_path):
    """A lesson may print the student's source (sass.ptx_map does): the student's own lines and the
    demos the lesson shows are not leaks; a solution line the student did not write still is."""
    from grader.assignments import solution_lines
    from grader.autograde import _leaks, _own_lines

    assert "if (r < rows && c < cols) tile[ty + j][tx] = in[static_cast<int64_t>(r) * cols + c];" \
        not in solution_lines("day04")  # also in demos/transpose_race.cu, which the lesson prints
    folder = tmp_path / "submission"
    folder.mkdir()
    (folder / "vector_add.cu").write_text(SOLUTION)
    solution_only = {ln for ln in solution_lines(DAY) if len(ln) >= 24 and ln in SOLUTION}
    assert solution_only and not _leaks(tmp_path, DAY, DAY, _own_lines(folder)) & solution_only
    (folder / "vector_add.cu").write_text("// my own kernel\n")
    assert _leaks(tmp_path, DAY, DAY, _own_lines(folder)) >= solution_only


def test_a_notebook_printed_raw_still_shows_its_hidden_lines():
    from grader.autograde import _leaked

    hidden = 'nb.grade("day01", "vector_add", cases=[{"n": 70_001}])'
    raw = json.dumps({"source": [hidden + "\n"]})  # open(source notebook).read(): quotes escaped
    assert _leaked({hidden}, raw) == [hidden] and _leaked({hidden}, "nothing of it") == []


def test_the_child_gets_copies_of_the_source_files_only(tmp_path):
    folder, dest = tmp_path / "submission", tmp_path / "child"
    folder.mkdir(), dest.mkdir()
    (folder / "vector_add.cu").write_text(SOLUTION)
    (folder / "helpers.cuh").write_text("// a header of the student's\n")
    (folder / "day01.ipynb").write_text("{}")
    (folder / "grader.py").write_text("raise SystemExit('imported')")
    isolation._copy_submission(folder, "vector_add.cu", dest)
    assert sorted(p.name for p in dest.iterdir()) == ["helpers.cuh", "vector_add.cu"]
    env = isolation._child_env(dest)
    assert env[paths.SOURCE_DIR_ENV] == str(dest / "src") and env["HOME"] == str(dest / "home")
    assert paths.KERNELS_ENV in env and "NBGRADER_EXECUTION" not in env


def _without_barrier(day: str, source: str) -> str:
    """The solution with its first __syncthreads() statement (not a comment) removed."""
    text = (paths.SOLUTIONS / day / source).read_text()
    broken = re.sub(r"^(\s*)__syncthreads\(\);", r"\1", text, count=1, flags=re.M)
    assert broken != text, f"{source} has no __syncthreads(); to remove"
    return broken


BARRIERS = [("day04", "transpose_tiled", "transpose_tiled.cu"), ("day06", "block_sum", "block_sum.cu")]


@pytest.mark.parametrize("day,name,source", BARRIERS)
def test_a_missing_barrier_fails_with_its_line(tmp_path, planted, day, name, source):
    if not device.emulated():
        pytest.skip("on a GPU, races are found by racecheck: test_racecheck_finds_a_missing_barrier")
    message = planted(day, name, _without_barrier(day, source))
    assert message, f"{name} without its barrier passed"
    assert ("race" in message and f"{source}:" in message) or "BAR (__syncthreads)" in message, message


def test_a_hung_kernel_is_timed_out_and_the_next_exercise_still_graded(tmp_path):
    folder = tmp_path / "submission"
    folder.mkdir()
    (folder / "vector_add.cu").write_text(_hung())
    for f in ("saxpy.cu", "add_bias_2d.cu"):
        shutil.copyfile(paths.SOLUTIONS / DAY / f, folder / f)
    start = time.monotonic()
    hung = isolation.run_exercise(DAY, "vector_add", [{"n": 33}, {"n": 1000}], source_dir=str(folder))
    took = time.monotonic() - start
    assert hung.status == "timed out" and "timed out after" in hung.message and "in case n=33" in hung.message
    assert took < 60, f"the hung kernel took {took:.0f} s to report"
    assert isolation.run_exercise(DAY, "saxpy", [{"n": 33}], source_dir=str(folder)).status == "passed"


def _day02_with_a_hung_gather(tmp_path):
    """A day 2 submission: the solutions, but strided_gather never finishes."""
    folder = tmp_path / "submission"
    folder.mkdir()
    for f in course.exercise_files("day02"):
        shutil.copyfile(paths.SOLUTIONS / "day02" / f, folder / f)
    gather = (folder / "strided_gather.cu").read_text()
    line = "if (i < n_out) out[i] = in[i * stride];"
    assert line in gather
    (folder / "strided_gather.cu").write_text(gather.replace(line, "while (true) {}\n  " + line))
    return {**os.environ, paths.SOURCE_DIR_ENV: str(folder)}


def test_pytest_reports_a_hung_kernel_without_s(tmp_path):
    """`pytest days/day02` (no -s): the hang is reported in the test's failure, fast; other exercises run."""
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "pytest", str(paths.DAYS / "day02"), "-q", "-p", "no:cacheprovider",
                           "-m", "not perf", "-k", "strided_gather or silu_and_mul"], capture_output=True, text=True,
                          env=_day02_with_a_hung_gather(tmp_path), cwd=paths.ROOT, timeout=600)
    took = time.monotonic() - start
    assert "timed out after" in done.stdout and "in case" in done.stdout, done.stdout[-3000:]
    assert "day02/silu_and_mul" in done.stdout and " passed" in done.stdout, done.stdout[-3000:]
    assert took < 240, f"{took:.0f} s"


def test_grader_check_reports_a_hung_kernel_and_grades_the_rest(tmp_path):
    done = subprocess.run([sys.executable, "-m", "grader", "check", "day02"], capture_output=True, text=True,
                          env=_day02_with_a_hung_gather(tmp_path), cwd=paths.ROOT, timeout=900)
    rows = {line.split()[0]: line for line in done.stdout.splitlines() if line.startswith("day02/")}
    assert "FAILED" in rows["day02/strided_gather"] and "timed out after" in done.stdout, done.stdout[-3000:]
    assert "passed" in rows["day02/silu_and_mul"], done.stdout[-3000:]


# ---- student Python (day 14's binding.py): it runs sandboxed, and only the data it returns counts --

BINDING_STUB = (paths.DAYS / "day14" / "binding.py").read_text()
ONE_CASE = [{"rows": 1, "d": 8}]
TOKEN = "course-cheat-daemon-7f3a"


def _binding(tmp_path, attack: str, base: str = BINDING_STUB, name="binding"):
    """Grade a binding.py made of `base` and `attack` (run when it is imported)."""
    folder = tmp_path / "binding-submission"
    folder.mkdir(exist_ok=True)
    (folder / "binding.py").write_text(base + "\n\n" + attack + "\n")
    return isolation.run_exercise("day14", name, ONE_CASE if name == "binding" else None, source_dir=str(folder))


def _needs_sandbox():
    if sandbox.unavailable():
        pytest.skip(f"no sandbox here: {sandbox.unavailable()}")


def test_python_exercise_honest_passes_and_stub_fails(tmp_path):
    assert _binding(tmp_path, "", (paths.SOLUTIONS / "day14" / "binding.py").read_text()).status == "passed"
    stub = _binding(tmp_path, "")
    assert stub.status == "failed" and "NotImplementedError" in stub.message, stub


REPLACE_CHECKER = """
import sys
for _name, _mod in list(sys.modules.items()):
    if _name.startswith("grader"):
        for _attr in ("check_binding", "check", "verify", "harness", "assert_close", "_rmsnorm_close"):
            if hasattr(_mod, _attr):
                setattr(_mod, _attr, lambda *a, **k: {})
"""

FORGE_CHANNEL = """
import json, os, sys
_frame = sys._getframe()
while _frame is not None and "send" not in _frame.f_locals:
    _frame = _frame.f_back
_send, _request = _frame.f_locals["send"], json.loads(sys.argv[-1])
_send(event="compiled", ok=True, message="")
for _i, _case in enumerate(_request["cases"]):
    _send(event="start", index=_i)
    _send(event="end", index=_i, status="passed", message="", seed=1, seconds=0.0)
_send(event="done")
os._exit(0)
"""


@pytest.mark.parametrize("attack", ["replace the checker", "forge the result channel"])
def test_python_exercise_cannot_grade_itself(tmp_path, attack):
    """A stub that replaces the checker, or walks the frames to the result channel and reports a pass,
    still fails: the grader checks the data it returns, on seeds it chose."""
    outcome = _binding(tmp_path, {"replace the checker": REPLACE_CHECKER,
                                  "forge the result channel": FORGE_CHANNEL}[attack])
    assert outcome.status != "passed" and outcome.passed == 0, outcome


def _secrets(tmp_path):
    """Files a student's Python must not reach: another submission, a gradebook, hidden tests."""
    other = tmp_path / "submitted" / "bob" / "day14"
    other.mkdir(parents=True)
    (other / "binding.py").write_text("# bob's answer\n")
    (tmp_path / "gradebook.db").write_bytes(b"grades")
    return [other / "binding.py", tmp_path / "gradebook.db", paths.INSTRUCTOR_NOTEBOOKS / "day14.ipynb",
            paths.SOLUTIONS / "day14" / "binding.py"]


def test_python_exercise_reads_and_writes_nothing_outside(tmp_path):
    _needs_sandbox()
    secrets = _secrets(tmp_path)
    planted = [Path(sys.prefix) / "course_planted.pth", paths.ROOT / "grader" / "course_planted.py"]
    attack = f"""
import glob, os
_seen = []
for _path in {[str(p) for p in secrets]!r}:
    for _where in (_path, "/proc/1/root" + _path):
        if os.path.exists(_where):
            _seen.append(_where)
for _path in {[str(p) for p in [*secrets[:2], *planted]]!r}:
    try:
        with open(_path, "a") as _f:
            _f.write("import os  # planted")
        _seen.append("wrote " + _path)
    except OSError:
        pass
raise RuntimeError("SEEN " + repr(_seen))
"""
    try:
        outcome = _binding(tmp_path, attack)
    finally:
        leftovers = [p for p in planted if p.exists()]
        for p in leftovers:
            p.unlink()
    assert "SEEN []" in outcome.message, outcome
    assert not leftovers and (tmp_path / "gradebook.db").read_bytes() == b"grades"
    assert secrets[0].read_text() == "# bob's answer\n"


def _alive(token: str) -> list[str]:
    found = []
    for proc in Path("/proc").iterdir():
        try:
            if token in (proc / "cmdline").read_bytes().decode(errors="replace"):
                found.append(proc.name)
        except OSError:
            continue
    return found


def test_python_exercise_leaves_no_process_behind(tmp_path):
    _needs_sandbox()
    attack = f"""
import os, subprocess, sys
if os.fork() == 0:
    os.setsid()
    subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)", "{TOKEN}"], start_new_session=True)
    os._exit(0)
os.wait()
raise NotImplementedError("a daemon was left behind")
"""
    try:
        outcome = _binding(tmp_path, attack)
        time.sleep(1)
        assert outcome.status == "failed" and not _alive(TOKEN), outcome
    finally:
        for pid in _alive(TOKEN):
            os.kill(int(pid), 9)


def test_rmsnorm_ffi_without_a_gpu_is_not_full_marks():
    """Without a GPU nothing is launched: a function that never launches cannot pass; the grade says
    the points wait for a GPU."""
    from grader.exercises import day14

    if not device.why_not_hardware():
        pytest.skip("a GPU grades rmsnorm_ffi's values")
    if day14.why_no_ffi():
        pytest.skip(day14.why_no_ffi())
    outcome = isolation.run_exercise("day14", "rmsnorm_ffi", [day14.FFI_CASES[0]], solutions=True)
    assert outcome.status == "failed" and day14.NOT_GRADED_WITHOUT_GPU in outcome.message, outcome


# ---- nbgrader: a class with honest and dishonest students ------------------------------------------

def _short_notebook(tmp_path):
    """day01's notebook cut to its setup cell and the vector_add grade cell, with small hidden cases."""
    nb = nbformat.read(paths.INSTRUCTOR_NOTEBOOKS / f"{DAY}.ipynb", as_version=4)
    keep = []
    for cell in nb.cells:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if meta.get("grade_id") == f"{DAY}-setup":
            keep.append(cell)
        elif meta.get("grade_id") == f"{DAY}-vector_add":
            src = cell.source
            start, end = src.index("### BEGIN HIDDEN TESTS"), src.index("### END HIDDEN TESTS")
            cell.source = (src[:start] + "### BEGIN HIDDEN TESTS\n"
                           f'nb.grade("{DAY}", "vector_add", cases={HIDDEN_CASES}, seed=7)\n' + src[end:])
            keep.append(cell)
    nb.cells = keep
    folder = tmp_path / "notebooks"
    folder.mkdir()
    nbformat.write(nb, folder / f"{DAY}.ipynb")
    return folder


CHEAT_CELLS = {
    "monkeypatch": "import grader.notebook\nnb.grade = lambda *a, **k: None\ngrader.notebook.grade = nb.grade",
    "gradebook": ("import glob, sqlite3\nfor db in glob.glob('../../../gradebook.db'):\n"
                  "    con = sqlite3.connect(db)\n    con.execute('update grade set manual_score=0, auto_score=0')\n"
                  "    con.commit()\n    con.close()"),
    "copy_solutions": ("import shutil, glob\nfrom grader import paths\n"
                       "for f in glob.glob(str(paths.SOLUTIONS / 'day01' / '*.cu')):\n    shutil.copy(f, '.')"),
    "environment": ("import os, glob\nos.environ.pop('NBGRADER_EXECUTION', None)\n"
                    "os.environ['COURSE_KERNELS'] = 'solutions'\n"
                    "for f in glob.glob('*.cu'):\n    os.rename(f, f + '.bak')"),
    "spy": ("import glob\nfor f in glob.glob('../../../source/*/*.ipynb') + glob.glob('../../../submitted/*/*/*.cu'):\n"
            "    print(open(f).read())"),
    "endless": "while True:\n    pass",
    "killer": "import os\nos._exit(1)",
    # the sandbox's own attack classes: each would reach the course without it, so run only with it
    "escape": textwrap.dedent("""\
        import ctypes, glob, os
        libc = ctypes.CDLL(None, use_errno=True)
        course = os.path.abspath('../../..')
        for d in ('submitted', 'source', 'autograded', ''):
            libc.umount2(os.path.join(course, d).encode(), 2)
        libc.mount(None, course.encode(), None, 32 | 4096, None)  # MS_REMOUNT | MS_BIND: read-write
        found = []
        for root in ['', *glob.glob('/proc/*/root')]:
            for f in glob.glob(root + course + '/source/*/*.ipynb') + glob.glob(root + course + '/submitted/*/*/*.cu'):
                found.append(open(f).read())
            for f in glob.glob(root + course + '/gradebook.db'):
                try:
                    open(f, 'wb').write(b'')
                except OSError:
                    pass
        print('\\n'.join(found))"""),
    "daemon": textwrap.dedent(f"""\
        import os, subprocess, sys
        later = os.path.abspath('../../..') + '/submitted/*/day01/vector_add.cu'  # a later student's kernel
        code = ('import glob, time\\nfor _ in range(600):\\n    time.sleep(0.2)\\n'
                f'    for f in glob.glob("{{later}}") + glob.glob("/proc/*/root{{later}}"):\\n'
                '        open(f, "w").write("// rewritten by a daemon")')
        if os.fork() == 0:
            os.setsid()
            subprocess.Popen([sys.executable, '-c', code, '{TOKEN}'], start_new_session=True)
            os._exit(0)
        os.wait()"""),
    "parent_killer": "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\nos.killpg(0, signal.SIGKILL)",
    "big_file": "with open('big', 'wb') as f:\n    for _ in range(600):\n        f.write(bytes(1 << 20))",
    "rewrite": "open('vector_add.cu', 'w').write('// rewritten after grading\\n')",
    "network": ("import socket\ns = socket.create_connection(('127.0.0.1', PORT), timeout=2)\n"
                "s.sendall(b'course secrets')"),
}
#: Students of the sandboxed class only, and their cells (one notebook each; the last cell may kill its kernel)
SANDBOX_ONLY = {"intruder": ("escape", "daemon", "network", "big_file"), "parent_killer": ("parent_killer",)}


def _notebook_with(release_nb, cell_source: str | tuple, dest):
    nb = nbformat.read(release_nb, as_version=4)
    sources = (cell_source,) if isinstance(cell_source, str) else cell_source
    nb.cells[1:1] = [nbformat.v4.new_code_cell(src) for src in sources]
    nbformat.write(nb, dest)
    return dest


@pytest.fixture(scope="module", params=["sandbox", "no sandbox"])
def graded_class(request, tmp_path_factory):
    """Autograde a class on the emulator; returns (course_dir, scores, max score, mode)."""
    pytest.importorskip("nbgrader")
    mode = request.param
    if mode == "sandbox" and sandbox.unavailable():
        pytest.skip(f"no sandbox here: {sandbox.unavailable()}")
    tmp = tmp_path_factory.mktemp("class")
    mp = pytest.MonkeyPatch()
    mp.setattr(paths, "INSTRUCTOR_NOTEBOOKS", _short_notebook(tmp))
    if device.why_not_hardware():
        mp.setenv(device.BACKEND_ENV, "emulator")  # without a GPU, the kernels run on the emulator
    if mode == "no sandbox":
        mp.setenv(sandbox.SANDBOX_ENV, "off")
    try:
        course_dir = course.build_course(tmp / "course", days=(DAY,))
        with (course_dir / "nbgrader_config.py").open("a") as f:
            f.write("c.RunNotebook.cell_timeout = 15\nc.RunNotebook.budget = 60\n")
        release = course_dir / "release" / DAY
        stubs = {f: release / f for f in course.exercise_files(DAY)}
        solutions = {f: paths.SOLUTIONS / DAY / f for f in course.exercise_files(DAY)}
        work = tmp / "work"
        work.mkdir()
        bad_include = work / "include" / "vector_add.cu"
        bad_include.parent.mkdir()
        bad_include.write_text("#include <../../solutions/day01/vector_add.cu>\n")
        forged = work / "printf" / "vector_add.cu"
        forged.parent.mkdir()
        forged.write_text(_forged_printf())
        hung = work / "hung" / "vector_add.cu"
        hung.parent.mkdir()
        hung.write_text(_hung())
        nb = release / f"{DAY}.ipynb"
        listener = socket.create_server(("127.0.0.1", 0))
        listener.setblocking(False)
        cells = {**CHEAT_CELLS, "network": CHEAT_CELLS["network"].replace("PORT", str(listener.getsockname()[1]))}
        cheat = {name: _notebook_with(nb, src, work / f"{name}.ipynb") for name, src in cells.items()}
        cheat.update({name: _notebook_with(nb, tuple(cells[c] for c in names), work / f"{name}.ipynb")
                      for name, names in SANDBOX_ONLY.items()})
        notebook = f"{DAY}.ipynb"
        classroom = {
            "honest": solutions,
            "lazy": stubs,
            "monkeypatch": {**stubs, notebook: cheat["monkeypatch"]},
            "gradebook": {**stubs, notebook: cheat["gradebook"]},
            "copy_solutions": {**stubs, notebook: cheat["copy_solutions"]},
            "include": {**stubs, "vector_add.cu": bad_include},
            "printf": {**stubs, "vector_add.cu": forged},
            "environment": {**stubs, notebook: cheat["environment"]},
            "spy": {**solutions, notebook: cheat["spy"]},
            "hung": {**stubs, "vector_add.cu": hung},
            "endless": {**solutions, notebook: cheat["endless"]},
            "killer": {**solutions, notebook: cheat["killer"]},
            **{name: {**solutions, notebook: cheat[name]} for name in (*SANDBOX_ONLY, "rewrite")},
            "honest2": solutions,
        }
        if mode == "no sandbox":  # the cheats whose defence differs without a sandbox
            classroom = {k: classroom[k] for k in ("honest", "gradebook", "copy_solutions", "spy", "rewrite",
                                                   "honest2")}
        start = time.monotonic()
        try:
            scores = course.autograde(course_dir, DAY, classroom)
            alive = _alive(TOKEN)
        finally:
            for pid in _alive(TOKEN):
                os.kill(int(pid), 9)
        try:
            reached = listener.accept()[0].recv(100)
        except BlockingIOError:
            reached = b""
        listener.close()
        print(f"{mode}: {len(classroom)} students in {time.monotonic() - start:.0f} s: {scores}")
        course_dir.joinpath("attacks.json").write_text(json.dumps({"alive": alive, "reached": reached.decode()}))
        # what an honest student earns here: on the emulator, less the points of the sizes it did not run
        yield course_dir, scores, course.max_score(course_dir, DAY) - course.withheld(course_dir, DAY, "honest"), mode
    finally:
        mp.undo()


def _outputs(course_dir, student) -> str:
    nb = json.loads((course_dir / "autograded" / student / DAY / f"{DAY}.ipynb").read_text())
    return json.dumps([c.get("outputs", []) for c in nb["cells"]])


def test_honest_students_keep_full_marks(graded_class):
    course_dir, scores, full, _ = graded_class
    assert full > 0 and scores["honest"] == full and scores["honest2"] == full, scores
    with sqlite3.connect(course_dir / "gradebook.db") as con:  # after every cheater ran
        assert con.execute("select count(*) from grade where auto_score > 0").fetchone()[0] >= 2


@pytest.mark.parametrize("student", ["lazy", "monkeypatch", "gradebook", "copy_solutions", "include", "printf",
                                     "environment", "hung"])
def test_cheats_score_zero(graded_class, student):
    _, scores, _, _ = graded_class
    if student not in scores:
        pytest.skip(f"{student}: the same defence with and without a sandbox")
    assert scores[student] == 0, scores


def test_a_spy_reads_nothing_or_scores_zero(graded_class):
    course_dir, scores, full, mode = graded_class
    printed = _outputs(course_dir, "spy")
    if mode == "sandbox":
        assert "BEGIN HIDDEN TESTS" not in printed and "70_001" not in printed and scores["spy"] == full
    else:
        assert scores["spy"] == 0 and "printed hidden tests" in printed


def test_a_gradebook_edit_is_undone(graded_class):
    course_dir, scores, full, mode = graded_class
    assert scores["honest"] == full
    if mode == "no sandbox":
        assert "changed the gradebook" in _outputs(course_dir, "gradebook")


def test_copying_files_from_a_cell_changes_nothing(graded_class):
    course_dir, scores, _, mode = graded_class
    assert scores["copy_solutions"] == 0
    if mode == "sandbox":
        assert "vector_add: failed" in _outputs(course_dir, "copy_solutions")


def test_endless_and_dying_notebooks_keep_their_kernel_grades(graded_class):
    _, scores, full, mode = graded_class
    if mode == "sandbox":
        assert scores["endless"] == full and scores["killer"] == full, scores


def test_feedback_hides_the_hidden_tests(graded_class):
    course_dir, _, _, mode = graded_class
    if mode != "sandbox":
        pytest.skip("checked once")
    for html in course.feedback(course_dir, DAY):
        text = html.read_text()
        assert "70_001" not in text and "seed=7" not in text and "BEGIN HIDDEN TESTS" not in text, html
        assert "hidden case" in text or "hidden tests" in text


def test_the_sandbox_holds_as_root(graded_class):
    """umount2, a read-write remount and /proc/<pid>/root show nothing; the gradebook keeps its grades;
    a daemon dies with its notebook (it would have rewritten a later student's kernel); killing its
    parent ends only the notebook; a huge file and a connection out go nowhere; each of them keeps
    the full marks of its kernels and the next student is graded."""
    course_dir, scores, full, mode = graded_class
    if mode != "sandbox":
        pytest.skip("these attacks reach the course without a sandbox: the sandbox's own")
    attacks = json.loads((course_dir / "attacks.json").read_text())
    assert not attacks["alive"] and not attacks["reached"], attacks
    printed = _outputs(course_dir, "intruder")
    assert "BEGIN HIDDEN TESTS" not in printed and "70_001" not in printed and "__global__" not in printed
    for student in SANDBOX_ONLY:
        assert scores[student] == full, (student, scores)
    assert scores["honest2"] == full and "rewritten" not in (course_dir / "submitted" / "honest2" / DAY /
                                                             "vector_add.cu").read_text()
    assert not any(p.stat().st_size > 1 << 20 for p in (course_dir / "autograded" / "intruder").rglob("*")
                   if p.is_file())


def test_autograded_keeps_what_was_graded(graded_class):
    """A notebook that rewrites its kernel after grading: autograded/ holds the graded file, and the
    feedback names its sha256."""
    import hashlib

    course_dir, scores, full, _ = graded_class
    graded = course_dir / "autograded" / "rewrite" / DAY / "vector_add.cu"
    assert graded.read_text() == SOLUTION and scores["rewrite"] == full
    assert f"sha256 {hashlib.sha256(SOLUTION.encode()).hexdigest()}" in _outputs(course_dir, "rewrite")


@pytest.mark.gpu
@pytest.mark.parametrize("day,name,source", BARRIERS)
def test_racecheck_finds_a_missing_barrier(tmp_path, day, name, source):
    """On a GPU a race can pass the check by luck: the graded kernel also runs under racecheck."""
    if device.why_not_hardware():
        pytest.skip(f"racecheck needs a CUDA GPU: {device.why_not_hardware()}")
    folder = tmp_path / "submission"
    folder.mkdir()
    (folder / source).write_text(_without_barrier(day, source))
    outcome = isolation.run_exercise(day, name, source_dir=str(folder))
    assert outcome.status != "passed", outcome
    assert "racecheck" in outcome.message or "BAR (__syncthreads)" in outcome.message, outcome
    solution = isolation.run_exercise(day, name, solutions=True)
    assert solution.status == "passed", solution
