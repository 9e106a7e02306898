"""The course's versions of the days' exercises stay out of the headers a student reads before solving:
kernels/include holds no line of a solution's exercise region; those versions live per day in
solutions/include (kernels/unlocked in a student edition), a course header of a later day includes
them, and where that day is not unlocked a call fails to compile with one line naming the day and the
command (`grader unlock`)."""
from __future__ import annotations

import re
import subprocess
import sys

import pytest

from grader import cli, compiler, paths, stubs, unlock


def _norm(line: str) -> str:
    return " ".join(re.findall(r"[A-Za-z_]\w*|\d+\.?\d*f?|\S", line.split("//")[0]))


def _answer_lines() -> dict[str, set[str]]:
    """{solution: its exercise regions' code lines of 6 tokens or more that its own stub does not hold}."""
    found = {}
    for solution in stubs.solutions():
        stub = stubs.stub_path(solution)
        given = {_norm(line) for line in stub.read_text().splitlines()} if stub.is_file() else set()
        lines = {_norm(line) for r in stubs.regions(solution.read_text(), str(solution)) for line in r.code
                 if not line.strip().startswith(r.comment)}
        found[str(solution.relative_to(paths.ROOT))] = {n for n in lines if len(n.split()) >= 6} - given
    return found


def test_no_exercise_answer_line_in_the_course_headers():
    answers = _answer_lines()
    leaks = []
    for header in sorted(paths.INCLUDE.rglob("*.cuh")):
        text = {_norm(line) for line in header.read_text().splitlines()}
        leaks += [f"{header.relative_to(paths.ROOT)}: {line} ({solution})"
                  for solution, lines in answers.items() for line in sorted(lines & text)]
    assert not leaks, "\n".join(leaks)


def test_the_answer_headers_are_laid_out_per_day():
    days = sorted(d.name for d in paths.SOLUTION_INCLUDE.iterdir())
    assert days and all(re.fullmatch(r"day\d\d", d) for d in days), days
    assert paths.answer_include() == paths.SOLUTION_INCLUDE  # the instructor's repository grades with them
    assert paths.SOLUTION_INCLUDE in compiler.include_dirs()


def test_a_header_the_student_writes_is_the_one_source_of_its_answer_header():
    """solutions/dayNN/x.cuh (the header a student writes, which later days build on) is the source of
    both the stub days/dayNN/x.cuh and the course's version solutions/include/dayNN/x.cuh."""
    own = [s for s in stubs.solutions() if stubs.answer_header(s) is not None]
    assert {s.parent.name for s in own} >= {"day07", "day08", "day09", "day11", "day15"}, own
    stale = [str(s) for s in own if stubs.answer_header(s).read_text() != stubs.render_answer(s)]
    assert not stale, f"regenerate with python -m grader stubs: {stale}"
    released = stubs.render_answer(paths.SOLUTIONS / "day07" / "cp_async.cuh")
    assert "EXERCISE" not in released and "HINT" not in released and "cp.async.commit_group" in released


LATER_DAY = "#include <course/math.cuh>\n" \
            "extern \"C\" __global__ void k(float* x) { x[0] = course::math::ptx_exp2(x[0]); }\n"


def test_a_later_day_without_the_earlier_days_headers_says_which_day_in_one_line(tmp_path, monkeypatch):
    source = tmp_path / "later.cu"
    source.write_text(LATER_DAY)
    compiler.compile_file(source)  # with the course's headers: compiles
    monkeypatch.setattr(paths, "SOLUTION_INCLUDE", tmp_path / "none")  # a student edition, day 3 locked
    monkeypatch.setattr(paths, "UNLOCKED", tmp_path / "unlocked")
    with pytest.raises(compiler.CompileError) as e:
        compiler.compile_file(source)
    first = str(e.value).splitlines()[0]
    assert "course::math::ptx_exp2" in first and "day03" in first and "python -m grader unlock day03" in first
    (tmp_path / "unlocked" / "day03").mkdir(parents=True)  # unlocked: the course's version is used
    (tmp_path / "unlocked" / "day03" / "ptx_math.cuh").write_bytes(
        (paths.ROOT / "solutions" / "include" / "day03" / "ptx_math.cuh").read_bytes())
    compiler.compile_file(source)


def test_a_student_file_may_not_include_an_answer_header(tmp_path):
    source = tmp_path / "mine.cu"
    source.write_text("#include <day09/mma.cuh>\nextern \"C\" __global__ void k() {}\n")
    with pytest.raises(compiler.CompileError, match="come through its headers"):
        compiler.compile_file(source)


def test_unlock_in_the_full_course_records_it(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(paths, "STATE", tmp_path)
    assert "already compiles later days" in unlock.unlock("day03")
    assert "day03" in unlock.unlocked()
    assert cli.main(["progress"]) == 0
    said = {line.split()[0]: line for line in capsys.readouterr().out.splitlines()}
    assert "course headers unlocked" in said["day03"] and "unlocked" not in said["day05"]
    with pytest.raises(ValueError, match="nothing to unlock"):
        unlock.unlock("day01")


def test_unlock_in_an_edition_copies_the_handed_out_folder_asking_before_overwriting(tmp_path, monkeypatch):
    monkeypatch.setattr(paths, "STATE", tmp_path / "state")
    monkeypatch.setattr(paths, "SOLUTION_INCLUDE", tmp_path / "none")
    monkeypatch.setattr(paths, "UNLOCKED", tmp_path / "unlocked")
    monkeypatch.setattr(paths, "ROOT", tmp_path)
    with pytest.raises(ValueError, match="--from DIR"):
        unlock.unlock("day03")
    handed = tmp_path / "handed"
    (handed / "day03").mkdir(parents=True)
    (handed / "day03" / "ptx_math.cuh").write_text("// the course's\n")
    with pytest.raises(ValueError, match="holds no headers of day08"):
        unlock.unlock("day08", handed)
    assert "1 headers" in unlock.unlock("day03", handed)
    mine = tmp_path / "unlocked" / "day03" / "ptx_math.cuh"
    assert mine.read_text() == "// the course's\n" and "day03" in unlock.unlocked()
    mine.write_text("// changed\n")
    assert "nothing changed" in unlock.unlock("day03", handed, ask=lambda q: "n")
    assert mine.read_text() == "// changed\n"
    unlock.unlock("day03", handed, ask=lambda q: "y")
    assert mine.read_text() == "// the course's\n"


def test_unlock_bad_input_is_one_line():
    done = subprocess.run([sys.executable, "-m", "grader", "unlock", "day99"], cwd=paths.ROOT,
                          capture_output=True, text=True)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
