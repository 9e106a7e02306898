"""Day 13's cache exercise (jit_cache.py): the checks of the student's `cache_key` and `write_atomic`.

Each check is a Python exercise in two halves (`runner.harnessed`): the harness runs the student's
functions in the student's sandboxed process and returns what it saw (keys, file contents as digests,
what a reader found); the grader verifies that data. No check needs a GPU.
"""
from __future__ import annotations

import hashlib
import os
import re
import resource
import signal
import tempfile
import threading
from pathlib import Path

from grader import runner
from grader.messages import say

SOURCE = '#include <a.cuh>\n#include "d.cuh"\nextern "C" __global__ void k(float* x) { x[0] = A + D; }\n'
OPTIONS = ("-std=c++17", "-DVEC=8", "--use_fast_math")
ARCH = "sm_90"
# inc2/a.cuh includes "b.cuh": the one beside it (inc2/b.cuh), not inc1/b.cuh, though inc1 comes first.
TREE = {
    "inc1/b.cuh": "#define B_SHADOWED 1\n",
    "inc1/c.cuh": "#pragma once\n#define C 3\n",
    "inc1/d.cuh": "#define D 4\n",
    "inc1/unrelated.cuh": "#define UNRELATED 5\n",
    "inc2/a.cuh": '#pragma once\n#include "b.cuh"\n#define A (B + 1)\n',
    "inc2/b.cuh": "#pragma once\n#include <c.cuh>\n#define B (C * 2)\n",
}


def _write_tree(root: Path, files: dict[str, str]) -> list[Path]:
    """`files` (and nothing else) under root/inc1 and root/inc2; the include folders, in order."""
    for old in root.rglob("*.cuh"):
        old.unlink()
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return [root / "inc1", root / "inc2"]


def _key(module, root: Path, files=TREE, source=SOURCE, options=OPTIONS, arch=ARCH, swap_dirs=False) -> str:
    dirs = _write_tree(root, files)
    key = module.cache_key(source, tuple(options), arch, dirs[::-1] if swap_dirs else dirs)
    return key if isinstance(key, str) else repr(key)


def _edited(name: str, text: str = "// edited\n") -> dict[str, str]:
    """TREE with `text` appended to one file (a file TREE lacks is added): the same names, other bytes."""
    return {**TREE, name: TREE.get(name, "") + text}


# Each group: (label: its catalogue key, how the inputs differ from the base, whether the key must change).
_KEY_GROUPS = {
    "inputs": (
        ("day13.case.same", {}, False),
        ("day13.case.space", {"source": SOURCE + " "}, True),
        ("day13.case.order", {"options": OPTIONS[::-1]}, True),
        ("day13.case.option", {"options": OPTIONS[:2] + ("--use_fast_math=false",)}, True),
        ("day13.case.arch", {"arch": "sm_80"}, True),
    ),
    "includes": (
        ("day13.case.a_edited", {"files": _edited("inc2/a.cuh")}, True),
        ("day13.case.b_edited", {"files": _edited("inc2/b.cuh")}, True),
        ("day13.case.c_edited", {"files": _edited("inc1/c.cuh")}, True),
        ("day13.case.d_edited", {"files": _edited("inc1/d.cuh")}, True),
        ("day13.case.a_added", {"files": _edited("inc1/a.cuh", "#define A 9\n")}, True),
    ),
    "unrelated": (
        ("day13.case.unrelated", {"files": _edited("inc1/unrelated.cuh")}, False),
        ("day13.case.other_b", {"files": _edited("inc1/b.cuh")}, False),
        ("day13.case.new_header", {"files": _edited("inc1/new.cuh", "#define NEW 1\n")}, False),
    ),
    "framing": (
        ("day13.case.split", {"options": ("-DA -DB",), "base": {"options": ("-DA", "-DB")}},
         True),
        ("day13.case.split_value", {"options": ("-DA=", "1"), "base": {"options": ("-DA=1",)}}, True),
        ("day13.case.empty_option", {"options": ("",), "base": {"options": ()}}, True),
        ("day13.case.swapped",
         {"swap_dirs": True, "files": _edited("inc1/a.cuh", "#define A 9\n"),
          "base": {"files": _edited("inc1/a.cuh", "#define A 9\n")}}, True),
    ),
    "missing_and_cycles": (
        ("day13.case.missing",
         {"source": "#include <missing.cuh>\n" + SOURCE, "files": _edited("inc1/missing.cuh", "#define M 1\n"),
          "base": {"source": "#include <missing.cuh>\n" + SOURCE}}, True),
        ("day13.case.cycle",
         {"files": {**TREE, "inc1/c.cuh": "#include <a.cuh>\n#define C 3\n// edited\n"},
          "base": {"files": {**TREE, "inc1/c.cuh": "#include <a.cuh>\n#define C 3\n"}}}, True),
        ("day13.case.self",
         {"files": {**_edited("inc2/a.cuh"), "inc2/b.cuh": '#include "b.cuh"\n' + TREE["inc2/b.cuh"]},
          "base": {"files": {**TREE, "inc2/b.cuh": '#include "b.cuh"\n' + TREE["inc2/b.cuh"]}}}, True),
    ),
}


ROOTS = {"plain": "headers", "spaces": "my headers/über ünïcode"}  # the folder the include folders lie in


def _run_cache_key(module, seed: int, group: str, root: str) -> dict:
    """Per row, the key of the base inputs and of the changed ones, in the same folders."""
    root, rows = Path(tempfile.mkdtemp(prefix="cache-key-")) / ROOTS[root], []
    for label, change, differs in _KEY_GROUPS[group]:
        change = dict(change)
        base = _key(module, root, **change.pop("base", {}))
        rows.append({"label": label, "base": base, "other": _key(module, root, **change), "differs": differs})
    return {"rows": rows}


@runner.harnessed(_run_cache_key)
def check_cache_key(found: dict, seed: int, group: str, root: str) -> None:
    """Every key a SHA-256 in hex; each pair of inputs gives the same key or a different one, as the
    contract says."""
    for row in found["rows"]:
        for key in (row["base"], row["other"]):
            if not re.fullmatch(r"[0-9a-f]{64}", key):
                raise AssertionError(say("day13.key_format", group=group, label=say(row["label"]), key=repr(key[:80])))
        if (row["base"] != row["other"]) != row["differs"]:
            want, got = (say(k) for k in (("day13.key_different", "day13.key_same") if row["differs"] else
                                          ("day13.key_same", "day13.key_different")))
            raise AssertionError(say("day13.key_wrong", group=group, label=say(row["label"]), want=want, got=got,
                                     base=row["base"][:16], other=row["other"][:16]))


# ---- write_atomic ------------------------------------------------------------------------------------

OLD = b"old content, whole\n" * 256          # 4.75 KiB
LIMIT = 64 * 1024                              # the file-size limit the failing write runs into
MiB = 1024 * 1024


def _digest(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except FileNotFoundError:
        return None


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _payload(seed: int, n: int) -> bytes:
    return (hashlib.sha256(str(seed).encode()).digest() * (n // 32 + 1))[:n]


def _run_writes(module, folder: Path, seed: int, size: int) -> dict:
    target, new = folder / "out.bin", _payload(seed, size)
    module.write_atomic(target, b"first")
    first = _digest(target)
    module.write_atomic(str(target), new)
    return {"first": first, "new": _digest(target), "want_first": _sha(b"first"), "want_new": _sha(new),
            "folder": sorted(os.listdir(folder))}


def _run_failure(module, folder: Path, seed: int, size: int) -> dict:
    target = folder / "out.bin"
    target.write_bytes(OLD)
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    previous = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)   # a write past the limit raises, not kills
    raised = None
    try:
        resource.setrlimit(resource.RLIMIT_FSIZE, (LIMIT, hard))
        module.write_atomic(target, _payload(seed, size))
    except OSError as e:
        raised = type(e).__name__
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, previous)
    return {"raised": raised, "content": _digest(target), "want": _sha(OLD), "folder": sorted(os.listdir(folder))}


def _run_readers(module, folder: Path, seed: int, size: int) -> dict:
    target = folder / "out.bin"
    versions = [_payload(seed + i, size) for i in range(2)]
    target.write_bytes(versions[0])
    whole = {_sha(v) for v in versions}
    seen = {"whole": 0, "partial": 0, "missing": 0, "writes": 0}
    done, failed = threading.Event(), []

    def writer():
        try:
            for i in range(24):
                module.write_atomic(target, versions[(i + 1) % 2])
                seen["writes"] += 1
        except BaseException as e:  # noqa: BLE001 - raised again in the harness's thread
            failed.append(e)
        finally:
            done.set()

    thread = threading.Thread(target=writer, daemon=True)
    thread.start()
    while not done.is_set():
        try:
            data = target.read_bytes()
        except FileNotFoundError:
            seen["missing"] += 1
            continue
        seen["whole" if _sha(data) in whole else "partial"] += 1
    thread.join()
    if failed:
        raise failed[0]
    return seen


_WRITE_RUNS = {"writes": _run_writes, "failure": _run_failure, "readers": _run_readers}


def _run_write_atomic(module, seed: int, check: str, size: int) -> dict:
    return _WRITE_RUNS[check](module, Path(tempfile.mkdtemp(prefix="write-atomic-")), seed, size)


@runner.harnessed(_run_write_atomic)
def check_write_atomic(found: dict, seed: int, check: str, size: int) -> None:
    """What the harness saw against the contract: the bytes, the folder, the failure, the readers."""
    if check == "writes":
        if found["first"] != found["want_first"] or found["new"] != found["want_new"]:
            raise AssertionError(say("day13.bytes", which=say("day13.first_write") if found["first"] != found["want_first"]
                                     else say("day13.second_write", size=size)))
        if found["folder"] != ["out.bin"]:
            raise AssertionError(say("day13.leftover", folder=found["folder"]))
    elif check == "failure":
        if found["raised"] is None:
            raise AssertionError(say("day13.must_fail", size=size, limit=LIMIT // 1024))
        if found["content"] != found["want"]:
            raise AssertionError(say("day13.cut"))
        if found["folder"] != ["out.bin"]:
            raise AssertionError(say("day13.partial_left", folder=found["folder"]))
    else:
        if found["writes"] != 24:
            raise AssertionError(say("day13.writes", writes=found["writes"]))
        if found["partial"] or found["missing"]:
            raise AssertionError(say("day13.readers", size=size, partial=found["partial"], missing=found["missing"],
                                     whole=found["whole"]))


def host_only(case: dict) -> int:
    """A case's emulator work: none (the cache runs on the host), so every case runs without a GPU too."""
    return 1


CACHE_KEY_CASES = tuple({"group": g, "root": "plain"} for g in _KEY_GROUPS)
WRITE_ATOMIC_CASES = ({"check": "writes", "size": MiB}, {"check": "failure", "size": MiB}, {"check": "readers", "size": 4 * MiB})
