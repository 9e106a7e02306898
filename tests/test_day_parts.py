"""Every day of the table has every part docs/new_day.md lists: a half-added day fails here."""
import json
import re

import pytest

from grader import days, exercises, paths

DAYS = [d.name for d in days.TABLE]


@pytest.mark.parametrize("day", DAYS)
def test_a_day_has_every_part(day):
    n = int(day[3:])
    exs = exercises.day_exercises(day)
    assert exs, f"{day}: no EXERCISES in grader/exercises/{day}.py"
    for ex in exs:
        assert (paths.SOLUTIONS / day / ex.source).is_file(), f"{day}/{ex.name}: no solutions/{day}/{ex.source}"
        assert (paths.DAYS / day / ex.source).is_file(), f"{day}/{ex.name}: no stub days/{day}/{ex.source}"
    self_check = paths.DAYS / day / f"test_{day}.py"
    assert self_check.is_file(), f"{day}: no days/{day}/test_{day}.py"
    assert f'exercise_tests("{day}"' in self_check.read_text(), \
        f"{day}: days/{day}/test_{day}.py does not collect its exercises' tests (exercise_tests(\"{day}\"))"
    for folder in (paths.INSTRUCTOR_NOTEBOOKS, paths.INSTRUCTOR_NOTEBOOKS / "zh", paths.NOTEBOOKS,
                   paths.NOTEBOOKS / "zh"):
        assert (folder / f"{day}.ipynb").is_file(), f"{day}: no {folder.relative_to(paths.ROOT)}/{day}.ipynb"
    hints = paths.NOTEBOOKS / "zh" / "hints" / f"{day}.json"
    assert hints.is_file() and json.loads(hints.read_text()), f"{day}: no Chinese hints ({hints.name})"
    assert (paths.ROOT / "tests" / f"test_{day}_planted.py").is_file() or n == 1, \
        f"{day}: no planted wrong kernels (tests/test_{day}_planted.py)"
    for index in ("course_index.md", "course_index.zh.md"):
        rows = re.findall(r"^\| (\d+)\b", (paths.ROOT / index).read_text(), re.M)
        assert str(n) in rows, f"{day}: no row in {index}"


def test_the_checklist_names_every_part():
    text = (paths.ROOT / "docs" / "new_day.md").read_text()
    for part in ("grader/days.py", "grader/exercises/dayNN.py", "solutions/dayNN", "days/dayNN/test_dayNN.py",
                 "instructor/notebooks/dayNN.ipynb", "notebooks/zh/hints/dayNN.json",
                 "tests/test_dayNN_planted.py", "course_index.md"):
        assert part in text, part
