"""The student edition (grader/student_edition.py): what a class hands students holds no solutions/, no
instructor notebook, no hidden test and none of the course's own tests, and what a student runs works in
it without them: a fresh edition of day 2, run by its own grader on the emulator (no GPU), fails on its
stubs and passes with the solutions' kernels copied in."""
import json
import os
import re
import shutil
import subprocess
import sys

import pytest

from grader import paths
from grader import student_edition as se

DAY = "day02"
#: Days the edition releases: day 1 (no course headers) and the first day with course headers, if any.
HEADERS = sorted(p.name for p in (paths.SOLUTIONS / "include").glob("day[0-9][0-9]") if p.is_dir())[:1]
UNLOCKED = ["day01", *HEADERS]


def _run(edition, *args, timeout=300):
    """`python *args` in the edition, importing the edition's grader (never this checkout's)."""
    env = {k: v for k, v in os.environ.items() if k not in (paths.KERNELS_ENV, paths.SOURCE_DIR_ENV)}
    env.update(PYTHONPATH=str(edition), COURSE_BACKEND="emulator")
    return subprocess.run([sys.executable, *args], cwd=edition, env=env, capture_output=True, text=True,
                          timeout=timeout)


@pytest.fixture(scope="module")
def edition(tmp_path_factory):
    out = tmp_path_factory.mktemp("edition") / "class"
    done = se.build(out, [DAY], lang="en", unlocked=UNLOCKED)
    assert done["days"] == [DAY] and done["notebooks"] == 1
    assert done["unlocked"] == HEADERS and done["nothing_to_unlock"] == ["day01"]
    return out


def test_the_whole_course_edition_leaves_out_answers_and_the_course_own_tests():
    files = se.selected(se.tracked(), [f"day{n:02d}" for n in range(1, 17)], se.LANGS["both"])
    assert files and "grader/cli.py" in files and "days/day16/test_day16.py" in files
    tops = {f.split("/")[0] for f in files}
    assert not tops & {"solutions", "instructor", "tests", ".ci", "docs"}, tops
    assert not [f for f in files if f.startswith("notebooks/") and f.endswith(".ipynb")]  # rendered afresh
    marked = [f for f in files if not (f.startswith("grader/") and f.endswith(".py"))
              and any(m in (paths.ROOT / f).read_text(errors="replace") for m in se.MARKERS)]
    assert marked == []


def test_the_day2_edition_holds_what_a_student_needs_and_no_answer(edition):
    names = {p.relative_to(edition).as_posix() for p in edition.rglob("*") if p.is_file()}
    for needed in ("pyproject.toml", "constraints.txt", "course.sh", "conftest.py", "README.md", "README.zh.md",
                   "grader/cli.py", "grader/data/solution_facts.json", "days/day02/test_day02.py",
                   "days/day02/silu_and_mul.cu", "notebooks/day02.ipynb", "kernels/include/course/common.cuh",
                   "lab/student/jupyter_server_config.json"):
        assert needed in names, needed
    assert not [n for n in names if n.split("/")[0] in ("solutions", "instructor", "tests", ".ci", "docs", ".venv")]
    assert {n.split("/")[1] for n in names if n.startswith("days/")} == {"day01", DAY}  # up to the last day
    assert [n for n in names if n.startswith("notebooks/")] == ["notebooks/day02.ipynb"]
    assert not [n for n in names if n.startswith("notebooks/zh")]  # --lang en
    assert se._leaks(edition) == []
    for name in ("silu_and_mul.cu", "quant_int8.cu", "strided_gather.cu"):
        assert (edition / "days" / DAY / name).read_bytes() != (paths.SOLUTIONS / DAY / name).read_bytes()
    for day in HEADERS:  # released: the course's headers of that day, as the compiler's include root wants
        given = sorted(p.relative_to(paths.SOLUTIONS / "include").as_posix()
                       for p in (paths.SOLUTIONS / "include" / day).rglob("*") if p.is_file())
        assert given and all((edition / "kernels" / "unlocked" / g).read_bytes()
                             == (paths.SOLUTIONS / "include" / g).read_bytes() for g in given)


def test_the_edition_fails_on_its_stubs_and_passes_with_the_solutions(edition, tmp_path):
    where = _run(edition, "-c", "from grader import paths; print(paths.ROOT)")
    assert where.stdout.strip() == str(edition), where.stderr
    stubs = _run(edition, "-m", "pytest", f"days/{DAY}", "-q", "-n", "0", "-p", "no:cacheprovider")
    summary = stubs.stdout.strip().splitlines()[-1]
    assert stubs.returncode == 1 and re.match(r"\d+ failed, \d+ skipped in", summary), stubs.stdout[-2000:]
    solved = tmp_path / "solved"
    shutil.copytree(edition, solved)
    for kernel in (paths.SOLUTIONS / DAY).glob("*.cu"):
        shutil.copy(kernel, solved / "days" / DAY / kernel.name)
    passed = _run(solved, "-m", "pytest", f"days/{DAY}", "-q", "-n", "0", "-p", "no:cacheprovider")
    summary = passed.stdout.strip().splitlines()[-1]
    assert passed.returncode == 0 and re.match(r"\d+ passed, \d+ skipped in", summary), passed.stdout[-2000:]


def test_hints_work_and_instructor_features_say_so_in_one_line(edition):
    hint = _run(edition, "-m", "grader", "hint", DAY, "silu_and_mul", "--level", "2")
    assert hint.returncode == 0 and "[2]" in hint.stdout, hint.stderr
    solutions = _run(edition, "-m", "pytest", f"days/{DAY}", "--solutions", "-q", "-p", "no:cacheprovider")
    assert solutions.returncode != 0 and "instructor feature" in solutions.stderr + solutions.stdout
    assert "Traceback" not in solutions.stderr
    locked = _run(edition, "-m", "grader", "answer", DAY, "1")  # not released
    assert locked.returncode == 2 and "not in this student edition" in locked.stderr, locked.stderr
    assert len(locked.stderr.strip().splitlines()) == 1
    facts = json.loads((edition / "grader" / "data" / "solution_facts.json").read_text())
    assert sorted(facts["answers"]) == UNLOCKED and facts["answers"]["day01"]["en"]["1"]  # released


def test_a_folder_that_is_not_empty_is_refused_in_one_line(tmp_path):
    (tmp_path / "work.cu").write_text("// a student's work\n")
    done = subprocess.run([sys.executable, "-m", "grader", "student-edition", str(tmp_path), DAY],
                          cwd=paths.ROOT, capture_output=True, text=True)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1 and "--force" in done.stderr
    assert (tmp_path / "work.cu").read_text() == "// a student's work\n"
    bad = subprocess.run([sys.executable, "-m", "grader", "student-edition", str(tmp_path / "new"), "day99"],
                         cwd=paths.ROOT, capture_output=True, text=True)
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1, bad.stderr


WARP_REDUCE_POOLED = r"""#include <course/math.cuh>
extern "C" __global__ void warp_reduce(const float* __restrict__ x, float* __restrict__ sums,
                                       float* __restrict__ maxes, float* __restrict__ all_lanes, int n) {
  const int64_t g = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  if (g * 32 >= n) return;
  float s = 0.f, m = -course::math::inf;
  for (int j = 0; j < 32 && g * 32 + j < n; ++j) { const float v = x[g * 32 + j]; s += v; m = fmaxf(m, v); }
  sums[g] = s; maxes[g] = m; all_lanes[0] = s;
}
extern "C" __global__ void decoy(float* v_) {
  float v = v_[threadIdx.x], r;
  asm volatile("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=f"(r) : "f"(v), "r"(1));
  v_[threadIdx.x] = r;
}
"""


def test_the_technique_facts_grade_each_kernel_as_the_solution_does(tmp_path):
    """An edition grades the technique kernel by kernel from the facts its build computed, as the full
    course does from the solution: an unused kernel holding the shuffles counts for nothing."""
    from grader import exercises, technique

    ex = exercises.get("day03", "warp_reduce")
    solution = paths.SOLUTIONS / ex.day / ex.source
    decoy = tmp_path / ex.source
    decoy.write_text(WARP_REDUCE_POOLED)
    facts = technique.reference_facts(solution, ex.technique)
    from_facts = technique.problems(decoy, ex.technique, facts)
    assert from_facts == technique.problems(decoy, ex.technique, solution)
    assert from_facts and "SHFL.BFLY" in from_facts[0] and "warp_reduce" in from_facts[0]
    assert technique.problems(solution, ex.technique, facts) == []
    assert se.facts_of(["day03"])["technique"]["day03/warp_reduce.cu"] == facts


def test_the_sandbox_hides_only_what_there_is(tmp_path, monkeypatch):
    """Without solutions/ and instructor/ (a student edition) a Python exercise's sandbox still starts:
    it hides the folders there are (day 14's exercises ended with status 70 before)."""
    from grader import sandbox

    monkeypatch.setattr(paths, "SOLUTIONS", tmp_path / "solutions")
    monkeypatch.setattr(paths, "INSTRUCTOR_NOTEBOOKS", tmp_path / "instructor" / "notebooks")
    for before in (None, "day14"):
        assert all(p.is_dir() for p in sandbox._hidden_in_checkout(before))
        assert not [p for p in sandbox._hidden_in_checkout(before) if p.is_relative_to(tmp_path)]


LATER_EXERCISE = r"""#include <course/cp_async.cuh>
extern "C" __global__ void later(const float* g, float* out) {
  __shared__ __align__(16) float s[4];
  course::cp_async::load_128b(s, g);
  course::cp_async::wait_all();
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x];
}
"""


def test_a_later_exercise_builds_on_the_student_own_header_until_the_day_is_released(tmp_path, monkeypatch):
    """Day 7's exercise 1 is written in a header of the student's own (days/day07/cp_async.cuh): where
    the course's version is absent (an edition, day 7 not released) course/cp_async.cuh builds on that
    one, and a released version wins over it."""
    from grader import compiler

    later = tmp_path / "later.cu"
    later.write_text(LATER_EXERCISE)
    for name, where in (("SOLUTION_INCLUDE", "none"), ("UNLOCKED", "unlocked"), ("OWN_INCLUDE", "days")):
        monkeypatch.setattr(paths, name, tmp_path / where)
    with pytest.raises(compiler.CompileError, match="python -m grader unlock day07"):  # nothing of day 7 yet
        compiler.compile_file(later, "sm_80")
    own = tmp_path / "days" / "day07" / "cp_async.cuh"
    own.parent.mkdir(parents=True)
    own.write_text((paths.SOLUTIONS / "day07" / "cp_async.cuh").read_text())  # the student solved exercise 1
    ptx = compiler.compile_file(later, "sm_80").ptx
    assert "cp.async.cg.shared.global" in ptx and "cp.async.wait_group 0;" in ptx
    before = compiler.read_source(later)  # cupy's cache key: an edit of the student's header changes it
    own.write_text(own.read_text().replace("COURSE_INLINE void commit_group() {", "COURSE_INLINE void commit_group() { oops;"))
    assert compiler.read_source(later) != before
    with pytest.raises(compiler.CompileError) as e:  # the student's own mistake, in the student's own file
        compiler.compile_file(later, "sm_80")
    assert "cp_async.cuh(" in str(e.value) and "oops" in str(e.value) and "unlock" not in str(e.value)
    released = tmp_path / "unlocked" / "day07"
    released.mkdir(parents=True)
    shutil.copy(paths.ROOT / "solutions" / "include" / "day07" / "cp_async.cuh", released)
    assert "cp.async.cg.shared.global" in compiler.compile_file(later, "sm_80").ptx  # the course's wins
    assert compiler.own_stand_ins() == []


def test_a_day7_edition_grades_exercise_2_on_the_student_own_exercise_1(tmp_path):
    """In a fresh edition of day 7 (day 7 not released), exercise 2 (double_buffer.cu) compiles against
    the student's cp_async.cuh: it passes with the solutions' files copied in, and fails on the stubs
    with its checks' message, not a lock."""
    out = tmp_path / "class"
    se.build(out, ["day07"], lang="en")
    assert (out / "days" / "day07" / "cp_async.cuh").is_file() and not (out / "kernels" / "unlocked").exists()
    args = ("-m", "pytest", "days/day07", "-q", "-n", "0", "-p", "no:cacheprovider", "-k", "double_buffer and not bench")
    stubs = _run(out, *args)
    assert stubs.returncode == 1 and "not unlocked" not in stubs.stdout and "LDGSTS" in stubs.stdout, stubs.stdout[-2000:]
    for name in ("cp_async.cuh", "double_buffer.cu"):
        shutil.copy(paths.SOLUTIONS / "day07" / name, out / "days" / "day07" / name)
    passed = _run(out, *args)
    assert passed.returncode == 0 and re.search(r"\d+ passed", passed.stdout), passed.stdout[-2000:]


LATER_EXERCISES = [  # (day, the student's header, a later exercise of the day, what its PTX must show,
    # the earlier days an instructor released)
    ("day08", "scan.cuh", "compact.cu", "sm_80", ("st.release.gpu.global.u64", "ld.acquire.gpu.global.u64"), ()),
    ("day09", "mma.cuh", "block_tile.cu", "sm_80", ("ldmatrix.sync.aligned.m8n8.x4.trans", "mma.sync.aligned.m16n8k16"),
     ()),
    ("day11", "state.cuh", "decode_attention.cu", "sm_80", ("ex2.approx", "cp.async"), ("day03", "day07")),
    ("day15", "tma.cuh", "gemm_wgmma.cu", "sm_90", ("mbarrier.try_wait.parity", "cp.async.bulk.tensor.2d"), ()),
]


@pytest.mark.parametrize("day,header,later,arch,shows,released", LATER_EXERCISES,
                         ids=[d for d, *_ in LATER_EXERCISES])
def test_a_later_exercise_of_days_8_9_11_15_builds_on_the_student_own_header(tmp_path, monkeypatch, day, header,
                                                                             later, arch, shows, released):
    """The same for days 8, 9, 11 and 15: a later exercise compiles on the student's days/dayNN header."""
    from grader import compiler

    source = paths.SOLUTIONS / day / later
    for name, where in (("SOLUTION_INCLUDE", "none"), ("UNLOCKED", "unlocked"), ("OWN_INCLUDE", "days")):
        monkeypatch.setattr(paths, name, tmp_path / where)
    for earlier in released:  # other days' headers, as an instructor hands them out
        shutil.copytree(paths.ROOT / "solutions" / "include" / earlier, tmp_path / "unlocked" / earlier)
    with pytest.raises(compiler.CompileError, match=f"python -m grader unlock {day}"):
        compiler.compile_file(source, arch)
    own = tmp_path / "days" / day / header
    own.parent.mkdir(parents=True)
    own.write_text((paths.SOLUTIONS / day / header).read_text())
    ptx = compiler.compile_file(source, arch).ptx
    assert all(s in ptx for s in shows), [s for s in shows if s not in ptx]
