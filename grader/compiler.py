"""Where a kernel is compiled: the course's NVRTC options, and NVRTC itself (no GPU needed).

`nvrtc_compile` is the one place NVRTC is called (source text to PTX and cubin, its log, its errors):
`compile_file` (the emulator, `grader compile`, `grader sass`) and day 13's JIT go through it.
cupy.RawModule (through `grader.device.load`) and the compiler here use the same options:
the course headers (kernels/include), the course's versions of the days' exercises that later days'
course headers include (`paths.answer_include`: solutions/include, or kernels/unlocked in a student
edition), the CCCL headers cupy ships (cub, thrust, libcudacxx) and the CUDA headers. A `#line`
directive makes errors and -lineinfo point at the student's own file.
"""
from __future__ import annotations

import functools
import hashlib
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from grader import compile_cache, includes, paths
from grader.messages import say

ARCHS = ("sm_80", "sm_90")
#: The extra options of the compile whose SASS the technique check reads (-v: spill counts in the log);
#: a GPU's module is loaded from the same compile.
SASS_OPTIONS = ("-Xptxas=-v",)
STD = "-std=c++17"


class CompileError(RuntimeError):
    """A kernel failed to compile; the message is the compiler's log, naming the student's file and line
    (only the diagnostics located in that file's folder and the include path: `includes.sanitize_log`)."""

    def __init__(self, path: str, log: str, source: str = ""):
        roots = [Path(path).resolve().parent, *include_dirs(), *line_folders(source)]
        self.path, self.log = path, includes.sanitize_log(log.strip(), roots)
        first = next((ln for ln in self.log.splitlines() if "error" in ln), self.log[:200])
        super().__init__(say("compile.failed", path=path, first=first) + f"\n\n{self.log}")


_LINE = re.compile(r'^#line \d+ "([^"\n]+)"', re.M)


def line_folders(source: str) -> list[Path]:
    """The folders of the files a source's `#line` directives name (read_source's: the student's own
    file, rendered elsewhere by day 13's JIT), whose diagnostics a compile error keeps."""
    return sorted({Path(f).resolve().parent for f in _LINE.findall(source)})


def _site_dirs() -> list[Path]:
    return [Path(p) for p in sys.path if p.endswith("site-packages") and Path(p).is_dir()]


@functools.cache
def cuda_include_dir() -> Path | None:
    """Where cuda_fp16.h lives: the pip wheel (nvidia-cuda-runtime), a toolkit ($CUDA_PATH, $CUDA_HOME),
    a conda environment, or /usr/local/cuda."""
    candidates = []
    for site in _site_dirs():
        candidates += [site / "nvidia/cu13/include", site / "nvidia/cuda_runtime/include"]
    for env in ("CUDA_PATH", "CUDA_HOME", "CONDA_PREFIX"):
        if os.environ.get(env):
            base = Path(os.environ[env])
            candidates += [base / "include", base / "targets/x86_64-linux/include"]
    candidates.append(Path("/usr/local/cuda/include"))
    return next((c for c in candidates if (c / "cuda_fp16.h").is_file()), None)


@functools.cache
def cccl_include_dirs() -> list[Path]:
    """The CCCL headers (cub, thrust, libcudacxx) that cupy ships."""
    try:
        import cupy
    except ImportError:
        return []
    base = Path(cupy.__file__).parent / "_core/include/cupy/_cccl"
    return [base / "libcudacxx", base / "cub", base / "thrust"] if base.is_dir() else []


def include_dirs() -> list[Path]:
    """The course headers, the answer root, the student's own headers (days/: where the answer root
    lacks a day's header, `<day07/cp_async.cuh>` is the student's), CCCL and CUDA, in that order."""
    dirs = [paths.INCLUDE, paths.answer_include(), paths.OWN_INCLUDE, *cccl_include_dirs()]
    cuda = cuda_include_dir()
    return dirs + ([cuda] if cuda else [])


_HAS_INCLUDE = re.compile(r"__has_include\(<(day\d\d/[\w.-]+\.cuh)>\)")


@functools.cache
def _course_asks() -> tuple[str, ...]:
    """Every `dayNN/x.cuh` a course header includes where it exists (`#if __has_include(<...>)`)."""
    found = {m for h in paths.INCLUDE.rglob("*.cuh") for m in _HAS_INCLUDE.findall(h.read_text())}
    return tuple(sorted(found))


def own_stand_ins() -> list[Path]:
    """The student's own headers that the course headers include here because the answer root lacks
    the course's version (a student edition before `grader unlock`)."""
    answers = paths.answer_include()
    return [paths.OWN_INCLUDE / name for name in _course_asks()
            if not (answers / name).is_file() and (paths.OWN_INCLUDE / name).is_file()]


def options(arch: str | None = None, extra: tuple[str, ...] = ()) -> tuple[str, ...]:
    """NVRTC options shared by every course kernel. `arch` like 'sm_90' (None: cupy picks the GPU's)."""
    opts = [STD, "-lineinfo"]
    opts += [f"-I{d}" for d in include_dirs()]
    if arch:
        arch_number(arch)  # ValueError for anything but sm_NN / sm_NNa
        opts.append(f"-arch={arch}")
    return tuple(opts) + tuple(extra)


def check_includes(path: Path) -> None:
    """Refuse (CompileError, one line) an include that is computed, absolute, goes up a folder or
    resolves outside the file's own folder and the include path, on the preprocessor's tokens
    (`grader.includes`)."""
    try:
        includes.check(path, include_dirs(), answers=[paths.answer_include()])
    except includes.IncludeRefused as e:
        raise CompileError(str(path), str(e)) from None


def read_source(path: str | os.PathLike) -> str:
    """The file's text behind a #line directive, so diagnostics and line info name this file. Its
    includes are checked first (`check_includes`)."""
    path = Path(path).resolve()
    if not path.is_file():
        raise FileNotFoundError(say("compile.no_source", path=path))
    try:
        text = path.read_text()
    except UnicodeDecodeError:
        raise CompileError(str(path), say("compile.not_text", name=path.name)) from None
    check_includes(path)
    # cupy keys its kernel cache on the source text: name the stand-ins' contents, so an edit recompiles
    stand_ins = "".join(f"// built on {h.relative_to(paths.OWN_INCLUDE).as_posix()} "
                        f"{hashlib.sha256(h.read_bytes()).hexdigest()[:16]}\n" for h in own_stand_ins())
    return f'#line 1 "{path}"\n' + _inline_own_headers(text, path, set()) + stand_ins


_OWN_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([\w.-]+\.cuh)"[ \t]*$')


def _inline_own_headers(text: str, path: Path, seen: set) -> str:
    """`text` with each `#include "x.cuh"` of a header beside `path` (a student's own, e.g. day 12's
    prefill_steps.cuh) replaced by that header's text, once: cupy compiles in a folder of its own and
    keys its kernel cache on the source text alone, and day 13's JIT inlines this text elsewhere."""
    out = []
    for number, line in enumerate(text.splitlines(), 1):
        own = _OWN_INCLUDE.match(line)
        header = (path.parent / own[1]).resolve() if own else None
        if header is None or not header.is_file() or header.parent != path.parent:
            out.append(line)
            continue
        if header not in seen:
            seen.add(header)
            out += [f'#line 1 "{header}"', _inline_own_headers(header.read_text(), header, seen)]
        out.append(f'#line {number + 1} "{path}"')
    return "\n".join(out) + "\n"


@dataclass
class Compiled:
    path: Path
    arch: str
    ptx: str
    cubin: bytes
    log: str = ""
    kernels: list[str] = field(default_factory=list)
    source: str = ""  # what NVRTC compiled (`read_source`: the student's own headers inlined)


_REQUIRE_ARCH = re.compile(r"^\s*COURSE_REQUIRE_ARCH(?:_SPECIFIC)?\((\d+)\)", re.M)


def required_arch(path: str | os.PathLike) -> int | None:
    """The oldest architecture a .cu file compiles for (89 for sm_89), from its COURSE_REQUIRE_ARCH line
    (course/common.cuh); None when it runs everywhere the course does."""
    found = [int(m) for m in _REQUIRE_ARCH.findall(read_source(path))]
    return max(found) if found else None


_REQUIRE_SPECIFIC = re.compile(r"^\s*COURSE_REQUIRE_ARCH_SPECIFIC\((\d+)\)", re.M)


def arch_specific(path: str | os.PathLike) -> bool:
    """Whether a .cu file needs the architecture-specific target (sm_90a: wgmma, setmaxnreg), from its
    COURSE_REQUIRE_ARCH_SPECIFIC(90) line (course/common.cuh)."""
    return bool(_REQUIRE_SPECIFIC.search(read_source(path)))


def arch_number(arch: str) -> int:
    """89 for "sm_89", 90 for "sm_90a"."""
    match = re.fullmatch(r"sm_(\d{2,3})a?", arch)
    if not match:
        raise ValueError(f"arch {arch!r}: expected something like sm_80 or sm_90")
    return int(match.group(1))


def _nvrtc():
    try:
        from cuda.bindings import nvrtc
    except ImportError as e:  # pragma: no cover - depends on the install
        raise RuntimeError("compiling needs cuda-bindings and nvidia-cuda-nvrtc (pip install -e '.[cuda13]')") from e
    return nvrtc


def _output(prog, get_size, get) -> bytes:
    """One of NVRTC's outputs (log, PTX, cubin) of `prog`, through cuda-bindings' `get_size`/`get` pair.
    NVRTC writes into the buffer it is given: a fresh bytearray, never a bytes object (`b" " * 1` is
    Python's shared b" ", and overwriting it breaks every later use of it, `import torch` included)."""
    _, size = get_size(prog)
    buf = bytearray(size)
    get(prog, buf)
    return bytes(buf)


def _text(output: bytes) -> str:
    return output.rstrip(b"\x00").decode(errors="replace")


def nvrtc_compile(source: str, name: str, opts: tuple[str, ...], cached: bool = True) -> tuple[str, bytes, str]:
    """(PTX, cubin, log) of CUDA C `source` compiled by NVRTC with `opts` (a cubin needs -arch=sm_XX in
    them); CompileError naming `name`, with NVRTC's log, when it does not compile. No GPU needed. A
    source compiled before on this machine comes from `grader.compile_cache` unless `cached` is False
    (day 13's JIT, whose own cache is the lesson)."""
    stored = compile_cache.key(source, name, opts, nvrtc_version()) if cached else None
    found = compile_cache.get(stored) if cached else None
    if found is not None:
        return found
    nvrtc = _nvrtc()
    ok = nvrtc.nvrtcResult.NVRTC_SUCCESS
    err, prog = nvrtc.nvrtcCreateProgram(source.encode(), name.encode(), 0, [], [])
    if err != ok:
        raise CompileError(name, f"nvrtcCreateProgram: {err}")
    try:
        encoded = [o.encode() for o in opts]
        (err,) = nvrtc.nvrtcCompileProgram(prog, len(encoded), encoded)
        log = _text(_output(prog, nvrtc.nvrtcGetProgramLogSize, nvrtc.nvrtcGetProgramLog))
        if err != ok:
            raise CompileError(name, log, source)
        ptx = _text(_output(prog, nvrtc.nvrtcGetPTXSize, nvrtc.nvrtcGetPTX))
        cubin = _output(prog, nvrtc.nvrtcGetCUBINSize, nvrtc.nvrtcGetCUBIN)
    finally:
        nvrtc.nvrtcDestroyProgram(prog)
    if cached:
        compile_cache.put(stored, ptx, cubin, log.strip())
    return ptx, cubin, log.strip()


def compile_file(path: str | os.PathLike, arch: str = "sm_90", extra: tuple[str, ...] = ()) -> Compiled:
    """Compile one .cu file (`read_source`) to PTX and a whole cubin with the course's options. A file
    with COURSE_REQUIRE_ARCH_SPECIFIC(90) asked for sm_90 compiles for sm_90a (wgmma, setmaxnreg)."""
    path = Path(path).resolve()
    if arch_specific(path) and not arch.endswith("a") and arch_number(arch) == required_arch(path):
        arch += "a"
    source = read_source(path)
    ptx, cubin, log = nvrtc_compile(source, str(path), options(arch, extra))
    return Compiled(path, arch, ptx, cubin, log, re.findall(r"\.entry\s+(\w+)", ptx), source)


@functools.cache
def nvrtc_version() -> str:
    """NVRTC's version, like "13.0" (part of every JIT cache key: a new compiler may emit different
    code), or why there is none."""
    try:
        _, major, minor = _nvrtc().nvrtcVersion()
        return f"{major}.{minor}"
    except Exception as e:  # noqa: BLE001 - reported, not raised
        return f"unavailable ({e.__class__.__name__}: {e})"
