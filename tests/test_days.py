"""The table of days (grader/days.py) is the course's one list of days: names are read against it, a new
row is a new day everywhere (its exercises still "coming"), and each day has a Chinese title too."""
import re

import pytest

from grader import cli, days, exercises, paths
from grader.days import Day


def test_the_table_is_day01_to_its_last_day_in_order():
    assert days.NAMES == tuple(f"day{i:02d}" for i in range(1, len(days.TABLE) + 1))
    for row in days.TABLE:
        assert row.title and re.search(r"[\u4e00-\u9fff]", row.title_zh), row


@pytest.mark.parametrize("given, name", [(2, "day02"), ("2", "day02"), ("02", "day02"), ("day2", "day02"),
                                         (" Day14 ", "day14"), (days.TABLE[-1].number, days.NAMES[-1])])
def test_a_day_is_named_as_people_write_it(given, name):
    assert days.day_name(given) == name


@pytest.mark.parametrize("given", [0, len(days.TABLE) + 1, "day99", "dayx", "", "2.0", -1])
def test_an_unknown_day_names_the_course_s_days(given):
    with pytest.raises(ValueError, match=rf"unknown day .*expected day01 \.\. {days.NAMES[-1]} "
                                         rf"\(or a number 1-{len(days.TABLE)}\)"):
        days.day_name(given)


def test_paths_names_days_through_the_table():
    assert paths.day_name is days.day_name


def test_a_new_row_is_a_new_day_everywhere(monkeypatch, capsys):
    """A day added to the table only: it is a day to every command, with no exercises yet."""
    n = len(days.TABLE) + 1
    name = f"day{n:02d}"
    table = (*days.TABLE, Day(name, "Blackwell: tcgen05 and TMEM", "Blackwell：tcgen05 与 TMEM"))
    monkeypatch.setattr(days, "TABLE", table)
    monkeypatch.setattr(days, "NAMES", tuple(d.name for d in table))
    assert days.day_name(n) == name and days.title(name, "zh") == "Blackwell：tcgen05 与 TMEM"
    with pytest.raises(ValueError, match=rf"expected day01 \.\. {name} \(or a number 1-{n}\)"):
        days.day_name(n + 1)
    assert exercises.day_exercises(name) == [] and name not in exercises.days_with_exercises()
    monkeypatch.setenv("COURSE_LANG", "en")
    assert cli.main(["progress"]) == 0
    last = capsys.readouterr().out.splitlines()[-1]
    assert last.startswith(f"{name}  Blackwell: tcgen05 and TMEM") and last.endswith("coming")


def test_progress_titles_follow_the_lessons_language(monkeypatch, capsys):
    monkeypatch.setenv("COURSE_LANG", "zh")
    assert cli.main(["progress"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [line.split()[1] for line in out] == [row.title_zh.split()[0] for row in days.TABLE]
    with pytest.raises(ValueError, match="language 'fr'"):
        days.title(1, "fr")
