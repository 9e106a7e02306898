"""A benchmark's title and axis (bench.Report: its table's title, its plot's title and x label) read in
Chinese in a Chinese lesson: every phrase of every title the exercises give (grader/exercises/*.py, read
from their source, for the GPU draws them) is in the catalogue's plot.* phrases (messages.phrased), so that
no two English words are left side by side; names, numbers, dtypes and formulas stay."""
import ast
import re

import pytest

from grader import paths
from grader.messages import phrased

#: Two English words side by side: a phrase left untranslated ("one block per tile").
PHRASE = re.compile(r"\b[A-Za-z]{2,}(?: [a-z]{2,})+\b")
BENCH_CALLS = ("Report", "_report", "_bench", "_bench_gemm")


def _text(node) -> str | None:
    """A string argument as written, each f-string field replaced by {}."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)
    return None


def titles() -> list[tuple[str, str]]:
    found = []
    for path in sorted((paths.ROOT / "grader" / "exercises").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) in BENCH_CALLS:
                found += [(path.stem, text) for text in map(_text, node.args[:2]) if text and " " in text]
    return found


def test_the_titles_are_found():
    assert len(titles()) > 30 and ("day04", "fp32 transpose, n x n") in titles()


@pytest.mark.parametrize("day,title", titles())
def test_a_benchmark_title_reads_in_chinese(day, title):
    shown = phrased(title, "zh")
    assert not PHRASE.search(shown.replace("{}", "")), f"{day}: {shown!r} (add its phrases as plot.* entries)"
    assert phrased(title, "en") == title
