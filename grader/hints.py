"""`python -m grader hint dayNN exercise [--level 1|2|3]`: the hints a solution carries, one level at
a time. Level 1 is the idea (the stub already shows it), level 2 the structure, level 3 the tricky
line. The highest level asked for is recorded in .course/progress.json, where `progress` (and an
instructor) can see it.
"""
from __future__ import annotations

import json

from grader import exercises, paths, stubs

COMMAND = "hint"
HELP = "the hints of an exercise, level by level (1 idea, 2 structure, 3 the tricky line)"
LEVELS = (1, 2, 3)
LEVEL_NAMES = {1: "the idea", 2: "the structure", 3: "the tricky line"}


def hints(day, name: str, level: int) -> list[list[tuple[int, str]]]:
    """For each exercise region of the exercise's file: its (level, hint) lines up to `level`."""
    if level not in LEVELS:
        raise ValueError(f"--level {level}: expected 1, 2 or 3")
    ex = exercises.get(day, name)
    solution = paths.SOLUTIONS / ex.day / ex.source
    if not solution.is_file():
        raise FileNotFoundError(f"no solution {solution.relative_to(paths.ROOT)} to take hints from")
    out = []
    for region in stubs.regions(solution.read_text(), ex.source):
        lines = [(1, h) for h in region.hints]
        lines += [(lv, h) for lv in (2, 3) if lv <= level for h in region.deeper.get(lv, [])]
        out.append(lines)
    return out


def record(day, name: str, level: int) -> None:
    """Remember the highest hint level used for an exercise."""
    state = paths.STATE / "progress.json"
    data = json.loads(state.read_text()) if state.is_file() else {}
    key = exercises.get(day, name).key
    used = data.setdefault("hints", {})
    used[key] = max(level, used.get(key, 0))
    state.parent.mkdir(parents=True, exist_ok=True)
    state.write_text(json.dumps(data, indent=1))


def levels_used() -> dict[str, int]:
    state = paths.STATE / "progress.json"
    return json.loads(state.read_text()).get("hints", {}) if state.is_file() else {}


def add_arguments(parser) -> None:
    parser.add_argument("day")
    parser.add_argument("exercise")
    parser.add_argument("--level", type=int, default=1, choices=LEVELS,
                        help="1 the idea (default), 2 the structure, 3 the tricky line")


def main(args) -> int:
    regions = hints(args.day, args.exercise, args.level)
    ex = exercises.get(args.day, args.exercise)
    print(f"{ex.key} ({ex.source}), hints up to level {args.level} ({LEVEL_NAMES[args.level]}):")
    for i, lines in enumerate(regions, 1):
        print(f"\n  part {i} of {len(regions)}:")
        for level, text in lines:
            print(f"    [{level}] {text}" if text else "")
        if not any(lv == args.level for lv, _ in lines) and args.level > 1:
            print(f"    (no level-{args.level} hint for this part)")
    record(args.day, args.exercise, args.level)
    if args.level < 3:
        print(f"\nMore: python -m grader hint {ex.day} {ex.name} --level {args.level + 1}")
    return 0
