"""What a Chinese class reads in its autograded grade cells: the course's framing of each result (hidden
tests, a case's kind of failure, withheld points, a zero for a cheat, how a checking process ended) in
Chinese, and the parts other code reads back (withheld points, the class summary's trouble lines) still
found in either language."""
import pytest

from grader import autograde, child, classgrade, isolation


def _outcome(status, cases):
    return isolation.Outcome("day02/silu_and_mul", status, "", sum(c == "passed" for c in cases), len(cases),
                             [isolation.CaseResult({"n": i}, c, message="1 of 9 elements NaN" if c == "failed" else "")
                              for i, c in enumerate(cases)])


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_hidden_call_is_framed_in_the_lessons_language(monkeypatch, lang):
    monkeypatch.setenv("COURSE_LANG", lang)
    call = autograde.Call("day02", "silu_and_mul", [{"n": 1}], 7, True)
    text = autograde._describe(_outcome("failed", ["passed", "failed"]), call, 1, 2.0)
    expected = {"en": ["hidden tests 1 of silu_and_mul: failed (1/2 cases)", "  hidden case 1: passed",
                       "  hidden case 2: failed (NaN or Inf in the output, or elements never written)"],
                "zh": ["silu_and_mul 的隐藏测试 1：未通过（1/2 个用例）", "  隐藏用例 1：通过",
                       "  隐藏用例 2：未通过（输出中有 NaN 或 Inf，或有元素从未被写入）"]}[lang]
    assert text.splitlines() == expected
    visible = autograde.Call("day02", "silu_and_mul", None, None, False)
    assert autograde._describe(_outcome("passed", ["passed"]), visible, 0, 2.0).endswith(
        {"en": "[graded by the course in 2 s]", "zh": "[课程评分用时 2 秒]"}[lang])


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_withheld_points_are_read_back_in_either_language(monkeypatch, lang):
    monkeypatch.setenv("COURSE_LANG", lang)
    score, note = autograde._withheld(2.0, {"vector_add": (["n=16777219"], 8)})
    assert score == 1.75 and ("暂扣 0.25 分" in note) == (lang == "zh"), note
    (m,) = autograde.WITHHELD.finditer(note)
    assert float(m[1] or m[2]) == 0.25


def test_the_class_summary_finds_trouble_in_a_chinese_cell(monkeypatch):
    monkeypatch.setenv("COURSE_LANG", "zh")
    for line in (str(_outcome("timed out", ["timed out"])).splitlines()[0],
                 str(_outcome("crashed", ["crashed"])).splitlines()[0]):
        assert any(t in line for t in classgrade.TROUBLE), line


def test_how_a_checking_process_ended_in_chinese(monkeypatch):
    monkeypatch.setenv("COURSE_LANG", "zh")
    assert child.Finished("died", -11).how == "被 SIGSEGV（信号 11）终止"
    assert child.Finished("died", 3).how == "以状态 3 退出"
