"""Day 13, exercise 1: the two parts of a compile cache that must be right, written by you.

    key = cache_key(source, options, arch, include_dirs)   # names the binary that compiling `source` gives
    write_atomic(path, data)                               # a reader sees the old file or the new one, whole

The course's JIT (grader/jit/cache.py) keys an entry by everything that can change the binary, with
*every* course header in it: safe, but an edit to any header recompiles every kernel. Your key follows
the includes, so only the headers the source reaches count.

cache_key(source: str, options: sequence of str, arch: str, include_dirs: sequence of paths) -> str
- a SHA-256 as 64 lowercase hex digits, the same for the same inputs in any process (so not Python's
  hash(), salted per process, nor an id() or a time);
- different when the source, an option (its text, or the options' order), the arch, or the bytes of
  any header the source includes (directly or through other headers) change;
- the same when a header that no include reaches changes;
- the options are a sequence, not a string: ("-DA", "-DB") and ("-DA -DB",) are different compiles and
  must get different keys;
- lookup, as the compiler does it: `#include <name>` in include_dirs in order, the first match wins;
  `#include "name"` first in the folder of the file that includes it, then in include_dirs (the
  source itself has no folder). A header found nowhere is missing: the key still comes out (the
  compiler reports the error) and changes once the header appears;
- a header included twice, or in a cycle (a includes b includes a), must not loop forever.

write_atomic(path: str or Path, data: bytes) -> None
- afterwards `path` holds exactly `data`, and its folder holds no other new file;
- a reader that opens `path` at any moment sees its old content whole (or no file, if there was none)
  or the new content whole: never an empty, shorter or mixed file;
- when writing fails part way (a full disk, a file-size limit: the OSError a write raises), `path` keeps
  its old content, nothing new stays in the folder, and the error reaches the caller.

The grader builds a tree of headers in two include folders, edits one file at a time and compares your
keys; it writes while another thread reads, and writes under a file-size limit that makes the write fail.
"""
from __future__ import annotations

import hashlib
import os
import re
import tempfile
from pathlib import Path


def cache_key(source: str, options, arch: str, include_dirs) -> str:
    """The SHA-256 (hex) of the source, the options, the arch and every header the source reaches."""
    # BEGIN EXERCISE
    # HINT: When could two different inputs feed the hash the same bytes (think of ("-DA", "-DB") and
    # HINT: ("-DA -DB",))? And which headers does the source reach: how do you find out without compiling?
    # HINT2: One hasher. Feed every input as a piece that cannot run into the next one; then walk the
    # HINT2: include graph from the source: a work list of (text, folder of that text), each include line
    # HINT2: resolved by the lookup rules, each file visited once, its name and bytes fed in, a header
    # HINT2: found nowhere fed in as missing.
    # HINT3: Prefix each piece with a tag and its length: no two different inputs can then give the same
    # HINT3: byte stream (a separator works only if it can never occur inside a piece). A quoted include is
    # HINT3: looked up beside the file that contains it first, which is why the work list carries each
    # HINT3: text's folder. A set of the resolved paths already visited stops cycles and repeats, and the
    # HINT3: walk's order must follow the inputs alone (a list, not a set's iteration order).
    # STUB: raise NotImplementedError("cache_key: write it in days/day13/jit_cache.py")
    h = hashlib.sha256()

    def feed(tag: bytes, data: bytes) -> None:
        h.update(tag + len(data).to_bytes(8, "little") + data)

    feed(b"source", source.encode())
    for option in options:
        feed(b"option", option.encode())
    feed(b"arch", arch.encode())
    folders = [Path(d) for d in include_dirs]
    visited: set[Path] = set()
    todo: list[tuple[str, Path | None]] = [(source, None)]
    while todo:
        text, here = todo.pop()
        for bracket, name in re.findall(r'^[ \t]*#[ \t]*include[ \t]*([<"])([^>"\n]+)[>"]', text, re.M):
            look_in = ([here] if bracket == '"' and here is not None else []) + folders
            found = next((f / name for f in look_in if (f / name).is_file()), None)
            if found is None:
                feed(b"missing", name.encode())
                continue
            found = found.resolve()
            feed(b"header", name.encode())
            if found in visited:
                continue
            visited.add(found)
            data = found.read_bytes()
            feed(b"bytes", data)
            todo.append((data.decode("utf-8", "replace"), found.parent))
    return h.hexdigest()
    # END EXERCISE


def write_atomic(path, data: bytes) -> None:
    """Replace the file at `path` by `data` so that no reader ever sees a partial file."""
    # BEGIN EXERCISE
    # HINT: A reader opens `path` at any moment. What does it find between open(path, "wb") (which empties
    # HINT: the file) and the end of the write? Which file system operation replaces a name in one step?
    # HINT2: Write the bytes to a new file of a unique name in the same folder, make sure they reached the
    # HINT2: disk, then rename it over `path`; when anything fails, remove the new file and let the error
    # HINT2: go on to the caller.
    # HINT3: os.replace is atomic only within one file system, hence the same folder; tempfile.mkstemp(dir=)
    # HINT3: gives a unique name, so two writers never share a temporary. A reader that opened the old file
    # HINT3: keeps reading the old data, whole. Flush and os.fsync before the rename, or a crash can leave
    # HINT3: the new name pointing at an empty file. Clean up in `except BaseException:` and re-raise.
    # STUB: raise NotImplementedError("write_atomic: write it in days/day13/jit_cache.py")
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise
    # END EXERCISE
