"""What the course's modules print or return for display (bounds, configurations' problems, bad-input
errors, benchmark and stage tables, autotune's lines) in the lessons' language: Chinese under
COURSE_LANG=zh, with no English sentence left, and English unchanged; tables lined up by display width."""
import re

import numpy as np
import pytest
from rich.cells import cell_len

from grader import paths
from test_notebooks_zh import CJK

#: Three English words in a row: a sentence left untranslated (names and code are single words).
SENTENCE = re.compile(r"\b[A-Za-z]{2,}(?:,? [a-z]{2,}){2,}\b")


def chinese(text: str) -> bool:
    """Chinese, and no English sentence in it."""
    return bool(CJK.search(text)) and not SENTENCE.search(text)


@pytest.fixture
def lang(monkeypatch):
    """lang("zh") or lang("en"): the lessons' language from here on, as a terminal's $COURSE_LANG."""
    monkeypatch.chdir(paths.ROOT)
    return lambda code: monkeypatch.setenv("COURSE_LANG", code)


def test_the_sentence_pattern_finds_english_and_passes_names():
    assert SENTENCE.search("the warp tile must be a multiple")
    assert chinese("ptx_math exp2（ex2.approx.ftz.f32，n=1000；允许：1 ulp）")
    assert not chinese("1 ulp (seen: 0.98 ulp from exact)")


def test_day03_s_bounds_in_chinese(lang):
    from grader.exercises import day03

    lang("zh")
    assert all(chinese(spec.stated) for spec in day03.APPROX_BOUNDS.values())
    assert chinese(day03.GELU_ALLOWED)
    lang("en")
    assert day03.APPROX_BOUNDS["rcp"].stated == "1 ulp (seen: 0.98 ulp)"
    assert day03.GELU_ALLOWED == "0.5 |x| 2^-11 (tanh.approx) + 2^-20 |x| (float rounding)"
    with pytest.raises(AttributeError):
        day03.NO_SUCH_NAME


def test_day03_s_failed_bound_in_chinese(lang, monkeypatch):
    """A ptx_math result out of its bound names the bound in the lessons' language."""
    from grader.exercises import day03

    def bad(*args, **kwargs):
        raise AssertionError(kwargs["name"])

    monkeypatch.setattr(day03, "assert_within", bad)
    monkeypatch.setattr(day03.device, "launch", lambda *a, **k: None)
    monkeypatch.setattr(day03.device, "empty", lambda n, dt: np.zeros(n, dt))
    monkeypatch.setattr(day03.device, "to_host", lambda a: a)
    monkeypatch.setattr(day03.device, "asarray", lambda a: a)
    module = type("M", (), {"get_function": lambda self, name: None})()
    for code, check in (("zh", chinese), ("en", lambda t: "allowed: 1 ulp (seen" in t and not CJK.search(t))):
        lang(code)
        with pytest.raises(AssertionError) as e:
            day03.check_ptx_math(module, 0, "rcp", 8)
        assert check(str(e.value)), str(e.value)
