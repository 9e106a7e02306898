"""What a kernel file may include, decided on the preprocessor's tokens, and compile logs cut down to the
files a student may see.

`check` reads a .cu file as NVRTC's preprocessor does (line splices joined, comments and string
literals skipped, `#` or `%:` then any whitespace, form feeds, vertical tabs, newlines and comments,
then the directive name, universal character names decoded), so a directive hidden from a line-based
regex (a comment before or after the `#`, a form feed, an `#include` inside a macro argument) is still
found. Every include must name a header (`<...>` or `"..."`; a computed one is refused), may not be
absolute or go up a folder, and is resolved as NVRTC resolves it (a quoted name beside the including
file first, then the include path, in order): what it resolves to must lie in the submission's own
folder or on the course's include path (kernels/include, cupy's CCCL headers, the CUDA headers; not
the course's versions of the days' exercises, which only its headers include), and
no #define or #undef may name a macro that decides which file a header on the include path includes
(thrust's `#include __THRUST_..._HEADER`: `#define detail ../../secret` would point it anywhere). The
submission's own headers are checked the same way.

`sanitize_log` keeps only the diagnostics located in those same folders, so a compile error never
shows the text of another file.
"""
from __future__ import annotations

import functools
import os
import re
from pathlib import Path

from grader.messages import say

DIRECTIVES = ("include", "include_next", "import", "embed")
MACRO_DIRECTIVES = ("define", "undef")

_SPLICE = re.compile(r"\\[ \t\f\v]*(?:\r\n|\r|\n)")
_UCN = re.compile(r"\\u([0-9A-Fa-f]{4})|\\U([0-9A-Fa-f]{8})")
_IDCHAR = r"(?:[A-Za-z0-9_]|\\u[0-9A-Fa-f]{4}|\\U[0-9A-Fa-f]{8}|[^\x00-\x7f])"
_TOKEN = re.compile(rf"""
    (?P<space>(?:[ \t\f\v\r\n]|//[^\n]*|/\*.*?(?:\*/|\Z))+)
  | (?P<raw>(?:u8|u|U|L)?R"(?P<delim>[^ ()\\\t\v\f\r\n]{{0,16}})\()
  | (?P<literal>(?:u8|u|U|L)?(?:"(?:\\.|[^"\\\n])*"?|'(?:\\.|[^'\\\n])*'?))
  | (?P<hash>%:%:|\#\#|%:|\#|\?\?=)
  | (?P<ident>(?![0-9]){_IDCHAR}+)
  | (?P<other>.)
""", re.S | re.X)
_BLANK = re.compile(r"(?:[ \t\f\v\r]|/\*.*?(?:\*/|\Z))*", re.S)   # within a directive's line
_HEADER = re.compile(r'<[^>\n]*>|"[^"\n]*"')


class IncludeRefused(ValueError):
    """An include the course does not compile; the message is one line naming file, line and why."""


def _identifier(text: str) -> str:
    return _UCN.sub(lambda m: chr(int(m.group(1) or m.group(2), 16)), text)


def directives(text: str) -> list[tuple[int, str, str | None]]:
    """(line, directive, argument) of every include-like directive in `text` (the argument: the header
    name as written, None if computed) and every #define and #undef (the argument: the macro's name),
    wherever the preprocessor could see one (in a macro argument too)."""
    text = _SPLICE.sub("", text)
    found, pos, after_hash = [], 0, False
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        kind = m.lastgroup
        if kind == "raw":  # R"delim( ... )delim": nothing inside is a directive
            close = text.find(f'){m.group("delim")}"', m.end())
            pos = len(text) if close < 0 else close + len(m.group("delim")) + 2
            after_hash = False
            continue
        pos = m.end()
        if kind == "space":
            continue
        name = _identifier(m.group()) if after_hash and kind == "ident" else None
        if name in DIRECTIVES:
            header = _HEADER.match(text, _BLANK.match(text, pos).end())
            found.append((text.count("\n", 0, m.start()) + 1, name, header.group() if header else None))
            if header:
                pos = header.end()
        elif name in MACRO_DIRECTIVES:
            macro = _TOKEN.match(text, _BLANK.match(text, pos).end())
            if macro and macro.lastgroup == "ident":
                found.append((text.count("\n", 0, m.start()) + 1, name, _identifier(macro.group())))
        after_hash = kind == "hash" and m.group() in ("#", "%:", "??=")  # ??=: a trigraph, if ever enabled
    return found


def _inside(path: Path, roots) -> bool:
    return any(path == r or r in path.parents for r in roots)


_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)(?:\([^)\n]*\))?(.*)$", re.M)
_COMPUTED = re.compile(r"^[ \t]*#[ \t]*include(?:_next)?[ \t]+([A-Za-z_]\w*)", re.M)


@functools.cache
def steering_macros(include_dirs: tuple[Path, ...]) -> frozenset[str]:
    """The names whose definition decides which file a header on the include path includes: the
    macros of its computed includes (thrust's `#include __THRUST_DEVICE_SYSTEM_TAG_HEADER`) and every
    identifier of their definitions, transitively (`detail`, `cuda`, `h` in
    `<thrust/system/cuda/detail/execution_policy.h>`). A student's #define of one could point the
    header at any file."""
    seeds, bodies = set(), {}
    for base in include_dirs:
        for folder, _, files in os.walk(base):
            for name in files:
                try:
                    text = Path(folder, name).read_text(errors="replace")
                except OSError:
                    continue
                computed = _COMPUTED.findall(text)
                seeds.update(computed)
                if computed or "__THRUST" in text:
                    for macro, body in _DEFINE.findall(text):
                        bodies.setdefault(macro, set()).update(re.findall(r"[A-Za-z_]\w*", body))
    found, todo = set(), list(seeds)
    while todo:
        name = todo.pop()
        if name not in found:
            found.add(name)
            todo += bodies.get(name, ())
    return frozenset(found)


def check(path: Path, include_dirs: list[Path], answers: list[Path] = ()) -> None:
    """Refuse (IncludeRefused) any include of `path`, or of the other kernel files of its folder, that
    is computed, absolute, goes up a folder (..), resolves outside `path`'s folder and `include_dirs`
    or inside `answers` (the course's versions of the days' exercises, which only the course headers
    include), and any #define or #undef of a name that steers a header's computed include."""
    path = Path(path).resolve()
    roots = [path.parent, *(Path(d).resolve() for d in include_dirs)]
    steering, seen = (lambda: steering_macros(tuple(roots[1:]))), set()
    answers = [Path(d).resolve() for d in answers]
    _check(path, path.parent, roots, steering, seen, answers)
    # and every other kernel file beside it: a header on the include path could pick one up by name
    for other in sorted(path.parent.glob("*.cu*")):
        if other.suffix in (".cu", ".cuh") and other.is_file() and not other.is_symlink():
            _check(other.resolve(), path.parent, roots, steering, seen, answers)


def _check(path: Path, folder: Path, roots: list[Path], steering, seen: set, answers: list[Path]) -> None:
    if path in seen:
        return
    seen.add(path)
    try:
        text = path.read_text(errors="replace")
    except OSError as e:
        raise IncludeRefused(say("include.unreadable", name=path.name, why=e.strerror)) from None
    for line, kind, header in directives(text):
        where = f"{path.name}:{line}"
        if kind in MACRO_DIRECTIVES:
            if header in steering():  # scanned on the first #define only
                raise IncludeRefused(say("include.steering", where=where, kind=kind, header=header))
            continue
        if kind != "include" or header is None:
            raise IncludeRefused(say("include.directive", where=where, kind=kind))
        name = header[1:-1]
        if name.startswith("/") or "\\" in name or ".." in Path(name).parts:
            raise IncludeRefused(say("include.path", where=where, header=header))
        # every file the name could resolve to (NVRTC searches the source's folder for <...> too)
        for found in sorted({(d / name).resolve() for d in (path.parent, *roots) if (d / name).is_file()}):
            if not _inside(found, roots):
                raise IncludeRefused(say("include.outside", where=where, header=header, name=path.name))
            if _inside(found, answers):
                raise IncludeRefused(say("include.answer", where=where, header=header))
            if _inside(found, [folder]):
                _check(found, folder, roots, steering, seen, answers)


# ---- compile logs ------------------------------------------------------------------------------

_LOCATED = re.compile(r"^(?P<file>.+?)\((?P<line>\d+)\): ")


def sanitize_log(log: str, roots: list[Path]) -> str:
    """`log` (NVRTC's: a diagnostic is a `file(line): ...` line and the lines after it, up to a blank
    line or the next diagnostic) without the diagnostics located in files outside `roots`; a line says
    how many were removed."""
    kept, removed, keep = [], 0, True
    for line in log.splitlines():
        located = _LOCATED.match(line)
        if located:
            keep = _inside(Path(located["file"]).resolve(), roots)
            removed += not keep
        elif not line.strip():
            keep = True
        if keep:
            kept.append(line)
    if removed:
        kept.append(say("include.removed", count=removed) if removed > 1 else say("include.removed_one"))
    return "\n".join(kept)
