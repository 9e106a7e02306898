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
                  and ln.strip() not in ("}", "{", "} else {")]
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
