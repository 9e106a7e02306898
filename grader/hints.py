"""`python -m grader hint dayNN exercise [--level 1|2|3] [--lang en|zh]`: the hints a solution carries,
one level at a time. Level 1 is the idea (the stub already shows it), level 2 the structure, level 3 the
tricky part, explained. The highest level asked for is recorded in .course/hints.json, where `progress` (and an
instructor) can see it.

The hints are written in English in the solutions (`// HINT:`, `// HINT2:`, `// HINT3:`); their Chinese
text lives in notebooks/zh/hints/dayNN.json, one entry per solution file, exercise region ("part") and
level, each holding the first 8 hex digits of the SHA-256 of the English text it translates:

    {"rmsnorm.cu": [{"1": {"en_hash": "3f2a9c1d", "zh": ["...", "..."]}, "2": {...}}, ...]}

An English edit makes that entry stale: the command then shows the English text, and
`translation_problems` (tests/test_hints_zh.py) names the entry and its new hash.
"""
from __future__ import annotations

import hashlib
import json
import re

from grader import exercises, paths, solution_facts, stubs
from grader.messages import say

COMMAND = "hint"
HELP = "the hints of an exercise, level by level (1 idea, 2 structure, 3 the tricky part, explained)"
LEVELS = (1, 2, 3)
ZH_HINTS = paths.NOTEBOOKS / "zh" / "hints"
TEXT = {
    "en": {"names": {1: "the idea", 2: "the structure", 3: "the tricky part, explained"},
           "head": "{key} ({source}), hints up to level {level} ({name}):",
           "part": "part {i} of {n}:", "none": "(no level-{level} hint for this part)",
           "more": "More: python -m grader hint {day} {name} --level {next}"},
    "zh": {"names": {1: "思路", 2: "结构", 3: "难点讲解"},
           "head": "{key}（{source}）的提示，直到第 {level} 级（{name}）：",
           "part": "第 {i} 部分，共 {n} 部分：", "none": "（这一部分没有第 {level} 级提示）",
           "more": "下一级：python -m grader hint {day} {name} --level {next} --lang zh",
           "untranslated": "（这条提示的中文译文尚未更新，以下是英文原文）"},
}


def digest(lines: list[str]) -> str:
    """The short hash a translation records of the English text it translates."""
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()[:8]


def english(day, source: str) -> list[dict[int, list[str]]]:
    """The hints of a solution file, one {level: lines} per exercise region (in a student edition, as its
    build read them: grader/solution_facts.py)."""
    if not paths.SOLUTIONS.is_dir():
        return solution_facts.hint_parts(day, source)
    solution = paths.SOLUTIONS / paths.day_name(day) / source
    if not solution.is_file():
        raise FileNotFoundError(say("hints.no_solution", path=solution.relative_to(paths.ROOT)))
    return [{lv: lines for lv, lines in ((1, r.hints), (2, r.deeper.get(2)), (3, r.deeper.get(3))) if lines}
            for r in stubs.regions(solution.read_text(), source)]


_OWN_HEADER = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([\w.-]+\.cuh)"', re.M)


def files(day, source: str) -> list[str]:
    """The solution files whose hints an exercise shows: the headers of the student's own that its file
    includes (day 12's prefill_steps.cuh, where the warp steps are written once), then the file itself."""
    if not paths.SOLUTIONS.is_dir():
        return solution_facts.hint_files(day, source)
    folder = paths.SOLUTIONS / paths.day_name(day)
    text = (folder / source).read_text() if (folder / source).is_file() else ""
    return [h for h in dict.fromkeys(_OWN_HEADER.findall(text)) if (folder / h).is_file()] + [source]


def _unique_keys(pairs):
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)):
        raise ValueError(f"a key appears twice: {sorted({k for k in keys if keys.count(k) > 1})}")
    return dict(pairs)


def chinese(day) -> dict[str, list[dict[str, dict]]]:
    """The Chinese hints of a day (notebooks/zh/hints/dayNN.json); {} where there are none."""
    path = ZH_HINTS / f"{paths.day_name(day)}.json"
    if not path.is_file():
        return {}
    try:
        return json.loads(path.read_text(encoding="utf-8"), object_pairs_hook=_unique_keys)
    except ValueError as e:
        raise ValueError(f"{path.name}: {e}") from None


def _translated(entry: dict | None, lines: list[str]) -> list[str] | None:
    return entry["zh"] if entry and entry.get("en_hash") == digest(lines) else None


def hints(day, name: str, level: int, lang: str = "en") -> list[list[tuple[int, str]]]:
    """For each exercise region of the exercise's file (those of its `hint_parts`, where it names them):
    its (level, hint) lines up to `level`, in English or Chinese (the English text, marked, where its
    translation is missing or stale)."""
    if level not in LEVELS:
        raise ValueError(f"--level {level}: expected 1, 2 or 3")
    if lang not in TEXT:
        raise ValueError(f"--lang {lang}: expected en or zh")
    ex = exercises.get(day, name)
    out = []
    for source in files(ex.day, ex.source):
        zh = chinese(ex.day).get(source, []) if lang == "zh" else []
        for i, part in enumerate(english(ex.day, source)):
            lines = []
            for lv, text in part.items():
                if lv <= level:
                    if lang == "zh":
                        entry = zh[i].get(str(lv)) if i < len(zh) else None
                        text = _translated(entry, text) or [TEXT["zh"]["untranslated"], *text]
                    lines += [(lv, t) for t in text]
            out.append(lines)
    return [out[i] for i in ex.hint_parts] if ex.hint_parts else out


def translation_problems(day) -> list[str]:
    """What keeps a day's Chinese hints from matching its English ones: a hint with no translation,
    a translation of an older English text (stale) and one of no hint (orphaned)."""
    d = paths.day_name(day)
    zh = chinese(d)
    sources = sorted({f for ex in exercises.day_exercises(d) for f in files(d, ex.source)})
    problems = [f"{d}.json: {src} has no such exercise file" for src in zh if src not in sources]
    for src in sources:
        parts, done = english(d, src), zh.get(src, [])
        if len(done) > len(parts):
            problems.append(f"{d}.json: {src} has {len(done)} parts, the solution {len(parts)}")
        for i, part in enumerate(parts):
            entries = done[i] if i < len(done) else {}
            for lv in map(int, entries):
                if lv not in part:
                    problems.append(f"{d}.json: {src} part {i + 1} level {lv}: no such English hint")
            for lv, text in part.items():
                where = f"{d}.json: {src} part {i + 1} level {lv}"
                entry = entries.get(str(lv))
                english_now = f"(en_hash {digest(text)}): {' / '.join(text)}"
                if entry is None or not entry.get("zh"):
                    problems.append(f"{where}: no translation of the English {english_now}")
                elif entry.get("en_hash") != digest(text):
                    problems.append(f"{where}: stale (en_hash {entry.get('en_hash')}), the English is now "
                                    f"{english_now}")
    return problems


def record(day, name: str, level: int) -> None:
    """Remember the highest hint level used for an exercise."""
    used = levels_used()
    key = exercises.get(day, name).key
    used[key] = max(level, used.get(key, 0))
    state = paths.STATE / "hints.json"
    state.parent.mkdir(parents=True, exist_ok=True)
    state.write_text(json.dumps(used, indent=1, sort_keys=True))


def levels_used() -> dict[str, int]:
    """{'day02/silu_and_mul': the highest hint level asked for}; {} before any."""
    state = paths.STATE / "hints.json"
    return json.loads(state.read_text()) if state.is_file() else {}


def add_arguments(parser) -> None:
    parser.add_argument("day")
    parser.add_argument("exercise")
    parser.add_argument("--level", type=int, default=1, choices=LEVELS,
                        help="1 the idea (default), 2 the structure, 3 the tricky part, explained")
    parser.add_argument("--lang", choices=tuple(TEXT),
                        help="en or zh (default: $COURSE_LANG, zh in a Chinese lesson's folder, else en)")


def main(args) -> int:
    from grader.language import language

    lang = args.lang or language()
    regions = hints(args.day, args.exercise, args.level, lang)
    ex, say = exercises.get(args.day, args.exercise), TEXT[lang]
    print(say["head"].format(key=ex.key, source=ex.source, level=args.level, name=say["names"][args.level]))
    for i, lines in enumerate(regions, 1):
        print("\n  " + say["part"].format(i=i, n=len(regions)))
        for level, text in lines:
            print(f"    [{level}] {text}" if text else "")
        if not any(lv == args.level for lv, _ in lines) and args.level > 1:
            print("    " + say["none"].format(level=args.level))
    record(args.day, args.exercise, args.level)
    if args.level < 3:
        print("\n" + say["more"].format(day=ex.day, name=ex.name, next=args.level + 1))
    return 0
