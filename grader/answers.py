"""`python -m grader answer dayNN N [--lang en|zh]`: thought question N's model answer and its rubric,
once you have written your own.

Your answer is question N's answer cell in your notebook (notebooks/dayNN.ipynb, notebooks/zh/ in
Chinese; the cell `dayNN-think-N`): while it is empty or still says "YOUR ANSWER HERE", the command
asks you to write yours first. The model answer comes through `model_answer` alone (today from the
instructor's notebook; a student edition gives it from the instructor's side). Each answer shown is
recorded in .course/answers.json, where `progress` (and an instructor) can see it.
"""
from __future__ import annotations

import json
import re
import time

from grader import paths, solution_facts
from grader.messages import say

COMMAND = "answer"
HELP = "a thought question's model answer and rubric, once you have written yours in your notebook"
PLACEHOLDER = "YOUR ANSWER HERE"  # what nbgrader's ClearSolutions leaves in an answer cell
STATE = "answers.json"
_MODEL = re.compile(r"^### BEGIN SOLUTION$(.*?)^### END SOLUTION$", re.M | re.S)
TEXT = {
    "en": {"first": "Write your own answer to question {n} first: its answer cell in {nb} is still empty. "
                    "Then: python -m grader answer {day} {n}",
           "head": "{day}, thought question {n}: the model answer (yours is in {nb})"},
    "zh": {"first": "请先写下你自己对思考题 {n} 的回答：{nb} 中它的回答单元格还是空的。然后运行：python -m grader answer {day} {n} --lang zh",
           "head": "{day}，思考题 {n}：参考答案（你的回答在 {nb} 中）"},
}


def _notebook(root, day: str, lang: str):
    import nbformat  # the lab's extra; the command line works without it

    path = root / ("zh" if lang == "zh" else "") / f"{day}.ipynb"
    if not path.is_file():
        raise FileNotFoundError(say("answers.no_notebook",
                                    path=path.relative_to(paths.ROOT) if path.is_relative_to(paths.ROOT) else path))
    return path, nbformat.read(path, as_version=4)


def _answer_cell(nb, day: str, n: int, where) -> str:
    cell = next((c for c in nb.cells
                 if c.get("metadata", {}).get("nbgrader", {}).get("grade_id") == f"{day}-think-{n}"), None)
    if cell is None:
        count = sum(1 for c in nb.cells
                    if re.fullmatch(rf"{day}-think-\d", c.get("metadata", {}).get("nbgrader", {}).get("grade_id", "")))
        raise ValueError(say("answers.no_question", day=day, n=n, count=count, where=where))
    return cell.source


def model_answer(day, n: int, lang: str = "en") -> str:
    """Thought question n's model answer and rubric (the one place that reads them)."""
    day = paths.day_name(day)
    if not paths.INSTRUCTOR_NOTEBOOKS.is_dir():  # a student edition: those its instructor released
        return solution_facts.model_answer(day, n, lang)
    path, nb = _notebook(paths.INSTRUCTOR_NOTEBOOKS, day, lang)
    found = _MODEL.search(_answer_cell(nb, day, n, path.name))
    if not found:
        raise ValueError(say("answers.no_model", day=day, n=n))
    return found.group(1).strip()


def own_answer(day, n: int, lang: str = "en") -> str:
    """What you wrote in question n's answer cell of your notebook ('' while it is empty)."""
    day = paths.day_name(day)
    path, nb = _notebook(paths.NOTEBOOKS, day, lang)
    text = _answer_cell(nb, day, n, path.name).strip()
    return "" if text in ("", PLACEHOLDER) else text


def seen() -> dict[str, list[int]]:
    """{'day02': [1, 3]}: the model answers shown so far; {} before any."""
    try:
        data = json.loads((paths.STATE / STATE).read_text())
    except (OSError, ValueError):
        return {}
    return {day: sorted(int(k) for k in v) for day, v in data.items() if isinstance(v, dict)}


def record(day, n: int) -> None:
    """Remember that question n's model answer was shown (and when)."""
    path = paths.STATE / STATE
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        data = {}
    data.setdefault(paths.day_name(day), {})[str(n)] = time.strftime("%Y-%m-%d %H:%M")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1, sort_keys=True))


def add_arguments(parser) -> None:
    parser.add_argument("day")
    parser.add_argument("question", type=int, help="the thought question's number (1, 2, ...)")
    parser.add_argument("--lang", choices=tuple(TEXT),
                        help="en or zh (default: $COURSE_LANG, zh in a Chinese lesson's folder, else en)")


def main(args) -> int:
    from grader.language import language

    lang, day = args.lang or language(), paths.day_name(args.day)
    say = TEXT[lang]
    where = (paths.NOTEBOOKS / ("zh" if lang == "zh" else "") / f"{day}.ipynb").relative_to(paths.ROOT)
    if not own_answer(day, args.question, lang):
        model_answer(day, args.question, lang)  # a question that does not exist is said as such first
        print(say["first"].format(n=args.question, nb=where, day=day))
        return 1
    text = model_answer(day, args.question, lang)
    print(say["head"].format(day=day, n=args.question, nb=where) + "\n")
    print(text)
    record(day, args.question)
    return 0
