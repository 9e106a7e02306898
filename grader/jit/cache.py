"""The JIT's compile cache on disk: one entry per cache key, safe across processes.

An entry is three files under `<root>/<arch>/`, named `<name>-<key[:16]>`: the rendered source
(`.cu`, to read what was compiled), what produced it (`.json`) and the binary (`.cubin`). The cubin is
written last, through a temporary file and an atomic `os.replace`: an entry whose cubin exists is
complete, and a reader never sees half a file. A file lock (`.lock`, the `filelock` library) makes a second
process that asks for the same entry wait for the first one's compile, then read its result, instead
of compiling again.

The key is a SHA-256 of everything that can change the binary: the rendered source (so an edited
template or kernel file gives a new key), the compile options, the architecture, NVRTC's version and
the contents of the course headers the source may include. A changed input never finds a stale entry;
old entries stay until `clear()`.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from filelock import FileLock

from grader import paths
from grader.compile_cache import headers_digest, write_atomic
from grader.messages import say

CACHE_ENV = "COURSE_JIT_CACHE"
ELF = b"\x7fELF"
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def default_root() -> Path:
    """$COURSE_JIT_CACHE, else .course/jit in the course checkout (git-ignored)."""
    return Path(os.environ.get(CACHE_ENV) or paths.STATE / "jit")


def make_key(source: str, options: tuple[str, ...], arch: str, compiler_version: str) -> str:
    """The cache key: SHA-256 over source, options, arch, compiler version and course headers."""
    h = hashlib.sha256()
    for part in (source, "\n".join(options), arch, compiler_version, headers_digest()):
        h.update(part.encode() + b"\0")
    return h.hexdigest()


@dataclass(frozen=True)
class Entry:
    """Where one compiled kernel lives in the cache."""
    root: Path
    arch: str
    name: str
    key: str

    @property
    def stem(self) -> Path:
        return self.root / self.arch / f"{self.name}-{self.key[:16]}"

    @property
    def cubin(self) -> Path:
        return self.stem.with_suffix(".cubin")

    @property
    def source(self) -> Path:
        return self.stem.with_suffix(".cu")

    @property
    def meta(self) -> Path:
        return self.stem.with_suffix(".json")

    @property
    def lock(self) -> Path:
        return self.stem.with_suffix(".lock")

    def complete(self) -> bool:
        """The cubin is there and is an ELF file (a damaged one counts as missing and is rebuilt)."""
        try:
            with open(self.cubin, "rb") as f:
                return f.read(4) == ELF
        except FileNotFoundError:
            return False


class Cache:
    """A compile cache rooted at a folder (default: `default_root()`)."""

    def __init__(self, root: str | os.PathLike | None = None):
        self.root = Path(root) if root is not None else default_root()

    def __repr__(self) -> str:
        return f"Cache({str(self.root)!r})"

    def entry(self, name: str, key: str, arch: str) -> Entry:
        if not _NAME.match(name):
            raise ValueError(say("jit.entry_name", name=repr(name)))
        if not re.fullmatch(r"[0-9a-f]{64}", key):
            raise ValueError(say("jit.key", digest=repr(key)))
        return Entry(self.root, arch, name, key)

    def get_or_build(self, entry: Entry, source: str, compile_fn: Callable[[], bytes],
                     meta: dict) -> tuple[bytes, bool, float]:
        """(cubin, compiled here?, seconds spent compiling). Compiles at most once per entry, even when
        several processes ask at the same time."""
        if entry.complete():
            return entry.cubin.read_bytes(), False, 0.0
        entry.stem.parent.mkdir(parents=True, exist_ok=True)
        with FileLock(entry.lock):
            if entry.complete():  # another process compiled it while this one waited for the lock
                return entry.cubin.read_bytes(), False, 0.0
            start = time.perf_counter()
            cubin = compile_fn()
            seconds = time.perf_counter() - start
            if cubin[:4] != ELF:
                raise RuntimeError(say("jit.no_cubin", name=entry.name))
            write_atomic(entry.source, source.encode())
            info = {**meta, "name": entry.name, "key": entry.key, "arch": entry.arch,
                    "compile_seconds": round(seconds, 4), "pid": os.getpid(), "created": time.time()}
            write_atomic(entry.meta, json.dumps(info, indent=1).encode())
            write_atomic(entry.cubin, cubin)  # last: its presence marks the entry complete
        return cubin, True, seconds

    def entries(self) -> list[dict]:
        """What each complete entry was built from (its .json), oldest first."""
        found = []
        for cubin in self.root.glob("*/*.cubin"):
            meta = cubin.with_suffix(".json")
            if meta.is_file():
                found.append({**json.loads(meta.read_text()), "cubin": str(cubin)})
        return sorted(found, key=lambda m: m.get("created", 0))

    def clear(self) -> int:
        """Delete every entry (and stray temporary files); returns how many entries there were."""
        n = 0
        if not self.root.is_dir():
            return 0
        for f in self.root.glob("*/*"):
            n += f.suffix == ".cubin"
            f.unlink(missing_ok=True)
        return n
