"""Stubs are generated from the solutions, carry no solution code, compile, and are never overwritten
once a student edited them."""
import shutil

import pytest

from grader import paths, stubs


SOLUTIONS = stubs.solutions()


def test_every_day_with_exercises_has_solutions():
    assert {s.parent.name for s in SOLUTIONS} >= {"day01", "day02"}


@pytest.mark.parametrize("solution", SOLUTIONS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_checked_in_stub_is_what_the_solution_generates(solution):
    stub = stubs.stub_path(solution)
    assert stub.is_file(), f"missing stub {stub}: run `python -m grader stubs`"
    assert stub.read_text() == stubs.render(solution), \
        f"{stub.relative_to(paths.ROOT)} is stale: run `python -m grader stubs`"
    assert stubs.status(stub) == "untouched"


@pytest.mark.parametrize("solution", SOLUTIONS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_stub_holds_no_solution_code(solution):
    stub_lines = {ln.strip() for ln in stubs.stub_path(solution).read_text().splitlines()}
    for region in stubs.regions(solution.read_text()):
        leaked = [ln.strip() for ln in region.code if ln.strip() in stub_lines and len(ln.strip()) > 3
                  and ln.strip() not in ("}", "{", "} else {") and not ln.strip().startswith("#pragma")]
        assert not leaked, f"solution code in the stub of {solution.name}: {leaked}"
        assert region.hints, f"{solution.name}:{region.start + 1}: an exercise region without hints"


def test_markers_are_checked():
    with pytest.raises(stubs.MarkerError, match="never closed"):
        stubs.regions("// BEGIN EXERCISE\nint x;\n")
    with pytest.raises(stubs.MarkerError, match="without BEGIN"):
        stubs.regions("int x;\n// END EXERCISE\n")
    with pytest.raises(stubs.MarkerError, match="no '// BEGIN EXERCISE' region"):
        stubs.regions("int x;\n")


def test_regeneration_keeps_student_edits(tmp_path, monkeypatch):
    shutil.copytree(paths.SOLUTIONS / "day01", tmp_path / "solutions/day01")
    monkeypatch.setattr(paths, "SOLUTIONS", tmp_path / "solutions")
    monkeypatch.setattr(paths, "DAYS", tmp_path / "days")
    monkeypatch.setattr(paths, "ROOT", tmp_path)
    assert {what for _, what in stubs.generate("day01")} == {"created"}
    assert {what for _, what in stubs.generate("day01")} == {"up to date"}

    stub = tmp_path / "days/day01/vector_add.cu"
    mine = stub.read_text() + "\n// my work\n"
    stub.write_text(mine)
    assert stubs.status(stub) == "edited"
    sol = tmp_path / "solutions/day01/vector_add.cu"
    sol.write_text(sol.read_text().replace("Day 1, exercise 1", "Day 1, exercise one"))

    results = dict(stubs.generate("day01", ask=lambda p: False))
    assert "kept your edits" in results[stub]
    assert stub.read_text() == mine, "a student's file was overwritten"
    assert (stub.parent / "vector_add.cu.new").read_text() == stubs.render(sol)

    results = dict(stubs.generate("day01", ask=lambda p: True))
    assert results[stub] == "regenerated" and stub.read_text() == stubs.render(sol)

    untouched = tmp_path / "days/day01/saxpy.cu"
    assert stubs.status(untouched) == "untouched"


# ---- what the student writes ---------------------------------------------------------------------

#: The lines of code the student writes (non-blank, non-comment lines of the exercise regions):
#: at least this many in the course, and on each of the heaviest days.
MIN_STUDENT_LINES = 1500
MIN_STUDENT_LINES_PER_DAY = {"day10": 120, "day11": 120, "day12": 120}


def _student_lines() -> dict[str, int]:
    per_day: dict[str, int] = {}
    for solution in SOLUTIONS:
        per_day[solution.parent.name] = per_day.get(solution.parent.name, 0) + stubs.student_lines(solution)
    return per_day


def test_students_write_the_cores():
    per_day = _student_lines()
    table = ", ".join(f"{d} {n}" for d, n in sorted(per_day.items()))
    assert sum(per_day.values()) >= MIN_STUDENT_LINES, f"{sum(per_day.values())} student lines: {table}"
    for day, least in MIN_STUDENT_LINES_PER_DAY.items():
        assert per_day.get(day, 0) >= least, f"{day}: {per_day.get(day, 0)} student lines, at least {least}"


def test_student_lines_count_code_only():
    text = ("// BEGIN EXERCISE\n// HINT: idea\n// HINT2: structure\n// a comment\n\nint x = 1;\n"
            "x += 2;\n// END EXERCISE\n")
    (region,) = stubs.regions(text)
    assert region.hints == ["idea"] and region.deeper == {2: ["structure"]}
    assert "HINT2" not in stubs.render_text(text, "t.cu") and "idea" in stubs.render_text(text, "t.cu")


@pytest.mark.parametrize("solution", SOLUTIONS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_hints_come_in_levels(solution):
    levels = {1} | {lv for r in stubs.regions(solution.read_text()) for lv in r.deeper}
    assert len(levels) >= 2, f"{solution.name}: hints of level 1 only; add `// HINT2:` (the structure) " \
                             f"or `// HINT3:` (the tricky part, explained) lines for `python -m grader hint`"


def test_python_exercises_use_hash_markers():
    text = ('def f(x):\n    """Doc."""\n    # BEGIN EXERCISE\n    # HINT: idea\n    # HINT2: structure\n'
            '    # STUB: raise NotImplementedError("f")\n    # a comment\n    return x + 1\n    # END EXERCISE\n')
    (region,) = stubs.regions(text, "t.py")
    assert region.comment == "#" and region.hints == ["idea"] and region.deeper == {2: ["structure"]}
    assert region.stub == ['    raise NotImplementedError("f")']
    stub = stubs.render_text(text, "solutions/day14/t.py")
    assert stub.startswith("# Your exercise file.") and "\n# stub-sha256: " in stub
    assert "    # TODO: your code here.\n    #   Hint: idea\n" in stub and "return x + 1" not in stub
    compile(stub, "t.py", "exec")


def test_regeneration_keeps_a_students_python_file(tmp_path, monkeypatch):
    (tmp_path / "solutions/day14").mkdir(parents=True)
    shutil.copy(paths.SOLUTIONS / "day14/binding.py", tmp_path / "solutions/day14/binding.py")
    monkeypatch.setattr(paths, "SOLUTIONS", tmp_path / "solutions")
    monkeypatch.setattr(paths, "DAYS", tmp_path / "days")
    monkeypatch.setattr(paths, "ROOT", tmp_path)
    assert dict(stubs.generate("day14")) == {tmp_path / "days/day14/binding.py": "created"}
    stub = tmp_path / "days/day14/binding.py"
    assert stubs.status(stub) == "untouched"
    stub.write_text(stub.read_text() + "\n# my work\n")
    assert stubs.status(stub) == "edited"
    mine = stub.read_text()
    assert "kept your edits" in dict(stubs.generate("day14", force=False))[stub]
    assert stub.read_text() == mine and (stub.parent / "binding.py.new").is_file()
