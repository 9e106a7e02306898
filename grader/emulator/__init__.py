"""A PTX emulator: the course's kernels compiled by NVRTC to PTX and run on the CPU with numpy.

    from grader import emulator
    module = emulator.load("solutions/day01/vector_add.cu")
    module.get_function("vector_add")((blocks,), (256,), (a, b, c, np.int64(n)))

`grader.device` runs kernels here, through `grader.emulator.backend.EmulatorBackend`, when there is no
CUDA GPU or COURSE_BACKEND=emulator. What it supports, what it checks and how it executes:
grader/emulator/README.md.
"""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

from grader.emulator.machine import EmulatorFault
from grader.emulator.memory import DeviceArray
from grader.emulator.program import EmulatorWarning, Kernel, Module

ARCH_ENV = "COURSE_EMULATOR_ARCH"

__all__ = ["DeviceArray", "EmulatorFault", "EmulatorWarning", "Kernel", "Module", "load", "load_source",
           "last_launch", "arch"]


def arch() -> str:
    """The architecture NVRTC targets for the emulator (sm_80 unless $COURSE_EMULATOR_ARCH says)."""
    return os.environ.get(ARCH_ENV, "sm_80")


def target(path) -> str:
    """The architecture a .cu file is built for on the emulator: arch(), raised to what the file asks
    for (COURSE_REQUIRE_ARCH), architecture-specific (sm_90a) where it asks for that."""
    from grader import compiler

    found = arch()
    needed = compiler.required_arch(path)
    if needed and compiler.arch_number(found) < needed:
        found = f"sm_{needed}"
    if compiler.arch_specific(path) and not found.endswith("a"):
        found += "a"
    return found


def compiled(path, options: tuple[str, ...] = ()):
    """The `compiler.Compiled` of a .cu file with the course's options, for `target(path)`."""
    from grader import compiler

    return compiler.compile_file(path, target(path), tuple(options))


def load(path, options: tuple[str, ...] = ()) -> Module:
    """Compile a .cu file with the course's options to PTX and load it."""
    from grader import compiler

    module = Module(compiled(path, options).ptx, str(path))
    module.code = compiler.read_source(path)  # own headers inlined, as the GPU's module holds it
    return module


def load_source(code: str, name: str = "inline.cu", options: tuple[str, ...] = ()) -> Module:
    """Compile CUDA C source text (a notebook cell) and load it."""
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / Path(name).name
        path.write_text(code)
        return load(path, options)


def last_launch():
    """The last launch's record: .stats (per instruction), .warnings, .instructions, .printed."""
    from grader.emulator import program

    return program.last_launch
