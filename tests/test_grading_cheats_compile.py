"""Cheats on what the grader compiles and reads (issue 29): includes hidden from a line-based check,
a secret file's text carried into a compile error, hidden tests printed in an escaped form, a second
kernel holding the technique, and indices that are right only below 2^24.

Each attack goes through grader.isolation.run_exercise, the path nbgrader autograde and grade-class
take, and must score below full marks or be refused with a one-line reason; honest variants keep
full marks. No GPU needed (the emulator runs the kernels; the checks on the source, the SASS and the
PTX are the same on a GPU).
"""
from __future__ import annotations

import base64
import html
import json

import pytest

from grader import exercises, includes, isolation, paths, technique

DAY = "day01"
SOLUTION = (paths.SOLUTIONS / DAY / "vector_add.cu").read_text()
KERNEL = SOLUTION[SOLUTION.index('extern "C"'):]
MARK = "SECRET_MARK_3f9a"
SMALL = [{"n": 1000}, {"n": 33}]


@pytest.fixture
def secret(tmp_path):
    """A file the grading user can read and a student must never see: its path."""
    path = tmp_path / "elsewhere" / "answers.txt"
    path.parent.mkdir()
    path.write_text(f"{MARK} the first line\nint {MARK}_two = 2;\n")
    return path


def _grade(tmp_path, text: str, day=DAY, name="vector_add", cases=SMALL, files=None):
    ex = exercises.get(day, name)
    folder = tmp_path / "submission"
    folder.mkdir(exist_ok=True)
    (folder / ex.source).write_text(text)
    for other, content in (files or {}).items():
        (folder / other).write_text(content)
    return isolation.run_exercise(day, name, cases, source_dir=str(folder))


def _refused(outcome, why: str) -> None:
    """Refused before any case ran, the reason on the message's first line, nothing of the secret."""
    assert outcome.status == "failed" and outcome.passed == 0, outcome
    assert why in outcome.message.splitlines()[0], outcome.message
    assert MARK not in outcome.message and MARK not in outcome.output


# ---- A: includes, decided on what the preprocessor sees -----------------------------------------

HIDDEN = {  # each was invisible to the line-based regex, but not to NVRTC 13
    "comment before the #": '/* x */#include "{p}"\n',
    "comment after the #": '#/* x */include "{p}"\n',
    "form feed": '#\finclude "{p}"\n',
    "vertical tab": '\v#\vinclude "{p}"\n',
    "line splice": '#inc\\\nlude "{p}"\n',
    "digraph and comment": '%:/**/include "{p}"\n',
    "inside a macro argument, stringized": '#define S(x) #x\nstatic_assert(false, S(\n/**/#include "{p}"\n));\n',
    "comment before the name": '#include /* x */ "{p}"\n',
}


@pytest.mark.parametrize("form", list(HIDDEN))
def test_a_hidden_include_of_another_file_is_refused(tmp_path, secret, form):
    outcome = _grade(tmp_path, HIDDEN[form].format(p=secret) + SOLUTION)
    _refused(outcome, "is not allowed")


def test_a_hidden_include_of_the_solution_is_refused(tmp_path):
    """The original attack: an empty kernel file that includes the solution scored full marks."""
    outcome = _grade(tmp_path, f'/**/#include "{paths.SOLUTIONS / DAY / "vector_add.cu"}"\n')
    _refused(outcome, "is not allowed")


def test_an_own_header_cannot_include_for_the_kernel(tmp_path, secret):
    outcome = _grade(tmp_path, '#include "helpers.cuh"\n' + SOLUTION,
                     files={"helpers.cuh": f'#pragma once\n#\f include "{secret}"\n'})
    _refused(outcome, "helpers.cuh:2: error: #include")


def test_a_header_beside_the_kernel_is_checked_even_if_not_included(tmp_path, secret):
    """A header on the include path could include a file of the submission's folder by name."""
    outcome = _grade(tmp_path, SOLUTION, files={"common.cuh": f'#define X 1\n#\vinclude "{secret}"\n'})
    _refused(outcome, "common.cuh:2: error: #include")


def test_a_macro_that_steers_a_cuda_header_is_refused(tmp_path, secret):
    """cub's block_load reaches thrust's `#include __THRUST_DEVICE_SYSTEM_TAG_HEADER`, which is
    `<thrust/system/cuda/detail/execution_policy.h>` after expansion: each of those names is a macro
    a student could define. With these two lines NVRTC 13 included the secret file, and its first
    line came back in the compile error."""
    steer = f"#define execution_policy {'../' * 16}{str(secret.parent)[1:]}/answers\n#define h txt\n"
    outcome = _grade(tmp_path, steer + "#include <cub/block/block_load.cuh>\n" + SOLUTION)
    _refused(outcome, "#define execution_policy is not allowed")


def test_honest_includes_keep_full_marks(tmp_path):
    """Own headers, course headers, cub, and #include written in comments and strings."""
    helper = '#pragma once\n#include <course/common.cuh>\n__device__ inline float add(float a, float b) { return a + b; }\n'
    text = ('// #include "/etc/passwd" is only a comment\n#include "helpers.cuh"\n'
            '#include <cub/block/block_reduce.cuh>\n'
            'static_assert(sizeof("#include </etc/passwd>") > 1, "#include in a string");\n'
            + KERNEL.replace("a[i] + b[i]", "add(a[i], b[i])"))
    outcome = _grade(tmp_path, text, files={"helpers.cuh": helper})
    assert outcome.status == "passed" and outcome.passed == outcome.total, outcome


def test_the_directive_scan_sees_what_the_preprocessor_sees():
    text = ('#define A 1\n/* #include "no" */ const char* s = "#include <no>";\n'
            'auto r = R"x(\n#include "no"\n)x";\n#/**/\\\ninclude <course/common.cuh>\n%:include WHERE\n')
    assert includes.directives(text) == [(1, "define", "A"), (6, "include", "<course/common.cuh>"),
                                         (7, "include", None)]
    assert includes.directives('#\\u0069nclude "x.h"\n') == [(1, "include", '"x.h"')]


def test_compile_logs_keep_only_the_students_files_and_the_course_headers(tmp_path):
    mine = tmp_path / "k.cu"
    log = (f"{mine}(3): error: identifier \"y\" is undefined\n  x = y;\n      ^\n\n"
           f"/srv/course/source/day01/hidden.txt(1): error: expected a declaration\n  {MARK} the first line\n  ^\n\n"
           f"{paths.INCLUDE}/course/common.cuh(9): note: declared here\n\n2 errors detected")
    kept = includes.sanitize_log(log, [tmp_path, paths.INCLUDE])
    assert MARK not in kept and "identifier \"y\"" in kept and "common.cuh(9)" in kept
    assert "1 diagnostic located outside your files" in kept


# ---- B: hidden tests however they are escaped --------------------------------------------------

HIDDEN_LINE = 'nb.grade("day01", "vector_add", cases=[{"n": 70_001}], seed=4242)'
ESCAPED = {
    "as printed": lambda s: s,
    "HTML-escaped": html.escape,
    "doubly HTML-escaped": lambda s: html.escape(html.escape(s)),
    "JSON in HTML": lambda s: html.escape(json.dumps(json.dumps(s))),
    "unicode escapes": lambda s: "".join(f"\\u{ord(c):04x}" for c in s),
    "stringized by the compiler": lambda s: '"' + s.replace('"', '\\"') + '"',
    "with \\n and spacing": lambda s: json.dumps(s.replace(", ", ",\n    ")),
    "base64": lambda s: base64.b64encode(s.encode()).decode(),
    "URL-escaped": lambda s: "".join(f"%{b:02X}" for b in s.encode()),
    "coloured": lambda s: s.replace("nb.grade", "\x1b[31mnb.grade\x1b[0m"),
}


@pytest.mark.parametrize("form", list(ESCAPED))
def test_the_feedback_filter_finds_hidden_lines_however_escaped(form):
    from grader.autograde import _leaked

    printed = f"error: static assertion failed with {ESCAPED[form](HIDDEN_LINE)} (line 3)"
    assert _leaked({HIDDEN_LINE}, printed) == [HIDDEN_LINE]


def test_the_feedback_filter_leaves_honest_output_alone():
    from grader.autograde import _leaked

    honest = 'vector_add: passed (4/4 cases) \\n &lt;grade&gt; "n": 70_001 aGVsbG8gd29ybGQgaGVsbG8gd29ybGQ='
    assert _leaked({HIDDEN_LINE}, honest) == []


def test_a_students_own_line_spaced_differently_is_no_leak(tmp_path):
    """Hidden lines are matched whatever their spacing, so the student's own lines are too: a lesson
    that prints the student's kernel, written with other spacing than the solution, is no leak."""
    from grader.assignments import solution_lines
    from grader.autograde import _leaked, _leaks, _own_lines

    line = next(ln for ln in solution_lines(DAY) if len(ln) >= 24 and " = " in ln)
    mine = line.replace(" = ", "  =   ")
    folder = tmp_path / "submission"
    folder.mkdir()
    (folder / "vector_add.cu").write_text(f"// mine\n  {mine}\n")
    leaks = _leaks(tmp_path, DAY, DAY, _own_lines(folder))
    assert line not in leaks and _leaked(leaks, mine) == []


# ---- C: the technique, in the kernels the exercise launches ------------------------------------

WARP_REDUCE_LOOP = r"""#include <course/math.cuh>
extern "C" __global__ void warp_reduce(const float* __restrict__ x, float* __restrict__ sums,
                                       float* __restrict__ maxes, float* __restrict__ all_lanes, int n) {
  const int lane = threadIdx.x % 32;
  const int64_t g = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const int64_t i = g * 32 + lane;
  if (g * 32 >= n) return;
  float s = 0.f, m = -course::math::inf;
  for (int j = 0; j < 32 && g * 32 + j < n; ++j) { const float v = x[g * 32 + j]; s += v; m = fmaxf(m, v); }
  if (lane == 0) { sums[g] = s; maxes[g] = m; }
  all_lanes[2 * i] = s;
  all_lanes[2 * i + 1] = m;
}
"""
SHUFFLE = 'asm volatile("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=f"(r) : "f"(v), "r"(1));'
DECOY = ('extern "C" __global__ void decoy(float* v_) {\n  float v = v_[threadIdx.x], r;\n  ' + SHUFFLE
         + '\n  v_[threadIdx.x] = r;\n}\n')
WARP_CASES = [{"n": 31}, {"n": 1000}]


def test_an_unused_kernel_holding_the_shuffles_does_not_count(tmp_path):
    outcome = _grade(tmp_path, WARP_REDUCE_LOOP + DECOY, "day03", "warp_reduce", WARP_CASES)
    assert outcome.status == "failed" and outcome.passed == 0, outcome
    assert "no SHFL.BFLY" in outcome.message and "warp_reduce" in outcome.message, outcome.message
    # before: the file's kernels pooled, the decoy's shuffles counted for warp_reduce
    ex = exercises.get("day03", "warp_reduce")
    assert technique.problems(tmp_path / "submission" / ex.source, ex.technique) == []


def test_a_device_function_the_kernel_calls_counts(tmp_path):
    """Honest: the shuffles in a __noinline__ helper the kernel calls are in the kernel's SASS."""
    text = (paths.SOLUTIONS / "day03" / "warp_reduce.cu").read_text().replace(
        "COURSE_INLINE float shfl_xor", "__device__ __noinline__ float shfl_xor")
    outcome = _grade(tmp_path, text + DECOY.replace(SHUFFLE, "r = v;"), "day03", "warp_reduce", WARP_CASES)
    assert outcome.status == "passed", outcome


# ---- D: sizes the emulator cannot run ----------------------------------------------------------

FLOAT_INDEX = {  # right below 2^24 elements, wrong past it
    "float and back": "const int64_t i = static_cast<int64_t>(blockIdx.x * (float)blockDim.x + threadIdx.x);",
    "rounding intrinsic": "const int64_t i = __float2int_rn(__fmaf_rn(blockIdx.x, blockDim.x, threadIdx.x));",
    "half precision": "const int64_t i = __half2int_rz(__float2half(float(blockIdx.x * blockDim.x + threadIdx.x)));",
    "through a double": "const int64_t i = static_cast<int64_t>(float(double(blockIdx.x) * blockDim.x + threadIdx.x));",
    "through shared memory": "__shared__ float at[256];\n  at[threadIdx.x] = blockIdx.x * (float)blockDim.x + threadIdx.x;\n"
                             "  __syncthreads();\n  const int64_t i = static_cast<int64_t>(at[threadIdx.x]);",
}


@pytest.mark.parametrize("form", list(FLOAT_INDEX))
def test_an_index_through_a_float_is_refused(tmp_path, form):
    index = "const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;"
    assert index in SOLUTION
    text = "#include <cuda_fp16.h>\n" + SOLUTION.replace(index, FLOAT_INDEX[form])
    outcome = _grade(tmp_path, text, cases=[{"n": 33}])
    assert outcome.status == "failed" and outcome.passed == 0, outcome
    assert "through a float and back" in outcome.message.splitlines()[0], outcome.message


def test_a_position_used_as_a_float_is_fine(tmp_path):
    text = SOLUTION.replace("c[i] = a[i] + b[i];", "c[i] = a[i] + b[i] + 0.f * __sinf(float(i) * 1e-3f);")
    outcome = _grade(tmp_path, text, cases=[{"n": 33}])
    assert outcome.status == "passed", outcome


def test_the_grade_names_the_sizes_the_emulator_did_not_run():
    ex = exercises.get(DAY, "vector_add")
    ran = [c for c in ex.cases if c["n"] <= 1 << 21]
    note = isolation._not_run(ex, ran)
    assert "n=16777219" in note and "2^24" in note and "a GPU's grade runs them" in note
    assert isolation.unchecked(ex, ran) == ([{"n": 16777219}], ["boundary.elements"])


def test_the_emulator_withholds_the_points_of_sizes_it_did_not_check():
    """A kernel wrong only past 2^24 elements passes every case the emulator runs: the cell's share of
    those cases is withheld (nbgrader's partial credit), the feedback says why."""
    from grader import autograde

    assert autograde._withheld(2.0, {}) == (None, "")
    score, note = autograde._withheld(2.0, {"vector_add": (["n=16777219"], 8)})
    assert score == 1.75 and "0.25 of 2 points withheld until a GPU grades them" in note and "n=16777219" in note
