"""The hints in Chinese: every English hint of the solutions (`// HINT:`, `HINT2:`, `HINT3:`) has exactly
one current translation in notebooks/zh/hints/dayNN.json, none is stale or orphaned, the translations
use the glossary's terms, and `python -m grader hint ... --lang zh` prints them."""
import json
import re
import shutil

import pytest

from grader import cli, exercises, hints, notebook, paths
from test_notebooks_zh import CJK, glossary, uses_term

DAYS = exercises.days_with_exercises()
OP = r"[=*+<>\[\]&|%^!~/]"
C_WORDS = r"const|unsigned|long|int|float|double|void|bool|return|asm|volatile|constexpr|static_cast"
#: Code in a hint: `spans`, C words, CONSTANTS, a.member, ns::name, calls(, words beside an operator (i * stride).
CODE = re.compile(rf"`[^`]*`|\b(?:{C_WORDS})\b|\b[A-Z][A-Z0-9_]+\b|\w+(?:\.|::|->)\w+|\w+(?=\()"
                  rf"|(?<={OP})\s?\w+|\w+(?=\s?{OP})")
SHAPE = re.compile(r"\b\d+ ?x ?\d+ (\w+)")  # a "16 x 16 block" is part of a matrix, not a thread block
PHRASE = re.compile(r"\b[A-Za-z]{2,} [A-Za-z]{2,} [A-Za-z]{2,}\b")  # three words in a row: prose


def prose(lines: list[str]) -> str:
    """A hint's words: its code left out, and the lines that are only code; a noun given a shape
    ("the 16 x 16 block") is left out, also where the hint names it again ("the block")."""
    text = "\n".join(lines)
    for noun in set(SHAPE.findall(text)):
        text = re.sub(rf"\bthe {noun}\b", " ", text)
    masked = (CODE.sub(" ", SHAPE.sub(" ", line)) for line in text.splitlines())
    return " ".join(line for line in masked if PHRASE.search(line))


def units(day):
    """(source, part, level, English lines, Chinese lines or None) for every hint of a day."""
    zh = hints.chinese(day)
    for src in sorted({ex.source for ex in exercises.day_exercises(day)}):
        done = zh.get(src, [])
        for i, part in enumerate(hints.english(day, src)):
            for level, lines in part.items():
                entry = done[i].get(str(level)) if i < len(done) else None
                yield src, i + 1, level, lines, entry and entry["zh"]


@pytest.mark.parametrize("day", DAYS)
def test_every_hint_has_one_current_translation(day):
    problems = hints.translation_problems(day)
    assert not problems, "\n".join(problems)


def glossary_misses(day) -> list[str]:
    """The hints whose English uses a glossary term and whose Chinese lacks its Chinese term."""
    terms = glossary()
    return [f"{src} part {part} level {level}: {term} -> {terms[term]}"
            for src, part, level, en, zh in units(day) if zh for words in [prose(en)]
            for term in terms if uses_term(words, term, terms) and terms[term] not in "".join(zh)]


@pytest.mark.parametrize("day", DAYS)
def test_chinese_hints_use_the_glossary(day):
    missing = glossary_misses(day)
    assert not missing, "\n".join(missing)


@pytest.mark.parametrize("day", DAYS)
def test_chinese_hints_are_chinese(day):
    untranslated = [f"{src} part {part} level {level}" for src, part, level, en, zh in units(day)
                    if zh and prose(en) and not CJK.search("".join(zh))]
    assert not untranslated, f"hints with English prose and no Chinese: {untranslated}"


def test_code_is_not_prose():
    words = re.findall(r"\w+", prose(["i * stride can exceed 2^31; the row stride is 80"]))
    assert words == ["can", "exceed", "the", "row", "stride", "is", "80"]
    assert "warp" not in prose(["v = smem[warp]; the BLOCK threads of course::warp_sum(v) add"])
    assert prose(["if (threadIdx.x == 0) tile = atomicAdd(counter, 1u); return tile;"]) == ""
    assert "block" not in prose(["one load per 16 x 16 block: lane l points at", "row l % 16 of the block"])
    assert "block" in prose(["one load per 16 x 16 tile: lane l points at", "row l % 16 of the block"])


@pytest.fixture
def planted(tmp_path, monkeypatch):
    """A copy of day01's translations to plant errors in; hints read it instead of the course's."""
    monkeypatch.setattr(hints, "ZH_HINTS", tmp_path)
    shutil.copy(paths.NOTEBOOKS / "zh" / "hints" / "day01.json", tmp_path)
    path = tmp_path / "day01.json"
    return path, json.loads(path.read_text(encoding="utf-8"))


def _write(path, data):
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")


def test_stale_missing_and_orphaned_translations_are_named(planted):
    path, data = planted
    assert hints.translation_problems("day01") == []
    data["vector_add.cu"][0]["2"]["en_hash"] = "00000000"              # the English changed since
    del data["saxpy.cu"][0]["3"]                                   # never translated
    data["read_sum.cu"][0]["4"] = {"en_hash": "1", "zh": ["孤立"]}       # no such level
    data["read_sum.cu"].append({"1": {"en_hash": "1", "zh": ["孤立"]}})   # no such part
    data["gone.cu"] = []                                           # no such exercise file
    _write(path, data)
    problems = "\n".join(hints.translation_problems("day01"))
    assert "vector_add.cu part 1 level 2: stale (en_hash 00000000), the English is now (en_hash " in problems
    assert "saxpy.cu part 1 level 3: no translation of the English (en_hash " in problems
    assert "read_sum.cu part 1 level 4: no such English hint" in problems
    assert "read_sum.cu has 2 parts, the solution 1" in problems
    assert "gone.cu has no such exercise file" in problems


def test_a_translation_without_the_glossary_term_is_named(planted):
    path, data = planted
    entry = data["thread_info.cu"][0]["3"]
    entry["zh"] = [line.replace("线程束 (warp)", "warp").replace("线程束", "warp") for line in entry["zh"]]
    _write(path, data)
    assert glossary_misses("day01") == ["thread_info.cu part 1 level 3: warp -> 线程束"]


def test_a_translation_given_twice_is_refused(planted):
    path, _ = planted
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace('"saxpy.cu": [', '"saxpy.cu": [], "saxpy.cu": [', 1), encoding="utf-8")
    with pytest.raises(ValueError, match=r"day01.json: a key appears twice: \['saxpy.cu'\]"):
        hints.translation_problems("day01")


def test_a_stale_translation_shows_the_english(planted):
    path, data = planted
    data["vector_add.cu"][0]["1"]["en_hash"] = "00000000"
    _write(path, data)
    (lines,) = hints.hints("day01", "vector_add", 1, "zh")
    assert [t for _, t in lines] == [hints.TEXT["zh"]["untranslated"], *hints.english("day01", "vector_add.cu")[0][1]]


def _hint(capsys, monkeypatch, tmp_path, *argv):
    monkeypatch.setattr(paths, "STATE", tmp_path)  # the level used is recorded here
    assert cli.main(["hint", "day01", "vector_add", "--level", "3", *argv]) == 0
    return capsys.readouterr().out


def test_the_command_prints_chinese(capsys, monkeypatch, tmp_path):
    monkeypatch.delenv(notebook.LANG_ENV, raising=False)
    zh = hints.chinese("day01")["vector_add.cu"][0]
    out = _hint(capsys, monkeypatch, tmp_path, "--lang", "zh")
    assert all(line in out for lv in "123" for line in zh[lv]["zh"])
    assert "难点讲解" in out and "what must the threads of the last block do" not in out
    assert "what must the threads of the last block do" in _hint(capsys, monkeypatch, tmp_path, "--lang", "en")
    assert "what must the threads of the last block do" in _hint(capsys, monkeypatch, tmp_path)  # en by default


def test_the_language_defaults_to_course_lang(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv(notebook.LANG_ENV, "zh")
    assert hints.chinese("day01")["vector_add.cu"][0]["1"]["zh"][0] in _hint(capsys, monkeypatch, tmp_path)
    assert "what must the threads of the last block do" in _hint(capsys, monkeypatch, tmp_path, "--lang", "en")


def test_the_level_used_is_recorded(capsys, monkeypatch, tmp_path):
    _hint(capsys, monkeypatch, tmp_path, "--lang", "zh")
    assert hints.levels_used() == {"day01/vector_add": 3}
    (tmp_path / "progress.json").write_text("{}")  # the test results' file is another concern's
    assert hints.levels_used() == {"day01/vector_add": 3}
