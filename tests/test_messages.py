"""The catalogue of what the course says (grader/messages.py): both languages for every entry, the same
fields in each, the glossary's terms in the Chinese, every key the code asks for present, and the
messages a student meets first (a check's failure, a grade, a lesson's first cell) in Chinese under
COURSE_LANG=zh."""
import re
import string
from pathlib import Path

import numpy as np
import pytest

from grader import checks, isolation, messages, paths
from test_notebooks_zh import CJK, glossary, uses_term

KEYS = sorted(messages.CATALOGUE)
CODE = re.compile(r"`[^`]*`|\{[^}]*\}|[A-Z_]+=\S+|\S+\.(?:cu|py)\b|sm_\d+|\bNaN\b|\bInf\b|\bSMs?\b|\bL2\b")


def _fields(text: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(text) if f}


@pytest.mark.parametrize("key", KEYS)
def test_every_message_has_both_languages_with_the_same_fields(key):
    entry = messages.CATALOGUE[key]
    assert set(entry) == {"en", "zh"}, f"{key}: {sorted(entry)}"
    assert _fields(entry["en"]) == _fields(entry["zh"]), key
    words = CODE.sub(" ", entry["en"])
    if re.search(r"[A-Za-z]{3,}", words):
        assert CJK.search(entry["zh"]), f"{key}: the Chinese is not Chinese"


@pytest.mark.parametrize("key", KEYS)
def test_the_chinese_uses_the_glossary(key):
    terms, entry = glossary(), messages.CATALOGUE[key]
    words = CODE.sub(" ", entry["en"])
    missing = [f"{t} -> {terms[t]}" for t in terms if uses_term(words, t, terms) and terms[t] not in entry["zh"]]
    assert not missing, f"{key}: {missing}"


def test_every_key_the_code_asks_for_exists():
    asked = set()
    for path in (paths.ROOT / "grader").rglob("*.py"):
        asked |= set(re.findall(r"\bsay\(\s*[\"']([\w. ]+)[\"']", path.read_text()))
    assert asked, "no say(...) call found"
    assert not asked - set(messages.CATALOGUE), sorted(asked - set(messages.CATALOGUE))
    assert not set(messages.CATALOGUE) - asked - {f"status.{s}" for s in ("passed", "failed", "crashed",
                                                                          "timed out", "not run")}, \
        "entries nothing asks for: " + ", ".join(sorted(set(messages.CATALOGUE) - asked))


def test_a_failed_check_speaks_the_lessons_language(monkeypatch):
    got, expected = np.array([1.0, np.nan, 3.0], np.float32), np.array([1.0, 2.0, 4.0])
    for lang, says in (("en", "elements outside"), ("zh", "个元素中有")):
        monkeypatch.setenv("COURSE_LANG", lang)
        monkeypatch.chdir(paths.ROOT)
        with pytest.raises(AssertionError) as e:
            checks.assert_close(got, expected, dt="float32", name="out", seed=7)
        text = str(e.value)
        assert ("NaN the kernel computed" if lang == "en" else "核函数算出的 NaN") in text, text
        with pytest.raises(AssertionError) as e:
            checks.assert_close(np.array([1.0, 2.5], np.float32), np.array([1.0, 2.0]), dt="float32", name="out")
        assert says in str(e.value), str(e.value)


def test_a_grade_and_the_lessons_first_cell_in_chinese(monkeypatch, capsys):
    monkeypatch.setenv("COURSE_LANG", "zh")
    monkeypatch.chdir(paths.ROOT)
    outcome = isolation.Outcome("day01/vector_add", "failed", "", 2, 7)
    assert str(outcome) == "day01/vector_add：未通过（2/7 个用例）"
    assert "需要" not in messages.say("setup.gpu", day="day01", device="H100", sm="sm_90", sms=132, l2=50)
    assert messages.say("cli.error", message="x") == "错误：x"


def test_the_child_is_told_the_language():
    assert "COURSE_LANG" in isolation._ENV_KEEP


@pytest.mark.parametrize("argv,says", [
    (["check", "day99"], "没有这一天 'day99'"),
    (["hint", "day02", "nosuch"], "day02 没有练习 'nosuch'"),
    (["check", "day02", "--nosuch"], "错误：unrecognized arguments"),
    (["progress"], "个练习，已编辑"),
    (["show-config"], "核函数加载自"),
])
def test_the_command_line_speaks_chinese(monkeypatch, capsys, argv, says):
    from grader import cli

    monkeypatch.setenv("COURSE_LANG", "zh")
    monkeypatch.chdir(paths.ROOT)
    try:
        cli.main(argv)
    except SystemExit:
        pass
    out = capsys.readouterr()
    assert says in out.out + out.err, out


def test_an_exercise_s_own_diagnosis_replays_in_the_lessons_language(monkeypatch):
    """Messages an exercise words itself (here day 11's empty-row lse) end with the catalogue's replay."""
    from grader.references.decode_attention import assert_lse

    monkeypatch.chdir(paths.ROOT)
    for lang, says in (("en", "[seed 5: rerun with COURSE_SEED=5]"), ("zh", "[种子 5：用 COURSE_SEED=5 重新运行]")):
        monkeypatch.setenv("COURSE_LANG", lang)
        with pytest.raises(AssertionError) as e:
            assert_lse(np.array([1.0, 0.0]), np.array([-np.inf, 0.0]), name="lse2", seed=5)
        assert str(e.value).endswith(says), str(e.value)


def test_where_kernels_run_is_said_in_the_lessons_language(monkeypatch):
    """The emulator's name and why kernels run there, as the banner and show-config print them."""
    from grader.emulator.backend import EmulatorBackend

    monkeypatch.chdir(paths.ROOT)
    monkeypatch.setenv("COURSE_LANG", "zh")
    backend = EmulatorBackend()
    assert backend.properties()["name"] == "PTX 模拟器（CPU，numpy）"
    assert backend.why_not_hardware().startswith("这里的核函数 (kernel) 在 PTX 模拟器上运行")
