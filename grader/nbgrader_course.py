"""The instructor's side of nbgrader: build a course directory from instructor/notebooks/ and the stubs,
check a release for leaks, autograde submissions and read the scores from the gradebook.

    course/
      nbgrader_config.py        written here: root, course id, cell time limit, .cu files kept
      source/dayNN/             instructor/notebooks/dayNN.ipynb (hidden tests) + the day's stub .cu files
      release/dayNN/            what students get: `nbgrader generate_assignment` output
      submitted/<student>/dayNN/, autograded/..., feedback/..., gradebook.db

A submission is the released notebook plus the student's .cu files: the graded work is the kernels.
Under autograde the notebook runs in autograded/<student>/dayNN/, beside those files, and
`grader.notebook.grade` checks them (with the hidden tests nbgrader restores from the gradebook).
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat

from grader import exercises, paths, stubs
from grader.assignments import (HIDDEN_BEGIN, HIDDEN_END, LANGS, assignment_name, cells, day_of, hidden_lines,
                                solution_lines, split_assignment)
from grader.autograde import CELL_TIMEOUT_S, NOTEBOOK_BUDGET_S, is_autograded

COURSE_ID = "cuda-course"
SOLUTION_BEGIN, SOLUTION_END = "### BEGIN SOLUTION", "### END SOLUTION"
_STUDENT_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


class NbgraderError(RuntimeError):
    """An nbgrader command failed; the message ends with its output."""


# ---- inputs -------------------------------------------------------------------------------------



def _assignment(name) -> str:
    return assignment_name(*split_assignment(name))


def _lesson(day: str, lang: str) -> Path:
    return paths.INSTRUCTOR_NOTEBOOKS / ("zh" if lang == "zh" else "") / f"{day}.ipynb"


def default_days(lang: str = "en") -> list[str]:
    """The days released when none are named: every day with exercises whose lesson exists in `lang`
    (en, zh, or both)."""
    langs = LANGS if lang == "both" else (lang,)
    return [d for d in exercises.days_with_exercises() if all(_lesson(d, lg).is_file() for lg in langs)]


def _notebook(day: str, lang: str = "en") -> Path:
    path = _lesson(day, lang)
    if not path.is_file():
        raise FileNotFoundError(f"no lesson notebook {path.relative_to(paths.ROOT)} for {day}")
    return path


def exercise_files(day) -> list[str]:
    """The file names a day's submission holds, in teaching order (a file that holds several exercises,
    such as day 12's prefill and prefill_causal, once), after the headers of the student's own that
    they include (day 12's prefill_steps.cuh)."""
    headers = [h.name for h in sorted((paths.SOLUTIONS / day_of(day)).glob("*.cuh"))]
    return headers + list(dict.fromkeys(ex.source for ex in exercises.day_exercises(day_of(day))))


def _stub(day: str, filename: str) -> Path:
    """days/<day>/<filename>, after checking it is exactly the stub generated from the solution (an
    edited or stale file in days/ could carry someone's solution into a release)."""
    stub, solution = paths.DAYS / day / filename, paths.SOLUTIONS / day / filename
    if not solution.is_file():
        raise FileNotFoundError(f"no solution {solution.relative_to(paths.ROOT)} to check the stub against")
    if not stub.is_file() or stub.read_text() != stubs.render(solution):
        raise ValueError(f"{stub.relative_to(paths.ROOT)} is missing, edited or stale: only the generated "
                         f"stub may be released. Regenerate it (`python -m grader stubs {day}`, or "
                         f"grader.stubs.generate('{day}', force=True)) and build again.")
    return stub


# ---- running nbgrader ---------------------------------------------------------------------------

def nbgrader_env() -> dict[str, str]:
    """nbgrader's environment: the course importable from any folder (the notebook's kernel runs in
    the submission's folder), this Python's scripts on PATH (nbgrader runs `alembic`, the notebook
    kernel must be this environment's), and no kernel-choice overrides left over from the caller."""
    env = {k: v for k, v in os.environ.items() if k not in (paths.KERNELS_ENV, paths.SOURCE_DIR_ENV)}
    env["PYTHONPATH"] = paths.python_path()
    env["PATH"] = os.pathsep.join(filter(None, [str(Path(sys.executable).parent), env.get("PATH")]))
    return env


def run_nbgrader(course_dir: Path, *args: str, timeout: float | None = None) -> str:
    """`python -m nbgrader <args>` in the course directory; its output, or NbgraderError with it (also
    when it runs past `timeout` seconds: it is then stopped)."""
    try:
        done = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=course_dir, env=nbgrader_env(),
                              capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise NbgraderError(f"`nbgrader {' '.join(args)}` ran past {timeout:.0f} s in {course_dir}; "
                            f"it was stopped") from None
    output = (done.stdout + done.stderr).strip()
    if done.returncode != 0:
        tail = "\n".join(output.splitlines()[-60:])
        raise NbgraderError(f"`nbgrader {' '.join(args)}` failed (exit status {done.returncode}) in "
                            f"{course_dir}:\n{tail}")
    return output


def _config(course_dir: Path) -> str:
    # Every day in source/, not only the ones built now: the file is rewritten on each build.
    keep = {d.name: sorted(p.name for p in d.iterdir() if p.suffix in (".cu", ".cuh", ".py"))
            for d in sorted((course_dir / "source").glob("day[0-9][0-9]*"))}
    return f"""# The CUDA course's nbgrader settings, written by grader.nbgrader_course.build_course.
import os
import sys

if {str(paths.ROOT)!r} not in sys.path:  # the course's grader package (read again by each in-process grade)
    sys.path.insert(0, {str(paths.ROOT)!r})
os.environ["COURSE_NBGRADER_ROOT"] = {str(course_dir)!r}

from nbconvert.preprocessors import ClearMetadataPreprocessor, CSSHTMLHeaderPreprocessor
from nbgrader.preprocessors import (AssignLatePenalties, CheckCellMetadata, ClearOutput, DeduplicateIds,
                                    GetGrades, IgnorePattern, LimitOutput, OverwriteCells,
                                    OverwriteKernelspec, SaveAutoGrades)

from grader.autograde import ApplyKernelGrades, GradeKernels, HideHiddenTests, RunNotebook

c = get_config()  # noqa: F821
c.CourseDirectory.root = {str(course_dir)!r}
c.CourseDirectory.course_id = {COURSE_ID!r}
# The .cu (and .py) files are the students' work: autograde must not put the released stubs back.
c.Autograde.exclude_overwriting = {keep!r}
# The kernels are graded by the course before the notebook runs, on a copy of the submission, in
# locked-down children (GradeKernels); the notebook then runs for feedback only, sandboxed where Linux
# allows it, with time limits (RunNotebook); the course's results become the autograder cells' outputs
# (ApplyKernelGrades). See grader/autograde.py and README.md (for instructors).
c.Autograde.sanitize_preprocessors = [ClearOutput, DeduplicateIds, OverwriteKernelspec, OverwriteCells,
                                      CheckCellMetadata]
c.Autograde.autograde_preprocessors = [GradeKernels, RunNotebook, ApplyKernelGrades, IgnorePattern,
                                       ClearMetadataPreprocessor, LimitOutput, SaveAutoGrades,
                                       AssignLatePenalties, CheckCellMetadata]
c.RunNotebook.cell_timeout = {CELL_TIMEOUT_S}
c.RunNotebook.budget = {NOTEBOOK_BUDGET_S}
# Feedback: each hidden case's pass/fail, never its code, inputs or seed.
c.GenerateFeedback.preprocessors = [GetGrades, HideHiddenTests, CSSHTMLHeaderPreprocessor]
"""


def gradebook(course_dir: Path):
    """nbgrader's Gradebook of the course (a context manager)."""
    from nbgrader.api import Gradebook

    return Gradebook(f"sqlite:///{course_dir / 'gradebook.db'}", course_id=COURSE_ID)


# ---- instructor commands ------------------------------------------------------------------------

def build_course(course_dir, days=None, force: bool = False, lang: str = "en") -> Path:
    """Create (or update) an nbgrader course directory and release the given days (default:
    `default_days(lang)`) into release/<assignment>/: `dayNN` for the English lesson, `dayNN-zh` for the
    Chinese one (lang 'zh', or 'both' for the two). An existing source/<assignment>/ is replaced only
    with `force`."""
    course_dir = Path(course_dir).resolve()
    if lang not in (*LANGS, "both"):
        raise ValueError(f"lang {lang!r}: expected en, zh or both")
    days = default_days(lang) if days is None else days
    days = [day_of(d) for d in ((days,) if isinstance(days, (str, int)) else days)]
    if not days:
        raise ValueError("no days given to build")
    langs = LANGS if lang == "both" else (lang,)
    plan = {assignment_name(d, lg): (d, _notebook(d, lg), [_stub(d, f) for f in exercise_files(d)])
            for d in days for lg in langs}
    for name, (_, notebook, _) in plan.items():
        nbformat.validate(nbformat.read(notebook, as_version=4))
        source = course_dir / "source" / name
        if source.exists() and not force:
            raise FileExistsError(f"{source} already exists: build_course(..., force=True) replaces it")
    for name, (d, notebook, stub_files) in plan.items():
        source = course_dir / "source" / name
        shutil.rmtree(source, ignore_errors=True)
        source.mkdir(parents=True)
        shutil.copyfile(notebook, source / f"{d}.ipynb")
        for stub in stub_files:
            shutil.copyfile(stub, source / stub.name)
    (course_dir / "nbgrader_config.py").write_text(_config(course_dir))
    for name in plan:
        run_nbgrader(course_dir, "generate_assignment", name, "--force")
    return course_dir




def _released_lines(path: Path) -> list[str]:
    if path.suffix == ".ipynb":
        return [line.strip() for cell in cells(path) for line in cell.source.splitlines()]
    try:
        return [line.strip() for line in path.read_text().splitlines()]
    except UnicodeDecodeError:
        return []


def _grade_cells(cells) -> list:
    """The autograded cells (a thought question's answer cell is graded by hand)."""
    return [c for c in cells if is_autograded(c)]


def _answer_cells(cells) -> list:
    """The manually graded answer cells (thought questions), whose model answers the release strips."""
    return [c for c in cells if c.get("metadata", {}).get("nbgrader", {}).get("solution")]


def _model_answer_lines(notebook: Path) -> set[str]:
    """The lines of the model answers (between BEGIN and END SOLUTION) of a source notebook, stripped;
    only lines long enough to give something away."""
    found = set()
    for cell in _answer_cells(cells(notebook)):
        inside = False
        for line in cell.source.splitlines():
            if SOLUTION_BEGIN in line:
                inside = True
            elif SOLUTION_END in line:
                inside = False
            elif inside and len(line.strip()) >= 20:
                found.add(line.strip())
    return found


def _check_metadata(day: str, notebook: Path, source_notebook: Path) -> list[str]:
    from nbgrader.nbgraderformat import MetadataValidator, ValidationError

    name = notebook.name
    nb = nbformat.read(notebook, as_version=4)
    try:
        MetadataValidator().validate_nb(nb)
    except ValidationError as e:
        return [f"{name}: invalid nbgrader metadata: {e}"]
    problems, ids = [], []
    for cell in _grade_cells(nb.cells):
        meta = cell.metadata.nbgrader
        ids.append(meta.get("grade_id"))
        if not isinstance(meta.get("points"), (int, float)) or meta["points"] <= 0:
            problems.append(f"{name}: grade cell {meta.get('grade_id')!r} has points {meta.get('points')!r}")
        if cell.metadata.get("editable", True) or not meta.get("locked"):
            problems.append(f"{name}: grade cell {meta.get('grade_id')!r} is not locked")
    if len(ids) != len(set(ids)):
        problems.append(f"{name}: duplicate grade ids {sorted(ids)}")
    if source_notebook.is_file():
        expected = [c.metadata.nbgrader["grade_id"] for c in _grade_cells(cells(source_notebook))]
        if ids != expected:
            problems.append(f"{name}: grade cells {ids}, the source has {expected}")
    sources = "\n".join(c.source for c in _grade_cells(nb.cells))
    for ex in exercises.day_exercises(day):
        if f'nb.grade("{day}", "{ex.name}"' not in sources:
            problems.append(f"{name}: no grade cell calls nb.grade(\"{day}\", \"{ex.name}\")")
    return problems


def check_release(course_dir, assignment) -> list[str]:
    """What is wrong with release/<assignment>/ (an empty list: nothing found): hidden tests, model
    answers or solution code left in any released file, .cu (.py) files that are not the stubs, autograder
    cells that lost their nbgrader metadata."""
    course_dir, assignment = Path(course_dir).resolve(), _assignment(assignment)
    day, _ = split_assignment(assignment)
    release, source = course_dir / "release" / assignment, course_dir / "source" / assignment
    if not release.is_dir():
        return [f"no release folder {release}: run build_course first"]
    files = sorted(p for p in release.rglob("*") if p.is_file())
    rel = {p: p.relative_to(release).as_posix() for p in files}
    problems = []
    notebook = release / f"{day}.ipynb"
    if not notebook.is_file():
        problems.append(f"the release has no {notebook.name}")
    source_nb = source / f"{day}.ipynb"
    hidden = hidden_lines(source_nb) if source_nb.is_file() else set()
    answers = _model_answer_lines(source_nb) if source_nb.is_file() else set()
    solution = solution_lines(day)
    for path in files:
        if path.suffix == ".ipynb":
            text = path.read_text()
            if HIDDEN_BEGIN in text or HIDDEN_END in text:
                problems.append(f"{rel[path]}: hidden-test markers left in the released notebook")
            if SOLUTION_BEGIN in text or SOLUTION_END in text:
                problems.append(f"{rel[path]}: model-answer markers left in the released notebook")
            problems += _check_metadata(day, path, source / path.name)
        lines = set(_released_lines(path))
        problems += [f"{rel[path]}: hidden test line released: {line}" for line in sorted(hidden & lines)]
        problems += [f"{rel[path]}: model answer released: {line}" for line in sorted(answers & lines)]
        problems += [f"{rel[path]}: solution line released: {line}" for line in sorted(solution & lines)]
    released_cu = {p.name: p for p in files if p.suffix in (".cu", ".cuh", ".py")}
    for filename in exercise_files(day):
        stub = paths.DAYS / day / filename
        if filename not in released_cu:
            problems.append(f"{filename} is missing from the release")
        elif not stub.is_file() or released_cu[filename].read_bytes() != stub.read_bytes():
            problems.append(f"{filename} in the release differs from {stub.relative_to(paths.ROOT)}")
    problems += [f"{name}: released, but not an exercise file of {day}"
                 for name in sorted(set(released_cu) - set(exercise_files(day)))]
    return problems


def _submit(course_dir: Path, assignment: str, student: str, files: dict) -> None:
    """submitted/<student>/<assignment>/: the student's notebook (`<day>.ipynb` in `files`, else the
    released one), the student's .cu files, and the released stub for any exercise file not handed in
    (so a missing file scores nothing, whatever days/ holds)."""
    day, _ = split_assignment(assignment)
    release = course_dir / "release" / assignment
    notebook = f"{day}.ipynb"
    known = exercise_files(day)
    unknown = sorted(set(files) - set(known) - {notebook})
    if unknown:
        raise ValueError(f"{student}: {', '.join(unknown)} is not an exercise file of {day} "
                         f"(expected some of {', '.join(known)})")
    for name, path in files.items():
        if not Path(path).is_file():
            raise FileNotFoundError(f"{student}: no file {path} for {name}")
    dest = course_dir / "submitted" / student / assignment
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    shutil.copyfile(Path(files[notebook]) if notebook in files else release / notebook, dest / notebook)
    for name in known:
        shutil.copyfile(Path(files[name]) if name in files else release / name, dest / name)


def autograde(course_dir, assignment, submissions: dict) -> dict[str, float]:
    """Grade `{student_id: {"vector_add.cu": path, ..., "day01.ipynb": path (optional)}}` for one
    assignment (`dayNN` or `dayNN-zh`; students in the order given); returns each student's score on
    the autograded cells (out of `max_score(course_dir, assignment)`). Each student's autograded
    notebook stays in autograded/<student>/<assignment>/."""
    course_dir, assignment = Path(course_dir).resolve(), _assignment(assignment)
    day, _ = split_assignment(assignment)
    release = course_dir / "release" / assignment / f"{day}.ipynb"
    if not release.is_file():
        raise FileNotFoundError(f"no released notebook {release}: run build_course for {assignment} first")
    if not submissions:
        raise ValueError("no submissions given")
    bad = [s for s in submissions if not isinstance(s, str) or not _STUDENT_ID.match(s)]
    if bad:
        raise ValueError(f"student ids must be letters, digits, '_', '-' or '.': {bad}")
    for student, files in submissions.items():
        _submit(course_dir, assignment, student, files)
    with gradebook(course_dir) as gb:
        for student in submissions:
            gb.update_or_create_student(student)
    for student in submissions:
        run_nbgrader(course_dir, "autograde", assignment, f"--student={student}", "--force")
    with gradebook(course_dir) as gb:
        return {s: float(gb.find_submission(assignment, s).code_score) for s in submissions}


def max_score(course_dir, assignment) -> float:
    """The points an assignment's autograder cells are worth (the thought questions, graded by hand,
    apart)."""
    course_dir, assignment = Path(course_dir).resolve(), _assignment(assignment)
    with gradebook(course_dir) as gb:
        return float(gb.find_assignment(assignment).max_code_score)


def withheld(course_dir, assignment, student: str) -> float:
    """The points of a student's autograded assignment that wait for a GPU: the grade cells that say
    they are not graded without one, and the share the emulator withheld for sizes it did not run.
    Grading again on a GPU (autograde --force) gives them."""
    from grader.autograde import WITHHELD
    from grader.exercises.day14 import not_graded_here

    course_dir, assignment = Path(course_dir).resolve(), _assignment(assignment)
    path = course_dir / "autograded" / student / assignment / f"{split_assignment(assignment)[0]}.ipynb"
    points = 0.0
    for cell in nbformat.read(path, as_version=4).cells:
        outs = cell.get("outputs", [])
        if any(not_graded_here(line) for out in outs for line in out.get("traceback", [])):
            points += float(cell.get("metadata", {}).get("nbgrader", {}).get("points", 0))
        points += sum(float(m[1] or m[2]) for out in outs for m in WITHHELD.finditer(out.get("text", "")))
    return points


def feedback(course_dir, assignment) -> list[Path]:
    """`nbgrader generate_feedback` for every autograded submission of an assignment; the HTML files."""
    course_dir, assignment = Path(course_dir).resolve(), _assignment(assignment)
    if not any((course_dir / "autograded").glob(f"*/{assignment}")):
        raise FileNotFoundError(f"nothing autograded for {assignment} in {course_dir}: run autograde first")
    run_nbgrader(course_dir, "generate_feedback", assignment, "--force")
    return sorted((course_dir / "feedback").glob(f"*/{assignment}/*.html"))
