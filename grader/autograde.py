"""The course's side of `nbgrader autograde`: kernels are graded by the course, outside the student's
notebook, and the notebook only runs for feedback.

nbgrader_config.py (written by grader.nbgrader_course) puts these preprocessors in the pipeline of
nbgrader's autograde step (after its sanitize step), which hands each the same `resources` dict:

- `GradeKernels`, first, before the notebook runs: reads the autograder cells (restored from the
  gradebook by nbgrader's sanitize step, so the student cannot change them), grades every
  `nb.grade(...)` call they hold on the submitted .cu files in locked-down children
  (grader.isolation), and records in `resources` what it found and what the notebook could touch
  (the gradebook's bytes; without a sandbox, the state of the course's files and packages);
- `RunNotebook` runs the notebook (in the sandboxed kernel of grader.sandbox where Linux allows it),
  with a time limit per cell and for the whole notebook, and survives a kernel that dies; a lesson's
  demo cell tagged SKIP_TAG (nothing graded, nothing later cells need) is not run, a note says so;
- `ApplyKernelGrades`, right after: replaces the outputs of the autograder cells with the course's
  results (an error output where a case failed, so nbgrader scores the cell zero). A notebook that
  changed the gradebook (restored), the course's files, or printed hidden tests scores zero.
- `HideHiddenTests` (generate_feedback): the feedback shows each hidden case's pass/fail, never its
  code, inputs or seed.

Monkeypatching `nb.grade`, changing the environment or the files from a cell changes nothing: the
grades were computed before the notebook ran, from a copy taken by the course.
"""
from __future__ import annotations

import ast
import base64
import binascii
import html
import json
import os
import re
import sqlite3
import sys
import tempfile
import time
import urllib.parse
from dataclasses import dataclass
from pathlib import Path

from nbformat.notebooknode import NotebookNode
from nbgrader.preprocessors import NbGraderPreprocessor as Preprocessor  # enabled by default
from traitlets import Integer

from grader import paths
from grader.assignments import HIDDEN_BEGIN, HIDDEN_END, hidden_lines, solution_lines, split_assignment
from grader.messages import say, status as status_word

CELL_TIMEOUT_S = 300          # a notebook cell (the kernels were graded already)
GPU_CELL_TIMEOUT_S = 60       # a cell on a GPU: demos take under 4 s there (days 1, 6, 12 on an H200); a kernel
                              # that fails its technique check is never launched by grading and can hang a demo
HUNG_CELL_TIMEOUT_S = 30      # a cell, where grading found a kernel that never finishes (its demos would hang too)
NOTEBOOK_BUDGET_S = 1200      # all the cells of one notebook together
SKIP_TAG = "skip-autograde"   # a lesson cell's tag: a demo not run under autograde (its time, not its points)


@dataclass
class Call:
    day: str
    name: str
    cases: list | None
    seed: int | None
    hidden: bool


@dataclass
class CellResult:
    passed: bool
    text: str
    score: float | None = None   # a passing cell's points where some are withheld (else all of them)


RESOURCES_KEY = "course"  # resources[RESOURCES_KEY]: what one preprocessor hands the next (one notebook)


# ---- reading the autograder cells ------------------------------------------------------------------

def is_autograded(cell) -> bool:
    """An autograder cell: a graded code cell (a thought question's answer is graded by hand)."""
    meta = cell.get("metadata", {}).get("nbgrader", {})
    return cell.get("cell_type") == "code" and bool(meta.get("grade")) and not meta.get("solution")


def grade_calls(source: str) -> list[Call]:
    """The `nb.grade("dayNN", "name", cases=[...], seed=N)` calls of an autograder cell, with literal
    arguments only; calls after the hidden-tests marker (or with `cases=`) are hidden."""
    hidden_from = source.find(HIDDEN_BEGIN)
    line_of = (source[:hidden_from].count("\n") + 1) if hidden_from >= 0 else None
    calls = []
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "grade"
                and getattr(node.func.value, "id", None) == "nb"):
            continue
        try:
            args = [_constant(a) for a in node.args]
            kwargs = {k.arg: _constant(k.value) for k in node.keywords}
        except (ValueError, TypeError, ArithmeticError):
            continue
        if len(args) < 2:
            continue
        hidden = "cases" in kwargs or (line_of is not None and node.lineno > line_of)
        calls.append(Call(str(args[0]), str(args[1]), kwargs.get("cases"), kwargs.get("seed"), hidden))
    return calls


def _constant(node):
    """A literal made of constants and arithmetic (`1 << 20`, `2**22 + 1`), nothing else."""
    allowed = (ast.Expression, ast.Constant, ast.BinOp, ast.UnaryOp, ast.operator, ast.unaryop, ast.List,
               ast.Tuple, ast.Dict, ast.Load)
    for sub in ast.walk(node):
        if not isinstance(sub, allowed):
            raise ValueError(f"not a literal: {ast.dump(sub)[:80]}")
    return eval(compile(ast.Expression(node), "<literal>", "eval"), {"__builtins__": {}})  # noqa: S307


# ---- what the notebook could touch -----------------------------------------------------------------

def _tree_state(roots: list[Path], skip: list[Path]) -> dict[str, tuple]:
    """(inode, size, mtime, ctime) of every file under `roots` but `skip`: the ctime cannot be set
    back by a user, so any write shows."""
    state, skip_set = {}, {str(p) for p in skip}
    stack = [str(r) for r in roots if r.exists()]
    while stack:
        top = stack.pop()
        if top in skip_set:
            continue
        try:
            entries = list(os.scandir(top))
        except OSError:
            continue
        for e in entries:
            if e.path in skip_set or e.name == ".ipynb_checkpoints":
                continue
            try:
                st = e.stat(follow_symlinks=False)
            except OSError:
                continue
            if e.is_dir(follow_symlinks=False):
                stack.append(e.path)
            else:
                state[e.path] = (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    return state


def _watched(course_dir: Path) -> list[Path]:
    """What the graders run or read: the course's Python, headers and solutions, the nbgrader course
    folder, and the virtual environment's packages."""
    roots = [paths.ROOT / "grader", paths.INCLUDE, paths.SOLUTIONS, course_dir]
    if sys.prefix != sys.base_prefix:  # a virtual environment: the packages the graders import
        roots.append(Path(sys.prefix))
    return roots


def _changes(before: dict, after: dict) -> list[str]:
    changed = [p for p in before if after.get(p) != before[p]]
    return sorted(changed + [p for p in after if p not in before])


def _restore_gradebook(path: Path, snapshot: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        saved = Path(tmp) / "gradebook.db"
        saved.write_bytes(snapshot)
        src, dst = sqlite3.connect(saved), sqlite3.connect(path)
        with dst:
            src.backup(dst)
        src.close()
        dst.close()


def _own_lines(folder: Path) -> set[str]:
    """The lines of a student's submitted files (kernels, and a Python exercise's .py), as submitted
    (read before the notebook runs)."""
    return {ln.strip() for f in [*folder.glob("*.cu*"), *folder.glob("*.py")] if f.is_file() and not f.is_symlink()
            for ln in f.read_text(errors="replace").splitlines()}


def _leaks(course_dir: Path, assignment: str, day: str, own: set[str]) -> set[str]:
    """Lines a notebook must not print: the assignment's hidden tests and the day's solution code,
    less the lines of the student's own kernels (a lesson may print the student's source, and a
    student who wrote the solution's line has not been given it)."""
    lines = set()
    source = course_dir / "source" / assignment / f"{day}.ipynb"
    if source.is_file():
        lines |= {ln for ln in hidden_lines(source) if len(ln) >= 24}
    try:
        lines |= {ln for ln in solution_lines(day) if len(ln) >= 24}
    except (ValueError, FileNotFoundError):
        pass
    mine = {" ".join(ln.split()) for ln in own}  # spaced differently is still the student's own line
    return {ln for ln in lines if " ".join(ln.split()) not in mine}


_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_BACKSLASH = re.compile(r"\\(u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|x[0-9a-fA-F]{2}|[0-7]{1,3}|.)", re.S)
_BASE64 = re.compile(r"[A-Za-z0-9+/_-]{24,}={0,2}")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "f": "\f", "v": "\v", "b": "\b", "a": "\a"}
_UNESCAPE_ROUNDS = 8
_BASE64_BUDGET = 16 << 20


def _unescape_char(m) -> str:
    code = m.group(1)
    if code[0] in "uUx" and len(code) > 1:
        return chr(int(code[1:], 16)) if int(code[1:], 16) <= 0x10FFFF else m.group()
    if code[0] in "01234567":
        return chr(int(code, 8))
    return _ESCAPES.get(code, code)


def _unescaped(text: str) -> list[str]:
    """`text` and what it becomes as HTML entities, backslash escapes (JSON, C, Python: `\\n`,
    `\\"`, `\\u0041`), %-escapes and terminal colours are undone, again and again until nothing
    changes (a doubly escaped copy), each step's text whitespace-collapsed."""
    views, text = [], _ANSI.sub("", text)
    for _ in range(_UNESCAPE_ROUNDS):
        views.append(" ".join(text.split()))
        new = urllib.parse.unquote(_BACKSLASH.sub(_unescape_char, html.unescape(text)))
        if new == text:
            break
        text = _ANSI.sub("", new)
    return views


def _views(printed: str) -> list[str]:
    """What `printed` may show once decoded: its unescaped forms (`_unescaped`), and those of each
    base64 run in it."""
    views, budget = _unescaped(printed), _BASE64_BUDGET
    for run in {m.group() for v in views for m in _BASE64.finditer(v)}:
        budget -= len(run)
        if budget < 0:
            break
        try:
            decoded = base64.b64decode(run + "=" * (-len(run) % 4), altchars=b"-_" if "-" in run or "_" in run
                                       else None).decode("utf-8", errors="ignore")
        except (ValueError, binascii.Error):
            continue
        views += _unescaped(decoded)
    return views


def _leaked(leaks: set[str], printed: str) -> list[str]:
    """The lines of `leaks` that `printed` shows, however escaped (`_views`: HTML, JSON, doubly,
    unicode escapes, base64) and with any spacing."""
    views = _views(printed)
    return [ln for ln in leaks if any(" ".join(ln.split()) in v for v in views)]


def _output_text(output) -> str:
    text = output.get("text", "")
    parts = [text if isinstance(text, str) else "".join(text)]
    parts += [str(v) for v in output.get("data", {}).values()]
    return "\n".join(parts + [output.get("evalue", "")] + list(output.get("traceback", [])))


def _printed(nb) -> str:
    return "\n".join(_output_text(o) for cell in nb.cells for o in cell.get("outputs", []))


# ---- the preprocessors ----------------------------------------------------------------------------

ROOT_ENV = "COURSE_NBGRADER_ROOT"  # set by the course's nbgrader_config.py


def _ids(resources) -> tuple[str, str, str, Path]:
    """(assignment, day, student, course folder): the assignment is `dayNN` or `dayNN-zh`."""
    info = resources["nbgrader"]
    day, _ = split_assignment(info["assignment"])
    return info["assignment"], day, info["student"], Path(os.environ.get(ROOT_ENV, ".")).resolve()


def gradebook_path(config, course_dir: Path) -> Path:
    """The gradebook this autograde writes: nbgrader's CourseDirectory.db_url where it names an SQLite
    file (grade-class gives each (student, day) its own), else <course>/gradebook.db."""
    url = str(config.CourseDirectory.get("db_url") or "")
    return Path(url.removeprefix("sqlite:///")) if url.startswith("sqlite:///") else course_dir / "gradebook.db"


def _skipped(course_dir: Path, student: str, assignment: str, gradebook: Path) -> list[Path]:
    """What the notebook (or nbgrader) may change while it runs: its own folder, the gradebook (checked
    by its bytes), nbgrader's log, the kernel spec, and the course's caches (.course/)."""
    return [course_dir / "autograded" / student / assignment, gradebook, course_dir / ".course-kernels",
            course_dir / ".nbgrader.log", paths.STATE, *(Path(f"{gradebook}{s}") for s in ("-journal", "-wal", "-shm"))]


_COMPILED = []


def _precompile() -> None:
    """Byte-compile the course's Python once, so an honest notebook never writes a .pyc under the
    course (any write there is then a change to flag: a planted .pyc would run in the graders)."""
    if not _COMPILED:
        import compileall

        compileall.compile_dir(str(paths.ROOT / "grader"), quiet=2)
        _COMPILED.append(True)


def prepare() -> None:
    """What the first autograde in a process does once (a worker calls it before its first task): the
    course's Python byte-compiled, whether a sandbox can be made here."""
    from grader import sandbox

    _precompile()
    sandbox.unavailable()


class GradeKernels(Preprocessor):
    """Autograde step, before the notebook runs: grade the submitted kernels (see the module)."""

    def preprocess(self, nb, resources):
        from grader.language import LANG_ENV

        assignment = resources["nbgrader"]["assignment"]
        saved = os.environ.get(LANG_ENV)
        os.environ[LANG_ENV] = split_assignment(assignment)[1]  # results in the lesson's language
        try:
            return self._grade(nb, resources)
        finally:
            if saved is None:
                os.environ.pop(LANG_ENV, None)
            else:
                os.environ[LANG_ENV] = saved

    def _grade(self, nb, resources):
        from grader import exercises, sandbox

        _precompile()
        assignment, day, student, course_dir = _ids(resources)
        folder = course_dir / "submitted" / student / assignment  # as handed in (autograded/ holds a copy)
        cells, graded, changed, hung = {}, {}, set(), False
        graded_cells = [c for c in nb.cells if is_autograded(c)]
        cell_calls = [[c for c in grade_calls(cell.source) if c.day == day] for cell in graded_cells]
        results = iter(_graded_calls(day, [c for calls in cell_calls for c in calls], folder))
        for cell, calls in zip(graded_cells, cell_calls):
            grade_id = cell.metadata.nbgrader["grade_id"]
            lines, unchecked = [], {}
            ok = True
            if not calls:
                ok, lines = False, [say("autograde.nothing")]
            visible_n = sum(not c.hidden for c in calls)
            outcomes = [next(results) for _ in calls]
            for k, (call, (outcome, seconds)) in enumerate(zip(calls, outcomes)):
                if isinstance(outcome, str):
                    ok = False
                    lines.append(say("autograde.cannot", name=call.name, why=outcome))
                    continue
                ok &= outcome.status == "passed"
                lines.append(_describe(outcome, call, k - visible_n + 1, seconds))
                if outcome.unchecked and not call.hidden:
                    unchecked[call.name] = (outcome.unchecked, len(exercises.get(day, call.name).cases))
                for name, digest in outcome.files.items():
                    changed |= {name} if graded.setdefault(name, digest) != digest else set()
            lines += [say("autograde.graded_file", name=n, digest=graded[n]) for n in _files_of(day, calls, graded)]
            score, note = _withheld(float(cell.metadata.nbgrader.get("points", 0)), unchecked) if ok else (None, "")
            cells[grade_id] = CellResult(ok, "\n".join(lines + ([note] if note else [])), score)
            hung |= any(not isinstance(o, str) and o.status == "timed out" for o, _ in outcomes)
        if changed:  # something rewrote the submission between two exercises' copies
            why = say("autograde.changed_while_graded", files=say("list_sep").join(sorted(changed)))
            cells = {gid: CellResult(False, say("autograde.scored_zero", why=why)) for gid in cells}
        gradebook = gradebook_path(self.config, course_dir)
        sandboxed = sandbox.unavailable() is None  # RunNotebook's choice (cached): nothing outside to watch
        resources.setdefault(RESOURCES_KEY, {})["kernel_grades"] = {
            "cells": cells,
            "hung": hung,
            "own": _own_lines(folder),
            "gradebook_path": gradebook,
            "gradebook": gradebook.read_bytes() if gradebook.is_file() else None,
            "graded": _graded_bytes(folder, graded),
            "files": None if sandboxed else _tree_state(_watched(course_dir),
                                                        skip=_skipped(course_dir, student, assignment, gradebook)),
        }
        return nb, resources


def _graded_calls(day: str, calls: list[Call], folder: Path) -> list[tuple]:
    """(Outcome, seconds) of each call, or (why it cannot be graded, 0): in grade-class's workers
    (`isolation.remembering`) the notebook's calls together (`isolation.run_calls`: one child; seconds
    are a call's own cases'), each on its own otherwise, as `nbgrader autograde` always did."""
    from grader import exercises, isolation

    found = [None] * len(calls)
    known = []
    for k, call in enumerate(calls):
        try:
            exercises.get(day, call.name)
            known.append(k)
        except (KeyError, ValueError) as e:
            found[k] = (str(e), 0.0)
    if isolation.remembered() and known:
        try:
            outcomes = isolation.run_calls(day, [(calls[k].name, calls[k].cases, calls[k].seed) for k in known],
                                           source_dir=str(folder))
            for k, outcome in zip(known, outcomes):
                found[k] = (outcome, sum(r.seconds for r in outcome.cases))
            return found
        except (KeyError, ValueError):
            pass  # graded one call at a time below, each with its own reason
    for k in known:
        start = time.perf_counter()
        try:
            outcome = isolation.run_exercise(day, calls[k].name, calls[k].cases, source_dir=str(folder),
                                             seed=calls[k].seed)
        except (KeyError, ValueError) as e:
            found[k] = (str(e), 0.0)
            continue
        found[k] = (outcome, time.perf_counter() - start)
    return found


#: How a grade cell's output says the emulator withheld some of its points (`_withheld`), in either
#: language: the points withheld are the group that matched.
WITHHELD = re.compile(r"([\d.]+) of [\d.]+ points withheld until a GPU grades them|暂扣 ([\d.]+) 分（共 [\d.]+ 分）")


def _withheld(points: float, unchecked: dict[str, tuple[list[str], int]]) -> tuple[float | None, str]:
    """A passing cell's score when the emulator left cases past a size boundary unchecked
    (`isolation.unchecked`): each such case's share of its exercise's cases is withheld until a GPU
    grades it; (None, '') when nothing is."""
    if not unchecked:
        return None, ""
    share = max(len(cases) / total for cases, total in unchecked.values())
    score = round(points * (1 - share), 2)
    cases = say("sep").join(f"{name}: {', '.join(ids)}" for name, (ids, _) in unchecked.items())
    return score, say("autograde.withheld", withheld=points - score, points=points, cases=cases)


def _files_of(day: str, calls: list[Call], graded: dict[str, str]) -> list[str]:
    """The graded files a cell's grades rest on: its exercises' own files and any header (.cuh)."""
    from grader import exercises

    own = set()
    for call in calls:
        try:
            own.add(exercises.get(day, call.name).source)
        except KeyError:
            pass
    return sorted(n for n in graded if n in own or n.endswith(".cuh"))


def _graded_bytes(folder: Path, graded: dict[str, str]) -> dict[str, bytes]:
    """The bytes of each graded file whose submitted copy still has the hash that was graded."""
    import hashlib

    kept = {}
    for name, digest in graded.items():
        try:
            data = (folder / name).read_bytes()
        except OSError:
            continue
        if hashlib.sha256(data).hexdigest() == digest:
            kept[name] = data
    return kept


def _keep_graded(course_dir: Path, student: str, assignment: str, graded: dict[str, bytes]) -> list[str]:
    """autograded/ keeps what was graded: a graded file the notebook rewrote is written back; the names."""
    folder = course_dir / "autograded" / student / assignment
    restored = []
    for name, data in graded.items():
        path = folder / name
        try:
            same = not path.is_symlink() and path.read_bytes() == data
        except OSError:
            same = False
        if not same:
            path.unlink(missing_ok=True)
            path.write_bytes(data)
            restored.append(name)
    return restored


def _describe(outcome, call: Call, hidden_number: int, seconds: float) -> str:
    """What the student sees: every case of a visible call; pass/fail only for a hidden one."""
    if not call.hidden:
        return f"{outcome}  {say('autograde.graded_in', seconds=seconds)}"
    head = say("autograde.hidden", number=hidden_number, name=call.name, status=status_word(outcome.status),
               passed=outcome.passed, total=outcome.total)
    if not outcome.cases or all(r.status == "not run" for r in outcome.cases):
        first = (outcome.message or "").splitlines()[0] if outcome.message else ""
        return head + (f"\n  {first}" if first and "compile" in first.lower() else "")
    rows = [say("autograde.hidden_case", number=i, status=status_word(r.status))
            + (say("autograde.kind", kind=_kind(r.message)) if r.status == "failed" else "")
            for i, r in enumerate(outcome.cases, 1)]
    return "\n".join([head, *rows])


def _kind(message: str) -> str:
    """The kind of a failure, without the inputs, indices or seed a message names."""
    m = message.lower()
    if "technique" in m or "技术要点" in m:
        return re.split(r"[:：]", message, 1)[-1].strip().split(";")[0].split("；")[0]
    if "nan" in m or "inf" in m:
        return say("autograde.kind.nan")
    if "untouched" in m or "left alone" in m or "保持不动" in m or "outside" in m and "wrote" in m:
        return say("autograde.kind.wrote")
    return say("autograde.kind.wrong")


class RunNotebook(Preprocessor):
    """nbgrader's Execute, for feedback only: sandboxed kernel, time limits, survives a dead kernel."""

    cell_timeout = Integer(CELL_TIMEOUT_S, help="seconds per cell").tag(config=True)
    gpu_cell_timeout = Integer(GPU_CELL_TIMEOUT_S, help="seconds per cell on a GPU").tag(config=True)
    hung_cell_timeout = Integer(HUNG_CELL_TIMEOUT_S, help="seconds per cell where grading found a kernel that "
                                                          "never finishes").tag(config=True)
    budget = Integer(NOTEBOOK_BUDGET_S, help="seconds for all the cells of a notebook").tag(config=True)

    def preprocess(self, nb, resources):
        from nbgrader.preprocessors import Execute

        from grader import sandbox

        from nbclient.exceptions import CellTimeoutError

        from grader import device

        start = time.monotonic()
        emulated = device.emulated()
        hung = resources.get(RESOURCES_KEY, {}).get("kernel_grades", {}).get("hung", False)
        per_cell = min([self.cell_timeout] + [self.hung_cell_timeout] * hung
                       + [self.gpu_cell_timeout] * (not emulated))

        def timeout(cell) -> int:
            left = self.budget - (time.monotonic() - start)
            return max(1, int(min(per_cell, left)))

        course_dir = _ids(resources)[3]
        # A cell past its time ends the run: a hung kernel ignores the interrupt, and every later cell would
        # wait its full time behind it, the GPU spinning for the class's other tasks.
        kwargs = {"timeout_func": timeout, "timeout": per_cell, "parent": self.parent, "interrupt_on_timeout": False,
                  "shutdown_kernel": "immediate",  # the outputs are in: killed, not asked to exit (0.3-0.6 s)
                  "skip_cells_with_tag": SKIP_TAG}
        why_not = sandbox.unavailable()
        if why_not is None:
            spec = sandbox.kernelspec(course_dir, emulated=emulated, cpu=self.budget + 60)
            os.environ["JUPYTER_PATH"] = os.pathsep.join(filter(None, [str(spec), os.environ.get("JUPYTER_PATH")]))
            kwargs["kernel_name"] = sandbox.KERNEL_NAME
            kwargs["kernel_manager_class"] = sandbox.kernel_manager_class()
        else:
            self.log.error("NO SANDBOX for the notebook's kernel (%s): it can read other students' files and "
                           "the hidden tests; relying on checks after it runs; grade one student at a time",
                           why_not)
        resources.setdefault(RESOURCES_KEY, {})["sandbox"] = why_not or "yes"
        execute = Execute(**kwargs)
        try:
            nb, resources = execute.preprocess(nb, resources)
        except CellTimeoutError:
            started = [k + 1 for k, c in enumerate(nb.cells) if c.get("metadata", {}).get("execution")]
            resources[RESOURCES_KEY]["notebook_error"] = say(
                "autograde.cell_timeout", split_assignment(resources["nbgrader"]["assignment"])[1],
                cell=started[-1] if started else "?", seconds=per_cell)
        except Exception as e:  # noqa: BLE001 - a dead or unresponsive kernel must not lose the grades
            resources[RESOURCES_KEY]["notebook_error"] = f"{e.__class__.__name__}: {str(e)[:300]}"
        if time.monotonic() - start >= self.budget:
            resources[RESOURCES_KEY]["notebook_error"] = f"the notebook ran past its {self.budget} s budget"
        note = say("autograde.skipped", split_assignment(resources["nbgrader"]["assignment"])[1])
        for cell in nb.cells:
            if cell.cell_type == "code" and SKIP_TAG in cell.metadata.get("tags", []) and not is_autograded(cell):
                cell.outputs = [NotebookNode(output_type="stream", name="stdout", text=note + "\n")]
        return nb, resources


class ApplyKernelGrades(Preprocessor):
    """Right after the notebook ran: the course's results become the autograder cells' outputs."""

    def preprocess(self, nb, resources):
        assignment, day, student, course_dir = _ids(resources)
        state = resources.get(RESOURCES_KEY, {})
        found = state.pop("kernel_grades", None)
        sandboxed = state.get("sandbox") == "yes"
        lang = split_assignment(assignment)[1]
        cheat = self._cheats(found, nb, assignment, day, student, course_dir, sandboxed, lang)
        note = state.get("notebook_error")
        restored = _keep_graded(course_dir, student, assignment, (found or {}).get("graded", {}))
        if restored:
            note = "; ".join(filter(None, [note, f"it rewrote {', '.join(restored)} after grading: autograded/ "
                                                 f"holds the graded version again"]))
        for cell in nb.cells:
            if not is_autograded(cell):
                continue
            grade_id = cell.metadata.nbgrader["grade_id"]
            result = (found or {}).get("cells", {}).get(grade_id)
            if cheat:
                result = CellResult(False, say("autograde.scored_zero", lang, why=cheat))
            elif result is None:
                result = CellResult(False, say("autograde.not_graded", lang))
            text = result.text + ("\n" + say("autograde.notebook_note", lang, note=note) if note else "")
            if result.passed:
                cell.outputs = [NotebookNode(output_type="stream", name="stdout", text=text + "\n")]
                if result.score is not None:  # nbgrader's partial credit: a number as the cell's result
                    cell.outputs.append(NotebookNode(output_type="execute_result", execution_count=None,
                                                     metadata={}, data={"text/plain": f"{result.score:g}"}))
            else:
                cell.outputs = [NotebookNode(output_type="error", ename="KernelGrade",
                                             evalue=text.splitlines()[0] if text else "failed",
                                             traceback=text.splitlines())]
        return nb, resources

    def _cheats(self, found, nb, assignment, day, student, course_dir, sandboxed: bool, lang: str = "en") -> str:
        """Why this notebook scores zero ('' when nothing is wrong). In the sandbox the notebook could
        not write the course's files, so only the gradebook and what it printed are checked (other
        graders may be writing beside it)."""
        if found is None:
            return ""
        problems = []
        gradebook = found["gradebook_path"]
        if found["gradebook"] is not None and gradebook.is_file() and gradebook.read_bytes() != found["gradebook"]:
            _restore_gradebook(gradebook, found["gradebook"])
            problems.append(say("autograde.cheat.gradebook", lang))
            self.log.error("%s/%s: the notebook changed gradebook.db; it was restored", student, assignment)
        if not sandboxed and found["files"] is None:  # planned for the sandbox, ran without: nothing to compare
            problems.append(say("autograde.cheat.no_sandbox", lang))
        skip = _skipped(course_dir, student, assignment, gradebook)
        changed = [] if sandboxed or found["files"] is None else \
            _changes(found["files"], _tree_state(_watched(course_dir), skip=skip))
        if changed:
            problems.append(say("autograde.cheat.files", lang, files=", ".join(changed[:5]))
                            + (say("autograde.cheat.more", lang, n=len(changed) - 5) if len(changed) > 5 else ""))
            self.log.error("%s/%s: the notebook changed course files, check them: %s", student, assignment, changed)
        printed = _printed(nb)
        leaked = _leaked(_leaks(course_dir, assignment, day, found["own"]), printed)
        if leaked:
            problems.append(say("autograde.cheat.printed", lang))
        return say("sep", lang).join(problems)


class HideHiddenTests(Preprocessor):
    """generate_feedback: autograder cells show their visible part and the course's pass/fail per
    hidden case, never the hidden code, inputs or seed; outputs that repeat hidden code are dropped."""

    def preprocess(self, nb, resources):
        assignment, day, student, course_dir = _ids(resources)
        leaks = _leaks(course_dir, assignment, day, _own_lines(course_dir / "submitted" / student / assignment))
        for cell in nb.cells:
            if is_autograded(cell) and HIDDEN_BEGIN in cell.source:
                start = cell.source.index(HIDDEN_BEGIN)
                end = cell.source.find(HIDDEN_END)
                tail = cell.source[end + len(HIDDEN_END):] if end >= 0 else ""
                cell.source = cell.source[:start] + say("autograde.hidden_source", split_assignment(assignment)[1]) + tail
            kept = []
            for o in cell.get("outputs", []):
                text = _output_text(o)
                if _leaked(leaks, text):
                    kept.append(NotebookNode(output_type="stream", name="stdout",
                                             text="[output removed: it repeated hidden tests or solution code]\n"))
                else:
                    kept.append(o)
            if "outputs" in cell:
                cell.outputs = kept
        return nb, resources
