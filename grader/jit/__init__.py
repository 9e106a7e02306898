"""The course's JIT, after FlashInfer's `flashinfer/jit/`: kernels rendered from Jinja2 templates,
compiled by NVRTC on first use, kept in a disk cache keyed by what was compiled.

    source = jit.render("rope.cu.jinja", dtype="float16", head_dim=128, ...)   # text, no GPU needed
    built = jit.build("rope_f16_d128", source, arch="sm_90")                    # cubin, no GPU needed
    module = jit.load("rope_f16_d128", source)                                   # cupy.RawModule

A template names every parameter it uses; `render` refuses missing and unknown ones. `build` returns
the cached cubin when the key (rendered source, options, architecture, NVRTC version, course headers;
see `grader.jit.cache`) is already there, else compiles it once, even with several processes asking.
`load` adds an in-process table, so the second call in a process costs a dictionary look-up.
"""
from __future__ import annotations

import functools
import os
import time
from dataclasses import dataclass
from pathlib import Path

from grader import compiler, paths
from grader.jit.cache import CACHE_ENV, Cache, Entry, make_key
from grader.messages import say

__all__ = ["CACHE_ENV", "Build", "Cache", "Entry", "TEMPLATES", "build", "load", "render",
           "template_parameters", "loaded", "forget_loaded"]

TEMPLATES = paths.ROOT / "kernels" / "templates"


@functools.cache
def _environment(folder: str):
    import jinja2

    return jinja2.Environment(loader=jinja2.FileSystemLoader(folder), undefined=jinja2.StrictUndefined,
                              keep_trailing_newline=True, trim_blocks=True, lstrip_blocks=True)


def _template_path(template: str, folder: str | os.PathLike | None) -> Path:
    path = Path(folder or TEMPLATES) / template
    if not path.is_file():
        known = ", ".join(sorted(p.name for p in path.parent.glob("*.jinja"))) or say("none_yet")
        raise FileNotFoundError(say("jit.no_template", template=repr(template), folder=path.parent, known=known))
    return path


_parsed: dict[tuple, tuple] = {}


def _parse(template: str, folder) -> tuple:
    """(compiled template, the names it uses), parsed again whenever the file changes."""
    import jinja2.meta

    path = _template_path(template, folder)
    st = path.stat()
    version = (str(path), st.st_mtime_ns, st.st_size)
    if version not in _parsed:
        env, text = _environment(str(path.parent)), path.read_text()
        _parsed[version] = (env.from_string(text), set(jinja2.meta.find_undeclared_variables(env.parse(text))))
    return _parsed[version]


def template_parameters(template: str, folder: str | os.PathLike | None = None) -> set[str]:
    """The names a template uses (Jinja2's undeclared variables)."""
    return set(_parse(template, folder)[1])


def render(template: str, folder: str | os.PathLike | None = None, **params) -> str:
    """The template's text with `params` filled in; ValueError naming any missing or unknown one."""
    compiled, needed = _parse(template, folder)
    missing, unknown = needed - set(params), set(params) - needed
    if missing or unknown:
        parts = [say("jit.missing", names=", ".join(sorted(missing))) if missing else "",
                 say("jit.unknown", names=", ".join(sorted(unknown))) if unknown else ""]
        raise ValueError(say("jit.params", template=template, problems=say("sep").join(p for p in parts if p),
                             takes=", ".join(sorted(needed))))
    return compiled.render(**params)


@dataclass(frozen=True)
class Build:
    """One build request's outcome: where the cubin is, and whether this call compiled it."""
    entry: Entry
    cubin: bytes
    compiled: bool
    compile_seconds: float
    seconds: float          # the whole call: key, cache look-up and any compile

    @property
    def key(self) -> str:
        return self.entry.key


def build(name: str, source: str, *, arch: str, options: tuple[str, ...] = (),
          cache: Cache | None = None) -> Build:
    """The cubin of `source` for `arch` (like 'sm_90'), from the cache or compiled into it. No GPU
    needed. `name` names the entry (and, by convention, the kernel it defines)."""
    start = time.perf_counter()
    cache = cache or Cache()
    opts = compiler.options(arch, tuple(options))
    entry = cache.entry(name, make_key(source, opts, arch, compiler.nvrtc_version()), arch)
    meta = {"options": list(opts), "nvrtc": compiler.nvrtc_version()}
    cubin, compiled, secs = cache.get_or_build(
        entry, source, lambda: compiler.nvrtc_compile(source, f"{name}.cu", opts, cached=False)[1], meta)
    return Build(entry, cubin, compiled, secs, time.perf_counter() - start)


_loaded: dict[tuple, tuple[object, Build | None]] = {}


def _arch() -> str:
    """sm_XY of the current GPU (no driver call per launch)."""
    from grader import device

    return device.arch()


def load(name: str, source: str, *, options: tuple[str, ...] = (), cache: Cache | None = None):
    """A `cupy.RawModule` of `source` for the current GPU. The first call in a process builds (or
    finds in the disk cache) and loads the cubin; later calls with the same source return the same
    module. `loaded(name, source)` tells what the first call did. On the emulator: its module, from
    PTX (`loaded` then gives None)."""
    from grader import device

    arch = _arch()
    cache = cache or Cache()
    memo = (str(cache.root), arch, name, source, tuple(options))  # the same source object: hashed once
    if memo not in _loaded and not device.current().cubins:  # PTX run by the emulator: no disk cache
        _loaded[memo] = (device.load_source(source, f"{name}.cu", tuple(options)), None)
    if memo not in _loaded:
        built = build(name, source, arch=arch, options=options, cache=cache)
        _loaded[memo] = (device.load_cubin(built.entry.cubin), built)
    return _loaded[memo][0]


def loaded(name: str, source: str, *, options: tuple[str, ...] = (), cache: Cache | None = None
           ) -> Build | None:
    """How `load` got this module in this process (None if not loaded yet)."""
    cache = cache or Cache()
    memo = (str(cache.root), _arch(), name, source, tuple(options))
    return _loaded[memo][1] if memo in _loaded else None


def forget_loaded() -> None:
    """Drop the in-process table (as a restart would); the disk cache stays."""
    _loaded.clear()
