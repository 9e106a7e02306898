"""Day 14's TVM-FFI exercise (rmsnorm_ffi.py): the build itself. What the function and the custom op
compute, refuse and where they run is the exercise's check (grader/exercises/day14.py, run by
days/day14/test_day14.py). Here: the module is rebuilt, not reused, when the day-6 kernel it includes
changes, and the stub's refusal is Python's NotImplementedError. Without apache-tvm-ffi, nvcc or ninja
this skips in one line."""
import numpy as np
import pytest

from grader import paths, runner, stubs
from grader.exercises import day14

pytestmark = pytest.mark.skipif(bool(day14.why_no_ffi()), reason=day14.why_no_ffi() or "")


def _load(folder):
    return runner._import(folder / "day14" / "rmsnorm_ffi.py", f"rmsnorm_ffi_{folder.name}")


def test_an_edit_to_the_included_kernel_builds_a_new_module(tmp_path, monkeypatch):
    module = _load(paths.SOLUTIONS)
    day06 = tmp_path / "day06"
    day06.mkdir()
    kernel = (paths.SOLUTIONS / "day06" / "rmsnorm.cu").read_text()
    (day06 / "rmsnorm.cu").write_text(kernel)
    monkeypatch.setattr(module, "DAY06", day06)
    first = module.build()
    assert module.build() is first, "built again without a change"
    (day06 / "rmsnorm.cu").write_text(kernel + "\n// an edit\n")
    assert module.build() is not first, "rmsnorm.cu changed but build() returned the module already loaded"


def test_the_stub_raises_not_implemented_error(tmp_path):
    (tmp_path / "day14").mkdir()
    (tmp_path / "day14" / "rmsnorm_ffi.py").write_text(stubs.render(paths.SOLUTIONS / "day14" / "rmsnorm_ffi.py"))
    x = np.zeros((2, 8), np.float16)
    with pytest.raises(NotImplementedError, match="rmsnorm_ffi.py"):
        _load(tmp_path).build().rmsnorm(x, np.zeros(8, np.float16), x, 1e-6)
