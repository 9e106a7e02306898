"""NVRTC's outputs kept on disk, so a process compiles a source once per machine, not once per process.

Every checking child (one per exercise in `pytest days/dayNN`, one per notebook when grading) compiles
its kernels again, and a Hopper kernel takes NVRTC 10-20 s. `compiler.nvrtc_compile` looks here first.
An entry is keyed by everything that decides the output: NVRTC's version, the options (include folders
and architecture among them), the program's name, the source text (the student's own headers are
inlined or named by hash in it: `compiler.read_source`) and the contents of the course's header trees
(kernels/include and the answer root). Entries are JSON (never unpickled), written atomically, the
oldest pruned past MAX_ENTRIES. COURSE_COMPILE_CACHE=off turns it off; an unwritable folder only means
nothing is kept.
"""
from __future__ import annotations

import base64
import hashlib
import json
import os
import uuid
from pathlib import Path

from grader import paths

ENV = "COURSE_COMPILE_CACHE"
MAX_ENTRIES = 400
_trees: dict[tuple, str] = {}


def folder() -> Path | None:
    """Where entries live: .course/nvrtc (a fresh, empty folder inside a grading sandbox, whose
    compiles are neither read from nor kept for others); None with COURSE_COMPILE_CACHE=off."""
    if os.environ.get(ENV, "").strip().lower() in ("off", "0", "no"):
        return None
    return paths.STATE / "nvrtc"


def headers_digest() -> str:
    """SHA-256 of the course's header trees (kernels/include and the answer root: names and contents),
    recomputed only when a file's (inode, size, mtime, ctime) changes: part of every compile cache key
    (this one's and day 13's JIT's), so a header edit never finds a stale entry."""
    roots = [paths.INCLUDE, paths.answer_include()]
    files = sorted(p for root in roots if root.is_dir() for p in root.rglob("*") if p.is_file())
    stamps = tuple((str(p), *_stamp(p)) for p in files)
    digest = _trees.get(stamps)
    if digest is None:
        h = hashlib.sha256()
        for p in files:
            h.update(str(p).encode() + b"\0" + p.read_bytes() + b"\0")
        digest = _trees[stamps] = h.hexdigest()
    return digest


def _stamp(p: Path) -> tuple[int, ...]:
    st = p.stat()
    return st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns


def key(source: str, name: str, opts: tuple[str, ...], version: str) -> str:
    h = hashlib.sha256()
    for part in (version, "\0".join(opts), name, source, headers_digest()):
        h.update(part.encode() + b"\x1e")
    return h.hexdigest()


def get(k: str) -> tuple[str, bytes, str] | None:
    """(ptx, cubin, log) stored under `k`, or None (absent, off, unreadable or malformed)."""
    where = folder()
    if where is None:
        return None
    entry = where / f"{k}.json"
    try:
        data = json.loads(entry.read_text())
        found = data["ptx"], base64.b64decode(data["cubin"], validate=True), data["log"]
        if not all(isinstance(x, t) for x, t in zip(found, (str, bytes, str))):
            return None
        os.utime(entry)  # recently used: pruned last
        return found
    except (OSError, ValueError, KeyError, TypeError):
        return None


def put(k: str, ptx: str, cubin: bytes, log: str) -> None:
    """Store an entry (atomically: a reader sees all of it or nothing); silent where it cannot write."""
    where = folder()
    if where is None:
        return
    try:
        where.mkdir(parents=True, exist_ok=True)
        write_atomic(where / f"{k}.json",
                     json.dumps({"ptx": ptx, "cubin": base64.b64encode(cubin).decode(), "log": log}).encode())
        _prune(where)
    except OSError:
        pass


def write_atomic(path: Path, data: bytes) -> None:
    """Write to a temporary file beside `path`, then rename it over `path` (atomic on POSIX: a reader sees
    the old file or the new one, whole); the temporary file never stays."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")
    try:
        tmp.write_bytes(data)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def _prune(where: Path) -> None:
    entries = sorted(where.glob("*.json"), key=lambda p: p.stat().st_mtime)
    for old in entries[:max(0, len(entries) - MAX_ENTRIES)]:
        old.unlink(missing_ok=True)
