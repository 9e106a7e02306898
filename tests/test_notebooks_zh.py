"""The Chinese lessons (instructor/notebooks/zh/dayNN.ipynb, the sources of notebooks/zh/) stay in step with the English ones: the same cells in
the same order, identical code, the same nbgrader metadata (grade ids, points, hidden tests), every
prose cell translated, and the glossary's terms (notebooks/zh/glossary.md) used. An edit to one
language that the other does not get fails here."""
import copy
import functools
import re

import nbformat
import pytest

from grader import paths
from test_notebooks import rubric

SOURCES = paths.INSTRUCTOR_NOTEBOOKS
ZH = SOURCES / "zh"
GLOSSARY = paths.NOTEBOOKS / "zh" / "glossary.md"  # beside the Chinese student notebooks, which use it
PAIRS = [(en, ZH / en.name) for en in sorted(SOURCES.glob("day[0-9][0-9].ipynb")) if (ZH / en.name).is_file()]
CJK = re.compile(r"[\u4e00-\u9fff]")
META_KEYS = ("grade_id", "grade", "solution", "locked", "points", "task")
CODE_SPAN = re.compile(r"```.*?```|`[^`]*`|\$[^$]*\$|https?://\S+", re.S)


def glossary() -> dict[str, str]:
    rows = re.findall(r"^\| ([^|]+?) \| ([^|]+?) \|$", GLOSSARY.read_text(), re.M)
    return {en: zh for en, zh in rows if en not in ("English", "---")}


def differences(en, zh) -> list[str]:
    """What differs between an English notebook and its translation, beyond the prose."""
    if len(en.cells) != len(zh.cells):
        return [f"{len(en.cells)} cells in English, {len(zh.cells)} in Chinese"]
    problems = []
    for i, (a, b) in enumerate(zip(en.cells, zh.cells)):
        where = f"cell {i} ({a.get('metadata', {}).get('nbgrader', {}).get('grade_id', a.cell_type)})"
        if a.cell_type != b.cell_type:
            problems.append(f"{where}: {a.cell_type} in English, {b.cell_type} in Chinese")
            continue
        if a.cell_type == "code" and a.source != b.source:
            problems.append(f"{where}: the code differs")
        if a.get("metadata", {}).get("tags", []) != b.get("metadata", {}).get("tags", []):
            problems.append(f"{where}: the tags differ (autograde's skip-autograde among them)")
        ma, mb = a.get("metadata", {}).get("nbgrader", {}), b.get("metadata", {}).get("nbgrader", {})
        for key in META_KEYS:
            if ma.get(key) != mb.get(key):
                problems.append(f"{where}: nbgrader {key} is {ma.get(key)!r} in English, {mb.get(key)!r} in Chinese")
        if ma.get("solution") and ("### BEGIN SOLUTION" in a.source) != ("### BEGIN SOLUTION" in b.source):
            problems.append(f"{where}: the model answer's markers differ")
        if ma.get("solution") and len(rubric(a.source, "Rubric:")) != len(rubric(b.source, "评分要点：")):
            problems.append(f"{where}: the rubric has {len(rubric(a.source, 'Rubric:'))} points in English, "
                            f"{len(rubric(b.source, '评分要点：'))} in Chinese (评分要点：)")
    return problems


def _prose(cell) -> str:
    return CODE_SPAN.sub(" ", cell.source)


@pytest.fixture(params=PAIRS, ids=lambda p: p[0].stem)
def pair(request):
    en, zh = request.param
    return nbformat.read(en, as_version=4), nbformat.read(zh, as_version=4)


def test_the_languages_are_in_step(pair):
    assert differences(*pair) == []


def test_prose_is_translated(pair):
    en, zh = pair
    for i, (a, b) in enumerate(zip(en.cells, zh.cells)):
        if a.cell_type == "markdown" and len(re.findall(r"[A-Za-z]{3,}", _prose(a))) >= 3:
            assert CJK.search(b.source), f"cell {i} is not translated: {b.source[:120]!r}"


@functools.lru_cache(maxsize=None)
def _term_patterns(term: str, terms: tuple) -> tuple[re.Pattern, list[re.Pattern]]:
    word = lambda t: re.compile(rf"\b{re.escape(t.split(' (')[0])}s?\b", re.I)
    inside = [(longer, word(term).search(longer)) for longer in terms if longer != term]
    return word(term), [re.compile(rf"\b{re.escape(longer[:m.end()])}", re.I) for longer, m in inside if m]


def uses_term(text: str, term: str, terms) -> bool:
    """Whether `text` uses the English `term` as a word (plural too), not counting its uses inside a
    longer glossary term, up to the term ('stride' in 'grid-stride loop' or 'grid-stride slice':
    网格跨步循环, 网格跨步)."""
    pattern, longer = _term_patterns(term, tuple(terms))
    for other in longer:
        text = other.sub(" ", text)
    return bool(pattern.search(text))


def test_glossary_terms_are_used(pair):
    en, zh = pair
    en_text = "\n".join(_prose(c) for c in en.cells if c.cell_type == "markdown")
    zh_text = "\n".join(c.source for c in zh.cells if c.cell_type == "markdown")
    terms = glossary()
    missing = [f"{term} -> {chinese}" for term, chinese in terms.items()
               if uses_term(en_text, term, terms) and chinese not in zh_text]
    assert not missing, f"glossary terms the English uses but the Chinese does not: {missing}"


def test_a_change_to_one_language_is_caught():
    en = nbformat.read(SOURCES / "day01.ipynb", as_version=4)
    other = copy.deepcopy(en)
    code = next(c for c in other.cells if c.cell_type == "code")
    code.source += "\nprint('only in one language')"
    assert any("the code differs" in p for p in differences(en, other))
    other = copy.deepcopy(en)
    graded = next(c for c in other.cells if c.get("metadata", {}).get("nbgrader", {}).get("points"))
    graded.metadata.nbgrader.points += 1
    assert any("points" in p for p in differences(en, other))
    other = copy.deepcopy(en)
    del other.cells[3]
    assert differences(en, other)
    other = copy.deepcopy(en)
    answer = next(c for c in other.cells if c.get("metadata", {}).get("nbgrader", {}).get("solution"))
    answer.source = answer.source.replace("Rubric:", "评分要点：").replace("\n- ", "\n", 1)  # one point lost
    assert any("the rubric has" in p for p in differences(en, other))


def test_the_glossary_is_well_formed():
    terms = glossary()
    assert len(terms) >= 40 and all(CJK.search(zh) for zh in terms.values())


def test_every_lesson_has_its_chinese_copy():
    english = {p.name for p in SOURCES.glob("day[0-9][0-9].ipynb")}
    chinese = {p.name for p in ZH.glob("day[0-9][0-9].ipynb")}
    assert english == chinese, f"missing in Chinese: {sorted(english - chinese)}; extra: {sorted(chinese - english)}"


def test_a_term_inside_a_longer_term_is_not_counted():
    terms = glossary()
    assert not uses_term("each thread runs a grid-stride loop", "stride", terms)
    assert uses_term("each thread runs a grid-stride loop", "grid-stride loop", terms)
    assert not uses_term("each thread adds its grid-stride slice", "stride", terms)
    assert uses_term("a grid-stride loop; the row stride is 80 bytes", "stride", terms)
