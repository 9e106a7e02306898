"""The backend seam under grader/device.py: one interface (grader/backend.py), two backends that implement
all of it, chosen by $COURSE_BACKEND, without the emulator on the GPU path and without an import cycle.
(What the emulator's backend does with kernels: tests/test_emulator_device.py.)"""
import inspect
import os
import subprocess
import sys

import numpy as np
import pytest

from grader import bench, device, paths
from grader.backend import Backend, NoGPU, NoTiming
from grader.cupy_backend import CupyBackend
from grader.emulator.backend import EmulatorBackend

BACKENDS = (CupyBackend, EmulatorBackend)
CAPABILITIES = {"name": str, "timed": bool, "full_sizes": bool, "any_arch": bool, "survives_faults": bool,
                "hardware_counters": bool, "cubins": bool}
#: Where the backend layer's choice is made and implemented: the rest asks `device.current()`'s capabilities.
BACKEND_LAYER = ("grader/backend.py", "grader/cupy_backend.py", "grader/emulator/backend.py", "grader/device.py")
#: Calls of device.emulated() the rest of grader/ may keep: those that mean which backend, not what it can do.
MAX_EMULATED_CALLS = 6


def _parameters(f):
    return [p.name for p in inspect.signature(f).parameters.values() if p.name != "self"]


@pytest.mark.parametrize("cls", BACKENDS, ids=lambda c: c.__name__)
def test_each_backend_implements_the_whole_interface(cls):
    """Nothing abstract is left, every operation takes the interface's parameters, every capability is set;
    the cupy backend is checked from its class (no GPU needed)."""
    assert not cls.__abstractmethods__, f"{cls.__name__} lacks {sorted(cls.__abstractmethods__)}"
    for name in Backend.__abstractmethods__ | {"gpu_available"}:
        assert _parameters(getattr(cls, name)) == _parameters(getattr(Backend, name)), (cls.__name__, name)
    for name, kind in CAPABILITIES.items():
        assert isinstance(getattr(cls, name, None), kind), (cls.__name__, name)
    assert cls.name in device.BACKENDS


def test_every_capability_is_declared_and_differs_where_the_backends_do():
    """The interface names each capability; the two backends state each one (checked above) and a
    capability that both state alike would not tell the callers anything."""
    declared = set(Backend.__annotations__)
    assert set(CAPABILITIES) == declared, sorted(declared ^ set(CAPABILITIES))
    assert all(getattr(CupyBackend, n) != getattr(EmulatorBackend, n) for n in CAPABILITIES), CAPABILITIES


def _emulated_calls(root) -> list[str]:
    return [f"{path.relative_to(root)}:{n}" for path in sorted((root / "grader").rglob("*.py"))
            if path.relative_to(root).as_posix() not in BACKEND_LAYER
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
            if "emulated()" in line.split("#")[0]]


def test_the_course_asks_capabilities_not_which_backend(tmp_path):
    """At most MAX_EMULATED_CALLS calls of device.emulated() outside the backend layer (grader/); the
    counter sees a planted one."""
    calls = _emulated_calls(paths.ROOT)
    assert len(calls) <= MAX_EMULATED_CALLS, f"{len(calls)} calls of device.emulated(): {calls}"
    (tmp_path / "grader").mkdir()
    (tmp_path / "grader" / "x.py").write_text("if device.emulated():  # which backend\n    pass\n")
    (tmp_path / "grader" / "device.py").write_text("def emulated():\n    return backend() == 'emulator'\n")
    assert _emulated_calls(tmp_path) == ["grader/x.py:1"]


def test_device_functions_are_the_interface_s_operations():
    """Every operation of a backend has grader.device's function of the same name and parameters."""
    capabilities = {"time_ms", "flush_l2", "memory_report", "memory_totals"}  # asked through device.current()
    for name in (Backend.__abstractmethods__ | {"gpu_available"}) - capabilities:
        assert _parameters(getattr(device, name)) == _parameters(getattr(Backend, name)), name


def test_the_backend_follows_course_backend_and_is_made_once(monkeypatch):
    monkeypatch.setenv(device.BACKEND_ENV, "cupy")
    cupy = device.current()
    assert isinstance(cupy, CupyBackend) and device.current() is cupy and not device.emulated()
    monkeypatch.setenv(device.BACKEND_ENV, "emulator")
    emulator = device.current()
    assert isinstance(emulator, EmulatorBackend) and device.current() is emulator and device.emulated()
    assert not bench.timed() and device.current().full_sizes is False
    with pytest.raises(NoTiming, match="timings are not emulated") as e:
        bench.time_ms(lambda: None)
    assert isinstance(e.value, NoGPU)  # the commands' one-line NoGPU errors cover it
    with pytest.raises(NoTiming):
        bench.flush_l2()
    x = device.empty(5, "int32")
    assert (device.to_host(x).view(np.uint32) == 0xFFFFFFFF).all()
    monkeypatch.setenv(device.BACKEND_ENV, "tpu")
    with pytest.raises(ValueError, match="COURSE_BACKEND='tpu': expected one of cupy, emulator"):
        device.current()


def _python(code: str, backend: str) -> subprocess.CompletedProcess:
    env = {**os.environ, device.BACKEND_ENV: backend, "PYTHONPATH": str(paths.ROOT)}
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)


def test_the_gpu_path_never_imports_the_emulator():
    r = _python("import sys\nfrom grader import device\nreason = device.why_no_gpu()\n"
                "device.gpu_available(), device.why_not_hardware()\n"
                "print(type(device.current()).__name__, [m for m in sys.modules if m.startswith('grader.emulator')])",
                "cupy")
    assert r.returncode == 0 and r.stdout.split() == ["CupyBackend", "[]"], r.stdout + r.stderr


def test_the_emulator_backend_does_not_import_the_device_layer():
    """No cycle device -> emulator -> device: the emulator's backend and its cupy subset stand alone."""
    r = _python("import sys\nimport numpy as np\nfrom grader.emulator.backend import EmulatorBackend\n"
                "b = EmulatorBackend()\ncp = b.require_gpu()\n"
                "assert (b.to_host(b.asarray(np.arange(3))) == np.arange(3)).all() and cp.zeros(2).get().sum() == 0\n"
                "assert np.isnan(b.to_host(b.empty(2, 'bfloat16'), 'bfloat16').astype(np.float32)).all()\n"
                "print(sorted(m for m in sys.modules if m in ('grader.device', 'grader.bench', 'grader.notebook')))",
                "emulator")
    assert r.returncode == 0 and r.stdout.strip() == "[]", r.stdout + r.stderr


def test_a_gpu_module_is_the_compile_the_technique_check_reads(monkeypatch):
    """On a GPU, `device.load` loads the cubin of the very compile whose SASS the technique check reads
    (one NVRTC compile per file in a checking child, not cupy's and the check's): after `sass.load`, the
    module's load compiles nothing and hands cupy that cubin (a cupy stand-in: no GPU here)."""
    from grader import compiler, sass

    class FakeModule:
        code = None  # cupy's: None for a module loaded from a file

        def __init__(self, path):
            self.cubin = open(path, "rb").read()
            self.module = self

    class FakeCupy:
        RawModule = FakeModule

    source = paths.SOLUTIONS / "day16" / "attention_wgmma.cu"
    compiled, _, _ = sass.load(source, "sm_90")
    backend = CupyBackend()
    monkeypatch.setattr(backend, "require_gpu", lambda: FakeCupy)
    monkeypatch.setattr(backend, "arch", lambda: "sm_90")
    monkeypatch.setattr(compiler, "_nvrtc", lambda: pytest.fail("compiled twice"))
    module = backend.load(source)
    assert module.cubin == compiled.cubin and compiled.arch == "sm_90a"
    assert module.code == compiler.read_source(source)  # the source text, as a module cupy compiled keeps it
