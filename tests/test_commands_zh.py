"""Commands a student runs (`python -m grader unlock`) answer in the lessons' language: under
COURSE_LANG=zh every line and refusal is Chinese (names, paths and commands as they are)."""
import pytest

from grader import paths, unlock
from test_module_texts_zh import chinese


def test_unlock_in_chinese(tmp_path, monkeypatch):
    monkeypatch.setenv("COURSE_LANG", "zh")
    monkeypatch.setattr(paths, "STATE", tmp_path / "state")
    assert chinese(unlock.unlock("day03"))  # the full course: recorded
    with pytest.raises(ValueError) as e:
        unlock.unlock("day01")
    assert chinese(str(e.value)), e.value
    monkeypatch.setattr(paths, "SOLUTION_INCLUDE", tmp_path / "none")
    monkeypatch.setattr(paths, "UNLOCKED", tmp_path / "unlocked")
    monkeypatch.setattr(paths, "ROOT", tmp_path)
    handed = tmp_path / "handed"
    (handed / "day03").mkdir(parents=True)
    (handed / "day03" / "ptx_math.cuh").write_text("// the course's\n")
    for refused in (lambda: unlock.unlock("day03"), lambda: unlock.unlock("day08", handed)):
        with pytest.raises(ValueError) as e:
            refused()
        assert chinese(str(e.value)), e.value
    assert chinese(unlock.unlock("day03", handed))
    (tmp_path / "unlocked" / "day03" / "ptx_math.cuh").write_text("// changed\n")
    asked = []
    kept = unlock.unlock("day03", handed, ask=lambda q: asked.append(q) or "n")
    assert chinese(kept) and chinese(asked[0]), (kept, asked)


def test_a_compile_error_is_headed_in_chinese(tmp_path, monkeypatch):
    """The first line of every compile error a student meets (CompileError) in the lessons' language;
    NVRTC's own log below it stays as the compiler wrote it."""
    from grader import compiler

    broken = tmp_path / "broken.cu"
    broken.write_text('extern "C" __global__ void k(float* x) { x[0] = y; }\n')
    for lang, head in (("zh", "编译失败："), ("en", "does not compile: ")):
        monkeypatch.setenv("COURSE_LANG", lang)
        with pytest.raises(compiler.CompileError) as e:
            compiler.compile_file(broken)
        first = str(e.value).splitlines()[0]
        assert head in first and "broken.cu" in first and "error" in first, first
    monkeypatch.setenv("COURSE_LANG", "zh")
    with pytest.raises(FileNotFoundError) as e:
        compiler.compile_file(tmp_path / "missing.cu")
    assert chinese(str(e.value)), e.value


def test_no_gpu_is_said_in_chinese(monkeypatch):
    """On a machine whose GPU cannot be used, what running a kernel says (NoGPU) is Chinese."""
    from grader import cupy_backend, messages
    from grader.backend import NoGPU

    monkeypatch.setenv("COURSE_LANG", "zh")
    monkeypatch.setattr(cupy_backend, "probe", lambda: messages.say("backend.none_found"))
    with pytest.raises(NoGPU) as e:
        cupy_backend.CupyBackend().require_gpu()
    assert chinese(str(e.value)) and "python -m grader compile" in str(e.value), e.value


def test_sass_resource_line_in_chinese(monkeypatch, capsys):
    """`python -m grader sass`'s resource line: Chinese words joined the Chinese way (、), English unchanged."""
    from grader import sass

    res = {"registers": 4, "stack": 0, "spill_stores": 0}
    monkeypatch.setenv("COURSE_LANG", "zh")
    assert sass._resource_line(res) == "寄存器 4、栈 0 B、溢出写 0 B"
    monkeypatch.setenv("COURSE_LANG", "en")
    assert sass._resource_line(res) == "registers 4, stack 0 B, spill stores 0 B"


def test_a_refused_include_is_said_in_chinese(tmp_path, monkeypatch):
    """An #include the course refuses (a path going up a folder) fails to compile with its reason in the
    lessons' language, after the file:line and 'error:' a compiler's diagnostic has."""
    from grader import compiler

    sneaky = tmp_path / "sneaky.cu"
    sneaky.write_text('#include "../secret.cuh"\nextern "C" __global__ void k() {}\n')
    monkeypatch.setenv("COURSE_LANG", "zh")
    with pytest.raises(compiler.CompileError) as e:
        compiler.compile_file(sneaky)
    refusal = next(line for line in str(e.value).splitlines() if line.startswith("sneaky.cu:1: error:"))
    assert chinese(refusal), refusal
