"""The Chinese lessons (instructor/notebooks/zh/dayNN.ipynb, the sources of notebooks/zh/) stay in step with the English ones: the same cells in
the same order, identical code (comments and docstrings aside: those are translated), the same nbgrader
metadata (grade ids, points, hidden tests), every prose cell and code comment translated, and the
glossary's terms (notebooks/zh/glossary.md) used. An edit to one language that the other does not get
fails here."""
import ast
import copy
import functools
import io
import re
import tokenize

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
# An English word in a comment: 2+ ASCII letters, lowercase or capitalized (so not SM, KiB, LSE), not part of an
# identifier, a number or a dotted name (sm_90, fp16, e4m3, mma.sync, __popc).
ENGLISH_WORD = re.compile(r"(?<![\w.])[A-Za-z][a-z]+(?!\w|\.\w)")
NBGRADER_MARKER = re.compile(r"### (BEGIN|END) (SOLUTION|HIDDEN TESTS)$")
# A grade cell's first line: what it grades and its points, in the lesson's language.
GRADE_LINE = {"en": re.compile(r"# Autograder test for \S.*?(\d+) points?\)"),
              "zh": re.compile(r"# 自动评分测试：\S.*?(\d+) 分）")}


def glossary() -> dict[str, str]:
    rows = re.findall(r"^\| ([^|]+?) \| ([^|]+?) \|$", GLOSSARY.read_text(), re.M)
    return {en: zh for en, zh in rows if en not in ("English", "---")}


def _docstring_starts(python: str) -> set[tuple[int, int]]:
    """Where each docstring (module, class, function) of a cell's Python starts: (line, column)."""
    starts = set()
    for node in ast.walk(ast.parse(python)):
        body = getattr(node, "body", None)
        if (isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and body
                and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)):
            starts.add((body[0].lineno, body[0].col_offset))
    return starts


def split_cell(source: str) -> tuple[list[tuple[int, str]], list[str]]:
    """A code cell's code as (type, text) tokens, and apart from it its comments and docstrings: the code must
    be the same in both languages, the rest is translated. Blank and comment-only lines are not code. IPython
    magics (`%`, `%%`, `!`) are first made Python as IPython makes them, so a magic's line is code whole; a cell
    that is still not Python is code whole."""
    from IPython.core.inputtransformer2 import TransformerManager  # Jupyter's own reading of a cell

    python = TransformerManager().transform_cell(source)
    try:
        docstrings = _docstring_starts(python)
        tokens = list(tokenize.generate_tokens(io.StringIO(python).readline))
    except (SyntaxError, tokenize.TokenError):
        return [(-1, source)], []
    code, prose, in_docstring = [], [], False
    for tok in tokens:
        in_docstring = tok.type == tokenize.STRING and (in_docstring or tok.start in docstrings)
        if tok.type == tokenize.COMMENT or in_docstring:
            prose.append(tok.string)
        elif tok.type != tokenize.NL:
            code.append((tok.type, "\n" if tok.type == tokenize.NEWLINE else tok.string))
    return code, prose


def english_only(comment: str) -> bool:
    """Whether a comment (or docstring) is English left untranslated: no Chinese character, and an English word
    outside `backticks` (see ENGLISH_WORD: identifiers, units, numbers and code are not words). nbgrader's
    markers are syntax, not prose."""
    if CJK.search(comment) or NBGRADER_MARKER.match(comment.strip()):
        return False
    return bool(ENGLISH_WORD.search(CODE_SPAN.sub(" ", comment)))


def english_comments(notebook) -> list[str]:
    """Each code cell's comment or docstring left in English, as 'cell N: text'."""
    return [f"cell {i}: {text!r}" for i, cell in enumerate(notebook.cells) if cell.cell_type == "code"
            for text in split_cell(cell.source)[1] if english_only(text)]


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
        if a.cell_type == "code" and split_cell(a.source)[0] != split_cell(b.source)[0]:
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


@pytest.mark.parametrize("folder", [ZH, paths.NOTEBOOKS / "zh"], ids=["instructor", "student"])
@pytest.mark.parametrize("day", [en.stem for en, _ in PAIRS])
def test_code_comments_are_translated(folder, day):
    assert english_comments(nbformat.read(folder / f"{day}.ipynb", as_version=4)) == []


def test_grade_cells_open_with_a_line_in_the_lessons_language(pair):
    """Each grade cell's first line names what it grades and its points: in English, or in Chinese."""
    for lang, notebook in zip(("en", "zh"), pair):
        for cell in notebook.cells:
            meta = cell.get("metadata", {}).get("nbgrader", {})
            if meta.get("grade") and cell.cell_type == "code":
                first = cell.source.splitlines()[0]
                found = GRADE_LINE[lang].match(first)
                assert found and int(found[1]) == meta["points"], f"{meta['grade_id']} ({lang}): {first!r}"


def test_comments_and_docstrings_may_differ_but_not_the_code():
    en = 'def f(x):\n    """Twice x."""\n    return 2 * x  # doubled\n%time f(3)\ns = "# not a comment"\n'
    zh = 'def f(x):\n    """x 的两倍。"""\n    # 多出的一行注释\n    return 2 * x  # 翻倍\n%time f(3)\ns = "# not a comment"\n'
    assert split_cell(en)[0] == split_cell(zh)[0]
    assert split_cell(zh)[1] == ['"""x 的两倍。"""', "# 多出的一行注释", "# 翻倍"]
    for changed in ("3 * x", "%time f(4)", "%timeit f(3)", '"# 不是注释"', 'def g(x)', '"""x"""\n    pass'):
        original = {"3 * x": "2 * x", "%time f(4)": "%time f(3)", "%timeit f(3)": "%time f(3)",
                    '"# 不是注释"': '"# not a comment"', "def g(x)": "def f(x)", '"""x"""\n    pass': '"""x 的两倍。"""'}
        assert split_cell(en)[0] != split_cell(zh.replace(original[changed], changed))[0], changed
    assert split_cell("def f(:\n") == ([(-1, "def f(:\n")], [])  # not Python: compared whole


def test_english_only_comments():
    for english in ("# nvdisasm not installed", "# 256 KiB to 1 GiB", "# H100 (sm_90), per SM", '"""Twice x."""',
                    "# cupy's kernel cache", "# Autograder test for saxpy.cu (2 points): your kernel."):
        assert english_only(english), english
    for fine in ("# 未安装 nvdisasm", "# __popc", "# torch.ops.course.rmsnorm", "# sm_90, fp16, e4m3, 256 KiB, LSE",
                 "# `python -m grader profile day14`", "### BEGIN HIDDEN TESTS", "# d = 5: x[:, :5]", "# 即 mma.sync"):
        assert not english_only(fine), fine


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
