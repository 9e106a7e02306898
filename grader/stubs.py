"""Student stubs generated from the solutions: solutions/dayNN/x.cu (or x.py) is the single source.

In a solution, the student's part is marked:

    // BEGIN EXERCISE
    // HINT: one thread per element ...      (level 1, the idea: kept in the stub, as a hint)
    // HINT2: a loop over k, then ...        (level 2, the structure: `python -m grader hint`)
    // HINT3: acc += a[k] * b[k]; ...        (level 3, the tricky part explained: `python -m grader hint`)
    // STUB: return 0.f;                     (kept in the stub as code, so that it compiles)
    ...solution code...                      (removed)
    // END EXERCISE

A Python exercise (x.py) marks its part the same way with `#` comments (`# BEGIN EXERCISE`, `# HINT:`,
`# STUB: raise NotImplementedError(...)`, `# END EXERCISE`).

Each stub records the hash of what was generated, so regeneration can tell a stub nobody touched
(safe to replace) from one a student edited (never overwritten: the new version goes beside it as
x.cu.new, unless the student says yes when asked).
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from grader import paths
from grader.messages import say

BEGIN, END = "// BEGIN EXERCISE", "// END EXERCISE"
COMMENT = {".py": "#"}  # a source's comment marker by suffix; "//" otherwise (CUDA C)
_HINT = re.compile(r"^(\s*)(?://|#) HINT([23]?):\s?(.*)$")
_STUB = re.compile(r"^(\s*)(?://|#) STUB:\s?(.*)$")
_HASH = re.compile(r"^(?://|#) stub-sha256: ([0-9a-f]{16})$", re.M)


class MarkerError(ValueError):
    """Unbalanced or malformed exercise markers in a solution file."""


@dataclass
class Region:
    start: int  # line index of BEGIN
    end: int    # line index of END
    hints: list[str]       # level 1: the idea, kept in the stub
    stub: list[str]
    code: list[str]
    deeper: dict[int, list[str]] = field(default_factory=dict)  # levels 2 and 3, shown on request
    comment: str = "//"    # the file's comment marker: "//" (CUDA C) or "#" (Python)


def _marker(line: str, word: str) -> str | None:
    """The comment marker of a BEGIN/END EXERCISE line ("//" or "#"), else None."""
    s = line.strip()
    return next((c for c in ("//", "#") if s == f"{c} {word} EXERCISE"), None)


def regions(text: str, name: str = "<solution>") -> list[Region]:
    """The marked regions of a solution, with a clear error for bad markers."""
    found, current = [], None
    for i, line in enumerate(text.splitlines()):
        s = line.strip()
        if (comment := _marker(line, "BEGIN")):
            if current is not None:
                raise MarkerError(f"{name}:{i + 1}: BEGIN EXERCISE inside the region opened at line "
                                  f"{current.start + 1}")
            current = Region(i, -1, [], [], [], {}, comment)
        elif _marker(line, "END"):
            if current is None:
                raise MarkerError(f"{name}:{i + 1}: END EXERCISE without BEGIN EXERCISE")
            current.end = i
            found.append(current)
            current = None
        elif current is not None:
            if (m := _HINT.match(line)):
                level = int(m.group(2) or 1)
                (current.hints if level == 1 else current.deeper.setdefault(level, [])).append(m.group(3))
            elif (m := _STUB.match(line)):
                current.stub.append(m.group(1) + m.group(2))
            elif s:
                current.code.append(line)
    if current is not None:
        raise MarkerError(f"{name}:{current.start + 1}: BEGIN EXERCISE never closed")
    if not found:
        raise MarkerError(f"{name}: no '{BEGIN}' region: every exercise marks the student's part")
    return found


def answer_header(solution: Path) -> Path | None:
    """solutions/include/dayNN/x.cuh where the solution header solutions/dayNN/x.cuh (a header the
    student writes, like day 7's cp_async.cuh) is also the course's version later days build on."""
    target = paths.SOLUTION_INCLUDE / solution.parent.name / solution.name
    return target if solution.suffix == ".cuh" and target.is_file() else None


def render_answer(solution: Path) -> str:
    """The answer header's text: the solution's code and comments, without exercise markers, hints and
    stub lines, under a line naming its source."""
    rel = solution.relative_to(paths.ROOT) if solution.is_relative_to(paths.ROOT) else solution
    kept, inside = [], False
    for line in solution.read_text().splitlines():
        if _marker(line, "BEGIN") or _marker(line, "END"):
            inside = bool(_marker(line, "BEGIN"))
        elif not (inside and (_HINT.match(line) or _STUB.match(line))):
            kept.append(line)
    return (f"// Generated from {rel} by `python -m grader stubs` (edit that file): the course's version,\n"
            f"// which later days' course headers include and `grader unlock` releases.\n" + "\n".join(kept) + "\n")


def student_lines(solution: Path) -> int:
    """How many lines of code the student writes in a solution file: the non-blank, non-comment lines
    of its exercise regions."""
    return sum(1 for r in regions(solution.read_text(), str(solution)) for line in r.code
               if not line.strip().startswith(r.comment))


def _digest(body: str) -> str:
    return hashlib.sha256(body.encode()).hexdigest()[:16]


def render(solution: Path) -> str:
    """The stub text for one solution file."""
    rel = solution.relative_to(paths.ROOT) if solution.is_relative_to(paths.ROOT) else solution
    return render_text(solution.read_text(), rel)


def render_text(text: str, rel) -> str:
    """The stub text for a solution's text; `rel` names it in the header."""
    lines = text.splitlines()
    out, pos = [], 0
    for r in regions(text, str(rel)):
        out += lines[pos:r.start]
        indent, c = re.match(r"\s*", lines[r.start]).group(0), r.comment
        out.append(f"{indent}{c} TODO: your code here.")
        out += [f"{indent}{c}   Hint: {h}" if h else f"{indent}{c}" for h in r.hints]
        out += r.stub
        pos = r.end + 1
    out += lines[pos:]
    body = "\n".join(out) + "\n"
    c = COMMENT.get(Path(str(rel)).suffix, "//")
    header = (f"{c} Your exercise file. Generated from {rel} by `python -m grader stubs`;\n"
              f"{c} edit freely: regenerating never overwrites a file you changed.\n"
              f"{c} stub-sha256: {_digest(body)}\n")
    return header + body


def status(stub: Path) -> str:
    """'missing', 'untouched' (as generated) or 'edited'."""
    if not stub.is_file():
        return "missing"
    text = stub.read_text()
    m = _HASH.search(text)
    if not m:
        return "edited"
    body = text[text.index("\n", m.end()) + 1:]
    return "untouched" if _digest(body) == m.group(1) else "edited"


def stub_path(solution: Path) -> Path:
    return paths.DAYS / solution.parent.name / solution.name


def solutions(day: str | None = None) -> list[Path]:
    """The solution files stubs are made from: every .cu file, each header of the student's own (.cuh,
    e.g. day 12's prefill_steps.cuh) and each Python exercise's .py file."""
    paths.solutions_dir("regenerating the stubs (grader stubs)")
    files = (paths.exercise_files(paths.SOLUTIONS) + sorted(paths.SOLUTIONS.glob("day[0-9][0-9]/*.cuh"))
             + sorted(paths.SOLUTIONS.glob("day[0-9][0-9]/*.py")))
    return [f for f in files if day is None or f.parent.name == paths.day_name(day)]


def generate(day: str | None = None, *, force: bool = False,
             ask: Callable[[Path], bool] | None = None) -> list[tuple[Path, str]]:
    """Write the stubs of one day (or all). Returns (stub, what happened) pairs.

    A stub the student edited is replaced only with `force` or when `ask(path)` says yes; otherwise
    the fresh stub is written beside it as `<name>.cu.new` (`<name>.py.new`).
    """
    done = []
    for sol in solutions(day):
        if (answer := answer_header(sol)) is not None and answer.read_text() != render_answer(sol):
            answer.write_text(render_answer(sol))  # the instructor's side: nobody edits it by hand
            done.append((answer, say("stubs.regenerated")))
        stub, text = stub_path(sol), render(sol)
        state = status(stub)
        if state != "missing" and stub.read_text() == text:
            done.append((stub, say("stubs.up_to_date")))
            continue
        if state == "edited" and not (force or (ask is not None and ask(stub))):
            new = stub.with_name(stub.name + ".new")
            new.write_text(text)
            done.append((stub, say("stubs.kept", new=new.name)))
            continue
        stub.parent.mkdir(parents=True, exist_ok=True)
        stub.write_text(text)
        done.append((stub, say("stubs.created" if state == "missing" else "stubs.regenerated")))
    return done
