"""`python -m grader student-edition DIR [days] [--lang en|zh|both] [--unlocked DAYS] [--force]`: what a
class hands its students, without the answers.

The edition is the course's git-tracked files (no .venv, .course or caches; days/ as git's index holds
it, so that no kernel an instructor solved in their own checkout goes out) less what bears answers or is
for the course's maintainers: solutions/, instructor/ (source notebooks, rubrics, hidden tests), tests/,
.ci/ and docs/. It keeps the course package, the student notebooks of the chosen days (rendered afresh
from instructor/notebooks/, in the chosen languages), the stubs and self-checks (days/dayNN/) of every
day up to the last chosen one (later days build on the student's own earlier files: day 13's variants on
day 12's batch prefill, day 14's API on days 2 to 13), kernels/ (the headers a student may read), the
lab and what runs it all (pyproject.toml, constraints.txt, course.sh, the READMEs, conftest.py).

Where a student's command used a solution's source, the edition carries what the instructor's side
computed from it instead, in grader/data/solution_facts.json (grader/solution_facts.py): the technique
each solution kernel shows, the hints, the architecture a kernel needs. Day 4's worked example
(demos/smem_stride.cu) goes to days/day04/demos/; its planted-bug demos (the exercise's answer less a
line) stay out. `--unlocked DAYS` releases what an instructor hands out once those days are done: the
course's own headers of the days (solutions/include/dayNN/, as kernels/unlocked/dayNN/, which the
compiler searches where solutions/ is absent) and their thought questions' model answers (`grader
answer`); the other days' model answers are not in the edition. A DIR that exists and is not empty is
refused unless --force (then the edition's files are written over what is there; nothing else is
removed).
"""
from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

from grader import answers, exercises, hints, paths, sanitize, solution_facts, technique

COMMAND = "student-edition"
HELP = "build what a class hands students: stubs, student notebooks, the course package; no solutions"

#: The top-level folders a student edition leaves out: answers, and the course's own maintenance.
LEFT_OUT = ("solutions", "instructor", "tests", ".ci", "docs")
#: What must never appear in an edition's files (outside the grader's own code, which looks for it).
MARKERS = ("BEGIN SOLUTION", "BEGIN HIDDEN TESTS")
LANGS = {"en": ("en",), "zh": ("zh",), "both": ("en", "zh")}
_DAY = re.compile(r"day\d\d")


def tracked() -> list[str]:
    """The course's git-tracked files, relative to its root."""
    try:
        top = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=paths.ROOT, capture_output=True,
                             text=True, check=True).stdout.strip()
        done = subprocess.run(["git", "ls-files", "-z"], cwd=paths.ROOT, capture_output=True, check=True)
    except (OSError, subprocess.CalledProcessError) as e:
        raise ValueError(f"a student edition is built from the course's git checkout; git failed "
                         f"in {paths.ROOT}: {e}") from None
    if Path(top).resolve() != paths.ROOT.resolve():  # a copy inside another repository lists nothing of its own
        raise ValueError(f"a student edition is built from the course's own git checkout; {paths.ROOT} is not "
                         f"one (it lies inside the repository at {top})")
    return [f for f in done.stdout.decode().split("\0") if f]


def selected(files: list[str], days: list[str], langs: tuple[str, ...]) -> list[str]:
    """The tracked files an edition of `days` in `langs` holds (its student notebooks apart: rendered):
    days/ of every day up to the last of `days`."""
    days = work_days(days)
    keep = []
    for f in files:
        parts = f.split("/")
        if parts[0] in LEFT_OUT or parts[0] == "notebooks" and f.endswith(".ipynb"):
            continue
        day = _DAY.fullmatch(parts[1]) if parts[0] == "days" and len(parts) > 2 else None
        if day and day[0] not in days:
            continue
        if parts[0] == "notebooks":
            if ("zh" if parts[1] == "zh" else "en") not in langs:
                continue
            named = _DAY.search(parts[-1])
            if named and named[0] not in days:  # notebooks/zh/hints/dayNN.json
                continue
        keep.append(f)
    return keep


def model_answers(day: str, langs: tuple[str, ...]) -> dict[str, dict[str, str]]:
    """{lang: {n: model answer}} of a day's thought questions, from the instructor's notebooks."""
    found: dict[str, dict[str, str]] = {}
    for lang in langs:
        n = 1
        while True:
            try:
                found.setdefault(lang, {})[str(n)] = answers.model_answer(day, n, lang)
            except (ValueError, FileNotFoundError):
                break
            n += 1
    return found


def work_days(days: list[str]) -> list[str]:
    """The days whose files (days/dayNN/) an edition of `days` holds: every day up to the last of them."""
    return [d for d in exercises.days_with_exercises() if d <= max(days)]


def facts_of(days: list[str], unlocked: list[str] = (), langs: tuple[str, ...] = ("en",)) -> dict:
    """What the students' commands need of the solutions of `days` (grader/solution_facts.py), computed
    here from solutions/; the model answers of the `unlocked` days."""
    solutions = paths.solutions_dir("building a student edition")
    facts: dict = {"arch": {}, "technique": {}, "hints": {},
                   "answers": {day: model_answers(day, langs) for day in unlocked}}
    for day in days:
        for ex in exercises.day_exercises(day):
            path = solutions / ex.day / ex.source
            if path.suffix == ".cu":
                facts["arch"][f"{ex.day}/{ex.source}"] = solution_facts.required_arch(ex.day, ex.source)
            if getattr(ex, "technique", ()) and path.suffix == ".cu":
                facts["technique"][f"{ex.day}/{ex.source}"] = technique.reference_facts(path, ex.technique)
            if path.is_file():
                day_hints = facts["hints"].setdefault(ex.day, {"files": {}, "parts": {}})
                files = day_hints["files"][ex.source] = hints.files(ex.day, ex.source)
                day_hints["parts"].update({f: hints.english(ex.day, f) for f in files})
    return facts


def _leaks(out: Path) -> list[str]:
    """The edition's files (the grader's own code apart) holding a solution or hidden-test marker."""
    found = []
    for path in out.rglob("*"):
        rel = path.relative_to(out)
        if path.is_file() and not (rel.parts[0] == "grader" and path.suffix == ".py"):
            text = path.read_text(errors="replace")
            found += [f"{rel.as_posix()}: {m}" for m in MARKERS if m in text]
    return found


def build(out: str | Path, days: list[str] | None = None, lang: str = "both", unlocked: list[str] = (),
          force: bool = False) -> dict:
    """Write the student edition of `days` (default: every day) into `out`; what it wrote, in numbers."""
    from grader import student_notebooks

    if lang not in LANGS:
        raise ValueError(f"--lang {lang}: expected en, zh or both")
    days = sorted({paths.day_name(d) for d in days}) if days else exercises.days_with_exercises()
    unlocked = sorted({paths.day_name(d) for d in unlocked})
    out = Path(out).resolve()
    if out == paths.ROOT or out in paths.ROOT.parents:
        raise ValueError(f"{out} holds the course itself: name a new folder for the student edition")
    if out.exists() and not out.is_dir():
        raise ValueError(f"{out} is a file: name a new folder for the student edition")
    if out.is_dir() and any(out.iterdir()) and not force:
        raise ValueError(f"{out} exists and is not empty (a student's work?): name a new folder, or add --force "
                         f"to write the edition over it")
    facts = facts_of(work_days(days), unlocked, LANGS[lang])
    files = selected(tracked(), days, LANGS[lang])
    out.mkdir(parents=True, exist_ok=True)
    stubs = [f for f in files if f.startswith("days/")]  # git's copy: never the instructor's own work
    subprocess.run(["git", "checkout-index", "-f", "-z", "--stdin", f"--prefix={out}/"], cwd=paths.ROOT,
                   input="\0".join(stubs).encode(), check=True, capture_output=True)
    for f in files:
        if not f.startswith("days/") and (paths.ROOT / f).is_file():
            (out / f).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(paths.ROOT / f, out / f)
    notebooks = 0
    for source in student_notebooks.sources():
        day, zh = source.stem, source.parent.name == "zh"
        if day in days and ("zh" if zh else "en") in LANGS[lang]:
            target = out / student_notebooks.student_path(source).relative_to(paths.ROOT)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(student_notebooks.render(source), encoding="utf-8")
            notebooks += 1
    data = out / solution_facts.FACTS.relative_to(paths.ROOT)
    data.parent.mkdir(parents=True, exist_ok=True)
    data.write_text(json.dumps(facts, indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
    for day in work_days(days):  # worked examples: the demos that are not a planted bug in an answer
        planted = {ex.source for ex, _ in sanitize.demo_exercises(day)}
        for demo in sorted((paths.SOLUTIONS / day / "demos").glob("*.cu")):
            if demo.relative_to(paths.SOLUTIONS / day).as_posix() not in planted:
                (out / "days" / day / "demos").mkdir(parents=True, exist_ok=True)
                shutil.copy2(demo, out / "days" / day / "demos" / demo.name)
    released, missing = [], []
    for day in unlocked:
        headers = paths.SOLUTIONS / "include" / day
        if headers.is_dir():
            shutil.copytree(headers, out / "kernels" / "unlocked" / day, dirs_exist_ok=True)
            released.append(day)
        else:
            missing.append(day)
    leaks = _leaks(out)
    if leaks:
        raise ValueError(f"the edition in {out} holds answers, not handed out: {'; '.join(leaks[:5])}")
    return {"dir": out, "days": days, "files": len(files) + notebooks, "notebooks": notebooks,
            "unlocked": released, "nothing_to_unlock": missing}


def add_arguments(parser) -> None:
    parser.add_argument("course_dir", metavar="DIR", help="a new folder for the edition")
    parser.add_argument("days", nargs="*", help="dayNN ... whose notebooks it holds (default: every day); the "
                        "files of every day up to the last come too")
    parser.add_argument("--lang", choices=tuple(LANGS), default="both",
                        help="the notebooks' language: en, zh or both (default)")
    parser.add_argument("--unlocked", nargs="+", default=[], metavar="DAY",
                        help="days released: their course headers (solutions/include/dayNN) and model answers")
    parser.add_argument("--force", action="store_true", help="write over a folder that is not empty")


def main(args) -> int:
    done = build(args.course_dir, args.days, args.lang, args.unlocked, args.force)
    stubs = work_days(done["days"])
    print(f"student edition of {', '.join(done['days'])} in {done['dir']}: {done['files']} files "
          f"({done['notebooks']} student notebooks; days/ of {stubs[0]} to {stubs[-1]}), no solutions/, "
          f"no instructor/, no tests/")
    if args.unlocked:
        print(f"released: the model answers of {', '.join(sorted(set(map(paths.day_name, args.unlocked))))}"
              + (f"; the headers of {', '.join(done['unlocked'])} (kernels/unlocked/)" if done["unlocked"] else ""))
    if done["nothing_to_unlock"]:
        print(f"no course headers to release for {', '.join(done['nothing_to_unlock'])} "
              f"(solutions/include/dayNN does not exist)")
    return 0
