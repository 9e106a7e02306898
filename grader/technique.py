"""The technique of the day, checked in the SASS of the student's own kernel (no GPU needed).

A correct result is not enough where a day teaches a technique: a one-thread-per-element GEMM is
right on day 10 but teaches nothing about tensor cores. An exercise declares what its kernels must
(and must not) compile to; `check` compiles the graded file offline with NVRTC for sm_90, reads its
SASS with nvdisasm, and raises AssertionError with a sentence a student understands. It looks at
the kernels the exercise launches, one by one (a kernel's SASS section holds the device functions it
calls): each required instruction must show in each kernel that shows it in the solution, so an
unused second kernel holding the shuffles proves nothing. A technique requiring wgmma (HGMMA, QGMMA)
also refuses a kernel whose wgmma ptxas serialized, as its compile log says (`serialized`): its SASS
still shows HGMMA, but nothing overlaps the tensor cores' work, which is what days 15 and 16 teach.
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from grader import compiler, float_index, paths, sass, solution_facts
from grader.messages import described, say, word

ARCH = "sm_90"


@dataclass(frozen=True)
class Technique:
    """What the kernels of an exercise must show.

    require: SASS opcode regexes (matched at the opcode's start) that must each appear;
    forbid: opcode regexes that must not appear; no_spills: no local-memory spills or stack use;
    require_lines: (regex, what it is) pairs searched in whole SASS lines, operands included (the
    wait count of DEPBAR.LE SB0, 0x3 says how many cp.async groups stay in flight);
    require_between: (start, end, opcode, at least, what it is): in each graded kernel whose SASS has a
    `start` line, some stretch from a `start` line to the next `end` line holds at least that many
    instructions of `opcode` (the softmax's MUFU.EX2 between wgmma_wait<1> and wgmma_wait<0>: P V in flight
    while they run, not a wait that only names it);
    source_require / source_forbid: (regex, what it is) pairs searched in the file's code with its
    comments removed, for what SASS cannot tell apart (inline `asm` vs the same instruction from a
    library call; `cub::BlockReduce` standing in for the student's own reduction);
    kernels: which kernels (default: every function of the file); why: the technique, in words
    (\"mma.sync on the tensor cores\"), named in the failure message.
    """
    why: str
    require: tuple[str, ...] = ()
    forbid: tuple[str, ...] = ()
    no_spills: bool = False
    kernels: tuple[str, ...] = ()
    require_lines: tuple[tuple[str, str], ...] = ()
    require_between: tuple[tuple[str, str, str, int, str], ...] = ()
    source_require: tuple[tuple[str, str], ...] = ()
    source_forbid: tuple[tuple[str, str], ...] = ()

    @property
    def words(self) -> list[str]:
        """What a failure message may say of it, each through messages.described (a tech.* entry)."""
        return [self.why, *(what for _, what in self.require_lines + self.source_require + self.source_forbid),
                *(between[-1] for between in self.require_between)]


_COMMENTS = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)


_LINE_DIRECTIVE = re.compile(r'^#line \d+ "[^"\n]*"$', re.M)


def _source_problems(path: Path, t: Technique) -> list[str]:
    """The source checks on the file's code and the headers of its own it includes (day 7's cp_async.cuh):
    one clause each, without the technique (said once per technique, `_graded_on`)."""
    code = _COMMENTS.sub(" ", _LINE_DIRECTIVE.sub("", compiler.read_source(path)))
    found = [say("technique.has_no", file=Path(path).name, what=described(what))
             for pattern, what in t.source_require if not re.search(pattern, code)]
    found += [say("technique.uses", file=Path(path).name, what=described(what))
              for pattern, what in t.source_forbid if re.search(pattern, code)]
    return found


def _graded_on(clauses: list[str], t: Technique) -> list[str]:
    """What a technique's kernels lack or must not have, as one sentence naming the technique once."""
    return [say("sep").join(clauses) + say("technique.graded", why=described(t.why))] if clauses else []


#: The SASS opcodes a technique names, read as the catalogue's sassname.* entries.
_NAMES = ("HMMA", "LDGSTS", "LDSM", "SHFL.BFLY", "SHFL", "MUFU.TANH", "MUFU.EX2", "MUFU.LG2", "MUFU", "LDG.E.128",
          "STG.E.128", "ATOMS", "ATOM", "RED", "LDL", "STL", "BAR")


def _name(pattern: str) -> str:
    """'LDG.E.128 (16-byte global loads)' for the regex that matches LDG.E.128."""
    plain = re.sub(r"\\(.)", r"\1", pattern)
    words = re.split(r"[|()]", plain)
    first = next((w for w in words if w), plain)
    key = max((k for k in _NAMES if first.startswith(k)), key=len, default=None)
    return say("technique.named", pattern=plain, name=word("sassname", key)) if key else plain


#: ptxas's performance advisory (C7510, C7511, C7515, ...) when it cannot keep wgmma asynchronous: it waits
#: for each wgmma.mma_async before the next instruction, so the kernel still shows HGMMA but overlaps nothing.
_SERIALIZED = re.compile(r"^.*?(?:\((C\d+)\)\s*)?(?:Potential Performance Loss:\s*)?wgmma\.mma_async instructions "
                         r"are serialized due to (.+?)(?:\s+in the function '([^']+)')?\.?\s*$", re.M)
#: ptxas's note (C7517) that it waits itself for a wgmma's accumulators, because an instruction uses them before
#: the kernel's wgmma.wait_group: each such wgmma is then waited for at once (WARPGROUP.DEPBAR after each HGMMA).
#: Its sibling C7519 ("warpgroup.arrive is injected ... to allow use of registers in GMMA") is only a fence
#: (no wait for any wgmma: a wgmma in a data-dependent branch gets it and the HGMMA still overlap), so not read.
_INJECTED_WAIT = re.compile(r"^.*?\((C\d+)\)\s*warpgroup\.wait is injected in around line \d+ by compiler to "
                            r"allow use of registers defined by GMMA(?: in function '([^']+)')?\.?\s*$", re.M)
#: The cause `serialized` gives an injected wait (ptxas's words less the line number).
INJECTED_WAIT = "warpgroup.wait is injected by compiler to allow use of registers defined by GMMA"
#: The causes ptxas gives that the catalogue words in the lessons' language (its English is ptxas's own).
_CAUSES = {"wgmma pipeline crossing function boundary at a function call": "wgmma_cause.call",
           "insufficient register resources for the wgmma pipeline": "wgmma_cause.registers",
           "non wgmma instructions defining accumulator registers of a wgmma between start and end of the "
           "pipeline stage": "wgmma_cause.accumulators",
           INJECTED_WAIT: "wgmma_cause.wait"}


def serialized(log: str) -> list[tuple[str, str, str]]:
    """(code, cause, function) of each of ptxas's notes in a compile log that it serialized wgmma.mma_async
    or injected a wait for one (the function '' where the note names none)."""
    return ([(code or "ptxas", cause, function or "") for code, cause, function in _SERIALIZED.findall(log)]
            + [(code, INJECTED_WAIT, function or "") for code, function in _INJECTED_WAIT.findall(log)])


def _serialized(log: str, names: list[str], entries: list[str]) -> list[str]:
    """A clause per cause of ptxas's notes that it serialized the wgmma of a graded kernel (one of `names`),
    or of a device function (not one of the file's `entries`: the kernels calling it are graded), or of no
    function named; the kernels sharing a cause named together."""
    graded = {sass.plain_name(n) for n in names}
    entry = {sass.plain_name(e) for e in entries}
    kernels: dict[tuple[str, str], list[str]] = {}
    for code, cause, function in serialized(log):
        plain = sass.plain_name(function)
        if function and plain not in graded and plain in entry:
            continue
        named = kernels.setdefault((code, cause), [])
        if plain not in named:
            named.append(plain)
    return [say("technique.serialized", code=code, cause=say(_CAUSES[cause]) if cause in _CAUSES else cause,
                kernel=say("list_sep").join(n for n in named if n) or _kernels(names))
            for (code, cause), named in kernels.items()]


def _kernels(group: list[str]) -> str:
    return say("list_sep").join(map(sass.plain_name, group)) or say("technique.its_kernels")


def _has(code: dict, names: list[str], pattern: str, whole_line: bool = False) -> bool:
    if whole_line:
        return any(re.search(pattern, line) for n in names for line in code[n])
    return any(re.match(pattern, sass.opcode(line)) for n in names for line in code[n])


def _most_between(lines: list[str], start: str, end: str, opcode: str) -> int | None:
    """The most instructions of `opcode` in one stretch of `lines` from a `start` line to the next `end`
    line; None when no line matches `start`."""
    most, inside = None, None
    for line in lines:
        if inside is not None and re.search(end, line):
            most, inside = max(most or 0, inside), None
        elif re.search(start, line):
            inside = 0 if inside is None else inside
            most = most or 0
        elif inside is not None and re.match(opcode, sass.opcode(line)):
            inside += 1
    return most


def _key(pattern: str, whole_line: bool) -> str:
    return f"line:{pattern}" if whole_line else pattern


def shows(ref: dict, techniques) -> dict[str, list[str]]:
    """For each function of a reference's SASS, the technique patterns it shows (a whole-line pattern
    as 'line:<regex>'): all the per-kernel grading needs of the solution."""
    wanted = [(p, False) for t in techniques for p in t.require]
    wanted += [(p, True) for t in techniques for p, _ in t.require_lines]
    return {f: sorted({_key(p, w) for p, w in wanted if _has(ref, [f], p, w)}) for f in ref}


def reference_facts(reference: str | Path, techniques) -> dict:
    """What `problems` needs of a reference file (the solution): its SHA-256 and `shows` of its SASS. A
    student edition carries these, computed ahead (grader/solution_facts.py), instead of the solution."""
    data = Path(reference).read_bytes()
    return {"sha256": hashlib.sha256(data).hexdigest(), "shows": shows(sass.load(reference, ARCH)[1], techniques)}


def _graded(code: dict, ref: dict | None, t: Technique, pattern: str, whole_line: bool = False) -> list[list[str]]:
    """The groups of the student's functions that must each show `pattern`: one group per kernel of the
    reference (the solution; `ref` is its `shows`) in which the reference shows it, matched by name (the
    kernels the exercise launches: a kernel the solution does not define is never launched, and one
    kernel's shuffles do not count for another); without a reference, all of the exercise's kernels pooled."""
    in_scope = [f for f in code if not t.kernels or sass.plain_name(f) in t.kernels or f in t.kernels]
    if ref is None:
        return [in_scope]
    ref_scope = [f for f in ref if not t.kernels or sass.plain_name(f) in t.kernels or f in t.kernels]
    showing = [f for f in ref_scope if _key(pattern, whole_line) in ref[f]]
    if not showing:
        return [in_scope]
    return [[f] if f in code else [g for g in code if sass.plain_name(g) == sass.plain_name(f)]
            for f in showing]


def problems(path: str | Path, techniques, reference: str | Path | dict | None = None) -> list[str]:
    """What the file's SASS lacks (or has but must not), one sentence each; [] when all is there.
    With a `reference` (the solution's file, or its `reference_facts`), each required instruction is
    looked for in each kernel that shows it in the reference, by name, and a function the reference
    does not define is ignored. The reference is read only for a file that passes with its functions
    pooled (one that fails pooled fails kernel by kernel too) and is not the reference itself."""
    if not techniques:
        return []
    found = _problems(Path(path), techniques, None)
    if found or not reference:
        return found
    if not isinstance(reference, dict):
        if not Path(reference).is_file():
            return found
        reference = reference_facts(reference, techniques)
    if hashlib.sha256(Path(path).read_bytes()).hexdigest() == reference["sha256"]:
        return found
    return _problems(Path(path), techniques, reference["shows"])


def _problems(path: Path, techniques, ref: dict | None) -> list[str]:
    compiled, code, usage = sass.load(path, ARCH)
    launched = set(code) if ref is None else {f for f in code if any(
        sass.plain_name(f) == sass.plain_name(r) for r in ref)}
    found = []
    for t in techniques:
        clauses = _source_problems(path, t)
        names = [f for f in code if f in launched and (not t.kernels or sass.plain_name(f) in t.kernels
                                                       or f in t.kernels)]
        missing_kernels = [k for k in t.kernels if not any(k in (f, sass.plain_name(f)) for f in code)]
        if missing_kernels:
            found += _graded_on(clauses, t)
            found.append(say("technique.no_kernel", kernels=say("list_sep").join(missing_kernels),
                                 file=path.name))
            continue
        absent: dict[str, list[str]] = {}  # kernels -> what their SASS lacks: one sentence per technique
        for pattern in t.require:
            for group in _graded(code, ref, t, pattern):
                if not group or not _has(code, group, pattern):
                    absent.setdefault(_kernels(group), []).append(_name(pattern))
        for pattern, what in t.require_lines:
            for group in _graded(code, ref, t, pattern, whole_line=True):
                if not group or not _has(code, group, pattern, whole_line=True):
                    absent.setdefault(_kernels(group), []).append(described(what))
        for start, end, opcode, at_least, what in t.require_between:
            short = [n for n in names if (most := _most_between(code[n], start, end, opcode)) is not None
                     and most < at_least]
            if short:
                absent.setdefault(_kernels(short), []).append(described(what))
        clauses += [say("technique.absent", missing=say("technique.no_join").join(missing), kernels=kernels)
                    for kernels, missing in absent.items()]
        if any("GMMA" in pattern for pattern in t.require):  # wgmma taught: kept asynchronous, or it teaches nothing
            clauses += _serialized(compiled.log, names, compiled.kernels)
        found += _graded_on(clauses, t)
        ops = [sass.opcode(line) for n in names for line in code[n]]
        for pattern in t.forbid:
            hits = sorted({op for op in ops if re.match(pattern, op)})
            if hits:
                found.append(say("technique.forbidden", hits=say("list_sep").join(hits), kernels=_kernels(names),
                                 what=_name(pattern), why=described(t.why)))
        if t.no_spills:
            for n in names:
                u = usage.get(n, {})
                if u.get("spill_stores") or u.get("spill_loads") or u.get("local"):
                    found.append(say("technique.spills", kernel=sass.plain_name(n), stores=u.get("spill_stores", 0),
                                     loads=u.get("spill_loads", 0), local=u.get("local", 0), why=described(t.why)))
    return found


def _ptx(path: Path, techniques) -> str:
    """The file's PTX: from the SASS already read for the technique, or compiled for it alone."""
    if techniques:
        return sass.load(path, ARCH)[0].ptx
    source = compiler.read_source(path)
    return compiler.nvrtc_compile(source, str(path), compiler.options(None, ("-arch=compute_90",)))[0]


def prepare(ex, path: str | Path) -> None:
    """Compile (and disassemble) what `check(ex, path)` reads, ahead of it (`runner.precompile`)."""
    if getattr(ex, "technique", ()):
        sass.load(path, ARCH)
    else:
        _ptx(Path(path), ())


def check(ex, path: str | Path) -> None:
    """AssertionError naming what is missing when `path` does not use the exercise's technique, or
    when one of its kernels computes its index through a float (`grader.float_index`)."""
    techniques = getattr(ex, "technique", ())
    try:
        reference = paths.SOLUTIONS / ex.day / ex.source if paths.SOLUTIONS.is_dir() else \
            solution_facts.technique(ex.day, ex.source)
        found = problems(path, techniques, reference)
        ptx = _ptx(Path(path), techniques)
    except FileNotFoundError as e:  # nvdisasm / cuobjdump missing: the course install has them
        raise AssertionError(say("technique.no_sass", exercise=ex.key, error=e)) from None
    if found:
        raise AssertionError(say("technique.missing", exercise=ex.key, file=Path(path).name,
                                 found=say("sep").join(found)))
    wrong = float_index.problems(ptx)
    if wrong:
        raise AssertionError(say("technique.float_index", exercise=ex.key, file=Path(path).name,
                                 found=say("sep").join(wrong)))
