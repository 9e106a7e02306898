# Your exercise file. Generated from solutions/day13/jit_cache.py by `python -m grader stubs`;
# edit freely: regenerating never overwrites a file you changed.
# stub-sha256: ae663fce1aad9435
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
    # TODO: your code here.
    #   Hint: When could two different inputs feed the hash the same bytes (think of ("-DA", "-DB") and
    #   Hint: ("-DA -DB",))? And which headers does the source reach: how do you find out without compiling?
    raise NotImplementedError("cache_key: write it in days/day13/jit_cache.py")


def write_atomic(path, data: bytes) -> None:
    """Replace the file at `path` by `data` so that no reader ever sees a partial file."""
    # TODO: your code here.
    #   Hint: A reader opens `path` at any moment. What does it find between open(path, "wb") (which empties
    #   Hint: the file) and the end of the write? Which file system operation replaces a name in one step?
    raise NotImplementedError("write_atomic: write it in days/day13/jit_cache.py")
