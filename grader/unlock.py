"""`python -m grader unlock dayNN [--from DIR]`: the course's own version of a day's device functions,
which the course headers of later days build on (course/mma.cuh on day 9's ldmatrix and mma.sync, ...).

They live in an include root laid out per day (dayNN/*.cuh), never in kernels/include: solutions/include
in the instructor's repository (always used there: grading, CI, pytest --solutions), kernels/unlocked in
a student edition, where a header whose day is not unlocked yet fails to compile with one line naming
the day and this command; a day whose exercise is written in a header of the student's own (day 7's
days/day07/cp_async.cuh) compiles the later days on that header instead until it is unlocked
(grader/compiler.py: the include root days/ comes after the answer root). In the full repository the
command only records the unlock (the course's headers are already used); in an edition it copies
DIR/dayNN (a folder the instructor hands out, laid out like solutions/include) into
kernels/unlocked/dayNN, asking before it overwrites a file. Each unlock is recorded in
.course/unlocks.json, where an instructor can see it.
"""
from __future__ import annotations

import filecmp
import json
import shutil
import time
from pathlib import Path

from grader import paths
from grader.messages import say

COMMAND = "unlock"
HELP = "the course's version of a day's device functions, for the later days that build on them"
STATE = "unlocks.json"


def unlocked() -> dict[str, str]:
    """{'day03': '2026-11-26 20:00'}: the days unlocked so far; {} before any."""
    try:
        data = json.loads((paths.STATE / STATE).read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def record(day: str) -> None:
    data = unlocked()
    data[day] = time.strftime("%Y-%m-%d %H:%M")
    paths.STATE.mkdir(parents=True, exist_ok=True)
    (paths.STATE / STATE).write_text(json.dumps(data, indent=1, sort_keys=True))


def _headers(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix in (".cuh", ".h"))


def unlock(day, source: str | Path | None = None, ask=input) -> str:
    """Unlock `day`; returns what was done, in one line. `source`: the folder holding dayNN/ (an
    edition only); `ask`: asked before a different file of the same name is overwritten."""
    day = paths.day_name(day)
    if paths.SOLUTION_INCLUDE.is_dir():
        if not (paths.SOLUTION_INCLUDE / day).is_dir():
            raise ValueError(say("unlock.nothing", day=day))
        record(day)
        return say("unlock.recorded", day=day, folder=(paths.SOLUTION_INCLUDE / day).relative_to(paths.ROOT))
    if source is None:
        raise ValueError(say("unlock.need_from", day=day))
    given = Path(source) / day
    if not given.is_dir() or not _headers(given):
        raise ValueError(say("unlock.no_headers", given=given, day=day))
    target = paths.UNLOCKED / day
    changed = [f for f in _headers(given) if (target / f.relative_to(given)).is_file()
               and not filecmp.cmp(f, target / f.relative_to(given), shallow=False)]
    if changed:
        names = ", ".join(str(f.relative_to(given)) for f in changed)
        try:
            answer = ask(say("unlock.overwrite", target=target.relative_to(paths.ROOT), names=names))
        except EOFError:
            answer = ""
        if answer.strip().lower() not in ("y", "yes"):
            return say("unlock.kept", day=day, target=target.relative_to(paths.ROOT))
    for f in _headers(given):
        (target / f.relative_to(given)).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(f, target / f.relative_to(given))
    record(day)
    return say("unlock.done", day=day, count=len(_headers(given)), target=target.relative_to(paths.ROOT))


def add_arguments(parser) -> None:
    parser.add_argument("day", help="dayNN: the day whose course headers later days include")
    parser.add_argument("--from", dest="source", metavar="DIR",
                        help="a student edition: the folder holding dayNN/ that your instructor handed out")


def main(args) -> int:
    print(unlock(args.day, args.source))
    return 0
