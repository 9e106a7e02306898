"""What the GPU runs: SASS, opcode histograms and resource usage of a kernel file, without a GPU.

A .cu file is compiled offline to a cubin (`grader.compiler`), then disassembled with nvdisasm and
inspected with `cuobjdump -res-usage` (pip: nvidia-cuda-nvdisasm, nvidia-cuda-cuobjdump).
"""
from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
import tempfile
from collections import Counter
from pathlib import Path

from grader import compiler, paths
from grader.compiler import Compiled, compile_file
from grader.messages import say, word

_PACKAGES = {"nvdisasm": "nvidia-cuda-nvdisasm", "cuobjdump": "nvidia-cuda-cuobjdump"}
_INSTRUCTION = re.compile(r"^\s*/\*[0-9a-f]+\*/\s+(.*?)\s*;", re.IGNORECASE)
_PREDICATE = re.compile(r"^@!?U?P(?:\d+|T)\s+")
_RESOURCE_NAMES = {"REG": "registers", "STACK": "stack", "SHARED": "shared", "LOCAL": "local"}
_SPILLS = re.compile(r"Function properties for (\S+)\n.*?(\d+) bytes spill stores"
                     r", (\d+) bytes spill loads")


@functools.cache
def tool(name: str) -> Path:
    """nvdisasm or cuobjdump: the pip wheel's, else PATH, $CUDA_PATH/bin or /usr/local/cuda/bin."""
    candidates = []
    try:
        import nvidia

        candidates += [p for base in nvidia.__path__ for p in sorted(Path(base).glob(f"*/bin/{name}"))]
    except ImportError:
        pass
    if shutil.which(name):
        candidates.append(Path(shutil.which(name)))
    candidates += [Path(os.environ[e]) / "bin" / name for e in ("CUDA_PATH", "CUDA_HOME")
                   if os.environ.get(e)]
    candidates.append(Path("/usr/local/cuda/bin") / name)
    found = next((c for c in candidates if c.is_file() and os.access(c, os.X_OK)), None)
    if found is None:
        raise FileNotFoundError(say("sass.no_tool", name=name, package=_PACKAGES.get(name, name)))
    return found


def _run_on_cubin(name: str, args: list[str], cubin: bytes) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        file = Path(tmp) / "kernel.cubin"
        file.write_bytes(cubin)
        result = subprocess.run([str(tool(name)), *args, str(file)], capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(say("sass.tool_failed", name=name, args=" ".join(args), error=result.stderr.strip()))
    return result.stdout


def disassemble(compiled: Compiled) -> dict[str, list[str]]:
    """SASS per function, kernels first: {'k': ['S2R R0, SR_TID.X', '@P0 EXIT', ...]} (no addresses)."""
    functions: dict[str, list[str]] = {}
    current = None
    for line in _run_on_cubin("nvdisasm", ["-c"], compiled.cubin).splitlines():
        if line.startswith("//----"):
            section = re.search(r"\s\.text\.(\S+)", line)
            current = functions.setdefault(section.group(1), []) if section else None
        elif current is not None and (m := _INSTRUCTION.match(line)):
            current.append(m.group(1))
    kernels = [k for k in compiled.kernels if k in functions]
    return {name: functions[name] for name in kernels + [f for f in functions if f not in kernels]}


def opcode(line: str) -> str:
    """'LDG.E.128' from '/*0100*/ @!P0 LDG.E.128 R4, desc[UR4][R2.64] ;': modifiers kept, no predicate."""
    m = _INSTRUCTION.match(line)
    text = _PREDICATE.sub("", (m.group(1) if m else line).strip())
    return text.split()[0].rstrip(";") if text else ""


def histogram(lines: list[str]) -> Counter:
    """How many times each opcode (with its modifiers) occurs in SASS lines."""
    return Counter(op for op in map(opcode, lines) if op)


def families(hist: Counter) -> Counter:
    """A histogram collapsed to base mnemonics: LDG.E.128 and LDG.E count as LDG."""
    out: Counter = Counter()
    for op, n in hist.items():
        out[op.split(".")[0]] += n
    return out


def resources(compiled: Compiled) -> dict[str, dict[str, int]]:
    """Per function: registers, stack, shared, local (bytes) and cuobjdump's other counters, lowercased;
    spill_stores / spill_loads too when the NVRTC log has ptxas -v output (as `load` compiles)."""
    usage: dict[str, dict[str, int]] = {}
    name = None
    for line in _run_on_cubin("cuobjdump", ["-res-usage"], compiled.cubin).splitlines():
        if m := re.match(r"\s*Function (\S+):$", line):
            name = m.group(1)
        elif name and "REG:" in line:
            usage[name] = {_RESOURCE_NAMES.get(k, k.lower()): int(v)
                           for k, v in re.findall(r"([A-Z]+(?:\[\d+\])?):(\d+)", line)}
            name = None
    for fn, stores, loads in _SPILLS.findall(compiled.log):
        usage.setdefault(fn, {}).update(spill_stores=int(stores), spill_loads=int(loads))
    return usage


@functools.cache
def _analyse(path: Path, mtime_ns: tuple[int, ...], arch: str) -> tuple[Compiled, dict, dict]:
    compiled = compile_file(path, arch, extra=compiler.SASS_OPTIONS)
    return compiled, disassemble(compiled), resources(compiled)


def load(path: str | os.PathLike, arch: str = "sm_90") -> tuple[Compiled, dict, dict]:
    """(compiled, disassemble(), resources()) for a .cu file; cached per (path, mtime, arch), the mtimes of
    the headers beside it included (a student's own header, such as day 12's prefill_steps.cuh)."""
    path = Path(path).resolve()
    if not path.is_file():
        raise FileNotFoundError(say("sass.no_source", path=path))
    headers = (*sorted(path.parent.glob("*.cuh")), *compiler.own_stand_ins())  # and those it stands on
    mtimes = tuple(p.stat().st_mtime_ns for p in (path, *headers))
    return _analyse(path, mtimes, arch)


def plain_name(name: str) -> str:
    """'scale' for the mangled '_Z5scalePf', 'ns::k' for '_ZN2ns1kEv'; other names unchanged."""
    if not name.startswith("_Z"):
        return name
    rest, nested, parts = name[2:].removeprefix("N"), name.startswith("_ZN"), []
    while (m := re.match(r"\d+", rest)) and (nested or not parts):
        size = int(m.group())
        parts.append(rest[m.end():m.end() + size])
        rest = rest[m.end() + size:]
    return "::".join(parts) or name


def _label(name: str) -> str:
    return name if plain_name(name) == name else f"{plain_name(name)} ({name})"


def _select(path, sass: dict, kernel: str | None) -> list[str]:
    if kernel is None:
        return list(sass)
    chosen = [f for f in sass if kernel in (f, plain_name(f))]
    if not chosen:
        raise ValueError(say("sass.no_kernel", kernel=kernel, path=path,
                             functions=", ".join(map(_label, sass)) or say("sass.no_functions")))
    return chosen


def _shown(path) -> str:
    path = Path(path).resolve()
    return str(path.relative_to(paths.ROOT)) if path.is_relative_to(paths.ROOT) else str(path)


def _resource_line(res: dict[str, int]) -> str:
    keys = ("registers", "stack", "spill_stores", "spill_loads", "shared", "local")
    return say("list_sep").join(f"{word('sass.res', key)} {res[key]}" + ("" if key == "registers" else " B")
                     for key in keys if key in res)


def report(path: str | os.PathLike, arch: str = "sm_90", kernel: str | None = None,
           top: int | None = None) -> str:
    """Per kernel: its resource usage, then its opcodes by count (the `top` most frequent, default all)."""
    _, sass, usage = load(path, arch)
    out = [f"{_shown(path)} ({arch})"]
    for name in _select(path, sass, kernel):
        hist = histogram(sass[name])
        out += ["", f"{_label(name)}: {_resource_line(usage.get(name, {}))}"]
        out += [f"{n:8d}  {op}" for op, n in sorted(hist.items(), key=lambda kv: (-kv[1], kv[0]))[:top]]
        out.append(say("sass.total", count=sum(hist.values()), opcodes=len(hist)))
    return "\n".join(out)


def compare(path_a: str | os.PathLike, path_b: str | os.PathLike, arch: str = "sm_90",
            kernel: str | None = None) -> str:
    """Opcode counts of two versions of a file, per kernel (matched by name): rows that differ, and totals."""
    (_, sass_a, usage_a), (_, sass_b, usage_b) = load(path_a, arch), load(path_b, arch)
    names_a, names_b = _select(path_a, sass_a, kernel), _select(path_b, sass_b, kernel)
    out = [f"A = {_shown(path_a)}", f"B = {_shown(path_b)}  ({arch})"]
    for where, mine, theirs in (("A", names_a, names_b), ("B", names_b, names_a)):
        if only := [n for n in mine if n not in theirs]:
            out.append(say("sass.only_in", where=where, names=", ".join(map(_label, only))))
    for name in [n for n in names_a if n in names_b]:
        hist_a, hist_b = histogram(sass_a[name]), histogram(sass_b[name])
        regs = [u.get(name, {}).get("registers", "?") for u in (usage_a, usage_b)]
        rows = [(op, hist_a[op], hist_b[op]) for op in sorted(hist_a.keys() | hist_b.keys())
                if hist_a[op] != hist_b[op]]
        rows.sort(key=lambda r: (-abs(r[2] - r[1]), r[0]))
        rows.append((say("sass.total_row"), sum(hist_a.values()), sum(hist_b.values())))
        opcode = say("sass.opcode")
        width = max(len(opcode), *(len(op) for op, _, _ in rows))
        out += ["", say("sass.registers", name=_label(name), a=regs[0], b=regs[1]),
                f"  {opcode:<{width}}  {'A':>6}  {'B':>6}  {'B-A':>6}"]
        out += [f"  {op:<{width}}  {a:6d}  {b:6d}  {b - a:+6d}" for op, a, b in rows]
    return "\n".join(out)


def has(path: str | os.PathLike, arch: str, pattern: str, kernel: str | None = None) -> bool:
    """True if an opcode of the file (or of `kernel`) matches the regex `pattern` at its start (re.match)."""
    _, sass, _ = load(path, arch)
    return any(re.match(pattern, opcode(line))
               for name in _select(path, sass, kernel) for line in sass[name])


# ---- PTX -> SASS by source line (-lineinfo) -------------------------------------------------------

#: What `--ptx-map` shows without a filter: the instructions a kernel's speed usually turns on.
PTX_OF_INTEREST = ("mma", "wgmma", "ldmatrix", "cp.async", "ld.global", "st.global", "ld.shared",
                   "st.shared", "shfl", "ex2", "red", "atom", "bar")
_PTX_FUNCTION = re.compile(r"^\s*(?:\.visible\s+|\.weak\s+)*\.(?:entry|func)\s+(?:\([^)]*\)\s*)?(\w+)")
_PTX_FILE = re.compile(r'^\s*\.file\s+(\d+)\s+"([^"]+)"', re.M)
_PTX_LOC = re.compile(r"^\s*\.loc\s+(\d+)\s+(\d+)\s+(\d+)(?:.*?inlined_at\s+(\d+)\s+(\d+)\s+(\d+))?")
_SASS_LOC = re.compile(r'^\s*//##\s*File "([^"]+)", line (\d+)')
#: SASS families of integer, address and predicate bookkeeping: summed up on one line by ptx_map.
_BOOKKEEPING = {"IADD", "IADD3", "IMAD", "LEA", "LOP3", "SHF", "SEL", "MOV", "ISETP", "LDC", "S2R", "CS2R",
                "VIADD", "PRMT", "BSSY", "BSYNC", "S2UR", "R2UR", "ULDC", "UMOV", "UIADD3", "ULEA", "ULOP3",
                "USHF", "USEL", "UISETP", "UIMAD", "PLOP3", "P2R", "R2P"}

Chain = tuple  # ((file, line), ...) innermost first: where an instruction came from, through inlining


def ptx_instructions(ptx: str) -> dict[str, list[tuple[str, Chain]]]:
    """Per PTX function: each instruction (its text, no predicate) with its chain of source
    locations from the .loc directives (-lineinfo), innermost first."""
    files = dict(_PTX_FILE.findall(ptx))
    functions: dict[str, list] = {}
    current, parents, here = None, {}, None
    for line in ptx.splitlines():
        if m := _PTX_FUNCTION.match(line):
            current, here = functions.setdefault(m.group(1), []), None
        elif m := _PTX_LOC.match(line):
            here = m.group(1, 2, 3)
            parents[here] = m.group(4, 5, 6) if m.group(4) else None
        elif current is not None:
            for text in line.split(";")[:-1]:  # inline asm may put several on one line
                text = text.strip().lstrip("{}").strip()
                text = re.sub(r"^@!?%\w+\s+", "", text)
                if text and not text.startswith((".", "//", "$")):
                    chain, loc = [], here
                    while loc is not None and len(chain) < 64:
                        chain.append((files.get(loc[0], loc[0]), int(loc[1])))
                        loc = parents.get(loc)
                    current.append((text, tuple(chain)))
    return functions


def sass_instructions(compiled: Compiled) -> dict[str, list[tuple[str, Chain]]]:
    """Per function: each SASS instruction with its chain of source locations (nvdisasm -gi)."""
    functions: dict[str, list] = {}
    current, chain, fresh = None, [], True
    for line in _run_on_cubin("nvdisasm", ["-c", "-gi"], compiled.cubin).splitlines():
        if line.startswith("//----"):
            section = re.search(r"\s\.text\.(\S+)", line)
            current, chain, fresh = (functions.setdefault(section.group(1), []) if section else None), [], True
        elif m := _SASS_LOC.match(line):
            chain = [] if fresh else chain
            chain.append((m.group(1), int(m.group(2))))
            fresh = False
        elif current is not None and (m := _INSTRUCTION.match(line)):
            if not m.group(1).startswith("@!PT "):  # never executes: padding the scheduler left
                current.append((m.group(1), tuple(chain)))
            fresh = True
    return functions


def _site(chain: Chain, path: Path) -> tuple[int, tuple | None] | None:
    """Where an instruction sits in the compiled file: (line, the call it came through on that line:
    the location one level in, None when the instruction is the line's own), or None."""
    depth = next((i for i, (f, _) in enumerate(chain) if Path(f) == path), None)
    return None if depth is None else (chain[depth][1], chain[depth - 1] if depth else None)


def _counts(texts) -> list[str]:
    hist = Counter(texts)
    return [f"{n:5d}  {op}" for op, n in sorted(hist.items(), key=lambda kv: (-kv[1], kv[0]))]


def ptx_to_sass(path: str | os.PathLike, filters: str | None = None, arch: str = "sm_90",
                kernel: str | None = None) -> dict[str, dict[int, dict]]:
    """Per kernel, per line of the file: {"ptx": [opcodes], "sass": [opcodes], "calls": {locations}} for
    the PTX instructions whose opcode starts with one of `filters` (comma-separated; default
    PTX_OF_INTEREST) and the SASS instructions of the same call on that line (the line's own code, or
    the inlined header function it calls, as -lineinfo and nvdisasm -gi record them)."""
    compiled, sass, _ = load(path, arch)
    path = compiled.path
    wanted = tuple(f.strip() for f in filters.split(",") if f.strip()) if filters else PTX_OF_INTEREST
    ptx, code = ptx_instructions(compiled.ptx), sass_instructions(compiled)
    out = {}
    for name in _select(path, sass, kernel):
        lines = out.setdefault(name, {})
        for text, chain in ptx.get(name, []):
            site, op = _site(chain, path), text.split()[0]
            if site is not None and op.startswith(wanted):
                entry = lines.setdefault(site[0], {"ptx": [], "sass": [], "calls": set()})
                entry["ptx"].append(op)
                entry["calls"].add(site[1])
        for text, chain in code.get(name, []):
            site = _site(chain, path)
            if site is not None and site[0] in lines and site[1] in lines[site[0]]["calls"]:
                lines[site[0]]["sass"].append(opcode(text))
    return out


def ptx_map(path: str | os.PathLike, filters: str | None = None, arch: str = "sm_90",
            kernel: str | None = None) -> str:
    """`ptx_to_sass` as text: per kernel and source line, the PTX opcodes and the SASS they became, with
    counts; the integer and address bookkeeping of the same call summed up on one line."""
    mapping = ptx_to_sass(path, filters, arch, kernel)
    path = Path(path).resolve()
    wanted = ", ".join(f.strip() for f in filters.split(",") if f.strip()) if filters else ", ".join(PTX_OF_INTEREST)
    source = path.read_text().splitlines()
    out = [say("sass.map_title", path=_shown(path), arch=arch, wanted=wanted, file=path.name)]
    for name, lines in mapping.items():
        out += ["", f"{_label(name)}:" + ("" if lines else say("sass.map_none", wanted=wanted))]
        for number, entry in sorted(lines.items()):
            calls = sorted(f"{_shown(c[0])}:{c[1]}" for c in entry["calls"] if c is not None)
            text = source[number - 1].strip() if number <= len(source) else ""
            through = say("sass.map_through", calls=", ".join(calls)) if calls else ""
            out.append(f"  {path.name}:{number}  {text}{through}")
            out += [f"    PTX  {row}" for row in _counts(entry["ptx"])]
            main = [op for op in entry["sass"] if op.split(".")[0] not in _BOOKKEEPING]
            out += [f"    SASS {row}" for row in _counts(main)] or [say("sass.map_no_sass")]
            if rest := Counter(op.split(".")[0] for op in entry["sass"] if op not in main):
                total = sum(rest.values())
                out.append(say("sass.map_rest" if total > 1 else "sass.map_rest_one", total=total)
                           + ", ".join(f"{op} {n}" for op, n in rest.most_common()))
    return "\n".join(out)
