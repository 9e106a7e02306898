"""Parsing the PTX that NVRTC emits into kernels: declarations, registers and a flat instruction list.

Only the structure is read here (what each statement says); `ops/` turns each instruction into a
callable once, when a kernel is first launched. Scopes (`{ ... }` blocks of inline asm) get their own
register and label names, so that inlined copies of the same asm do not collide.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from grader.messages import say

_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_IDENT = re.compile(r"(?<![\w$.%])%?[A-Za-z_$][\w$]*")
_LINE_DIRECTIVE = re.compile(r"^\.(loc|file|version|target|address_size)\b")  # no ';' after these
_REG_RANGE = re.compile(r"^(%?[\w$]+)<(\d+)>$")


class PTXError(RuntimeError):
    """PTX the emulator cannot read."""


@dataclass
class Loc:
    """Where an instruction comes from in the CUDA source (from .loc directives)."""
    file: str
    line: int
    inlined_at: tuple[str, int] | None = None

    def __str__(self) -> str:
        short = self.file.rsplit("/", 1)[-1]
        if self.inlined_at:
            return say("emu.inlined", at=f"{self.inlined_at[0].rsplit('/', 1)[-1]}:{self.inlined_at[1]}",
                       header=f"{short}:{self.line}")
        return f"{short}:{self.line}"


@dataclass
class Inst:
    opcode: str                 # e.g. "ld.global.nc.v4.u32"
    operands: list[str]
    guard: str | None           # "%p1" or "!%p1" (renamed to the register's unique name)
    loc: Loc | None
    text: str                   # the statement as written, for messages
    func: str = ""              # the function it belongs to

    @property
    def parts(self) -> list[str]:
        return self.opcode.split(".")


@dataclass
class Var:
    """A variable in .global/.const/.shared/.local/.param space."""
    name: str
    space: str
    dtype: str
    size: int                   # bytes (0: dynamic shared memory, `.extern .shared ... []`)
    align: int
    init: bytes | None = None
    offset: int = 0             # within its space (shared, local, param); set by the loader


@dataclass
class Function:
    name: str
    is_entry: bool
    params: list[Var] = field(default_factory=list)
    rets: list[Var] = field(default_factory=list)
    regs: dict[str, str] = field(default_factory=dict)      # unique register name -> PTX type
    body: list[Inst] = field(default_factory=list)
    labels: dict[str, int] = field(default_factory=dict)    # unique label -> index in body
    locals: list[Var] = field(default_factory=list)         # .local, .shared and .param inside
    maxntid: tuple[int, ...] | None = None
    extern: bool = False


@dataclass
class Module:
    version: str = ""
    target: str = ""
    globals: list[Var] = field(default_factory=list)        # .global and .const module variables
    shared: list[Var] = field(default_factory=list)         # module-level .shared (incl. extern)
    functions: dict[str, Function] = field(default_factory=dict)
    files: dict[int, str] = field(default_factory=dict)


_TYPES_BYTES = {"b8": 1, "u8": 1, "s8": 1, "b16": 2, "u16": 2, "s16": 2, "f16": 2, "bf16": 2,
                "b32": 4, "u32": 4, "s32": 4, "f32": 4, "f16x2": 4, "bf16x2": 4, "b64": 8, "u64": 8,
                "s64": 8, "f64": 8, "b128": 16, "pred": 1}


def type_bytes(t: str) -> int:
    return _TYPES_BYTES[t]


def _statements(text: str):
    """Yield ('loc', parts) / ('file', parts) / ('open',) / ('close',) / ('label', name) / ('stmt', text)."""
    lines = text.split("\n")
    stream: list[str] = []
    i = 0
    while i < len(lines):
        s = lines[i].strip()
        if s.startswith(".section"):
            depth = s.count("{") - s.count("}")
            while depth > 0 or "{" not in s:
                i += 1
                if i >= len(lines):
                    break
                depth += lines[i].count("{") - lines[i].count("}")
                if "{" in lines[i]:
                    s = "{"
                if depth <= 0 and s == "{":
                    break
            i += 1
            continue
        if _LINE_DIRECTIVE.match(s):
            stream.append("\x00" + s + "\x00")
        else:
            stream.append(lines[i])
        i += 1
    src = "\n".join(stream)
    pos, n = 0, len(src)
    while pos < n:
        c = src[pos]
        if c.isspace():
            pos += 1
            continue
        if c == "\x00":
            end = src.index("\x00", pos + 1)
            d = src[pos + 1:end]
            kind = d.split(None, 1)[0]
            yield ("loc" if kind == ".loc" else "file" if kind == ".file" else "stmt", d)
            pos = end + 1
            continue
        if c == "{":
            yield ("open",)
            pos += 1
            continue
        if c == "}":
            yield ("close",)
            pos += 1
            continue
        m = re.match(r"([\w$.]+)\s*:(?!:)", src[pos:pos + 200])
        if m and not src[pos].startswith("."):
            yield ("label", m.group(1))
            pos += m.end()
            continue
        # a statement: until ';' at brace depth 0, or a function header's '{'
        depth, j = 0, pos
        header = None
        while j < n:
            ch = src[j]
            if ch == "\x00":  # a .loc inside a multi-line statement: keep it for later
                j = src.index("\x00", j + 1) + 1
                continue
            if ch == "{":
                if depth == 0:
                    head = src[pos:j]
                    if re.search(r"(^|\s)\.(entry|func)\s", head) and not head.lstrip().startswith("{"):
                        header = head
                        break
                depth += 1
            elif ch == "}":
                depth -= 1
            elif ch == ";" and depth == 0:
                break
            j += 1
        body = re.sub(r"\x00[^\x00]*\x00", " ", src[pos:j])
        if header is not None:
            yield ("header", " ".join(body.split()))
            pos = j  # the '{' is yielded as 'open' next
        else:
            yield ("stmt", " ".join(body.split()))
            pos = j + 1


def _split_operands(s: str) -> list[str]:
    out, depth, cur = [], 0, []
    for ch in s:
        if ch in "{[(":
            depth += 1
        elif ch in "}])":
            depth -= 1
        if ch == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        out.append("".join(cur).strip())
    return out


def _parse_var(stmt: str, space: str) -> list[Var]:
    """`.shared .align 4 .b8 name[32]` or `.reg`-less variable declarations (also with `= {...}`)."""
    init = None
    if "=" in stmt:
        stmt, init_text = stmt.split("=", 1)
        init = init_text.strip()
    toks = stmt.replace("[", " [").split()
    align, dtype, name, count = 0, None, None, 1
    k = 0
    dims = []
    while k < len(toks):
        t = toks[k]
        if t == ".align":
            align = int(toks[k + 1])
            k += 2
            continue
        if t.startswith(".") and t[1:] in _TYPES_BYTES:
            dtype = t[1:]
        elif t.startswith("["):
            dims.append(t)
        elif not t.startswith("."):
            name = t
        k += 1
    if name is None or dtype is None:
        raise PTXError(say("ptx.declaration", stmt=stmt))
    for d in dims:
        inner = d.strip("[]")
        count = 0 if inner == "" else count * int(inner, 0)
    esize = _TYPES_BYTES[dtype]
    size = count * esize
    data = None
    if init is not None:
        data = _init_bytes(init, dtype, size)
    return [Var(name, space, dtype, size, align or esize, data)]


def _init_bytes(init: str, dtype: str, size: int) -> bytes:
    import numpy as np

    vals = [v.strip() for v in init.strip().strip("{}").split(",") if v.strip()]
    from grader.emulator.values import NP_TYPES, parse_number

    dt = NP_TYPES.get(dtype, np.uint8)
    arr = np.zeros(size // np.dtype(dt).itemsize, dtype=dt)
    for i, v in enumerate(vals[: arr.size]):
        if re.fullmatch(r"-?(0[xX][0-9a-fA-F]+|\d+)", v) and np.dtype(dt).kind in "iu":
            arr[i] = np.array(int(v, 0) & ((1 << (8 * arr.itemsize)) - 1)).astype(
                np.dtype(f"u{arr.itemsize}")).view(dt)
        else:
            arr[i] = parse_number(v, dtype)
    return arr.tobytes()


def parse(text: str) -> Module:
    """A Module from PTX text; raises PTXError naming what it cannot read."""
    text = _COMMENT.sub("", text)
    mod = Module()
    fn: Function | None = None
    pending_header: str | None = None
    scopes: list[dict[str, str]] = []       # register renaming per scope
    label_scopes: list[int] = []
    scope_counter = 0
    loc: Loc | None = None
    sites: dict[tuple[int, int, int], list] = {}  # a .loc's (file, line, column) -> its call sites, outwards
    pending_labels: list[tuple[list[int], str]] = []  # (scope chain, name) of labels awaiting an inst
    label_defs: dict[tuple[int, str], str] = {}       # (scope id, name) -> unique label
    raw_branches: list[tuple[Inst, list[int]]] = []

    def lookup_reg(name: str) -> str:
        for sc in reversed(scopes):
            if name in sc:
                return sc[name]
        return name

    def rename(op: str) -> str:
        return _IDENT.sub(lambda m: lookup_reg(m.group(0)), op)

    for item in _statements(text):
        kind = item[0]
        if kind == "file":
            m = re.match(r'\.file\s+(\d+)\s+"([^"]*)"', item[1])
            if m:
                mod.files[int(m.group(1))] = m.group(2)
            continue
        if kind == "loc":
            parts = item[1].replace(",", " ").split()
            try:
                f, line = int(parts[1]), int(parts[2])
                inl = None
                if "inlined_at" in parts:  # the call site, itself perhaps inlined: the line shown with the
                    k = parts.index("inlined_at")  # instruction's is the innermost one in the kernel's file
                    at = (int(parts[k + 1]), int(parts[k + 2]), int(parts[k + 3]) if len(parts) > k + 3 else 0)
                    chain = [at[:2]] + sites.get(at, [])
                    if len(parts) > 3 and parts[3].isdigit():
                        sites[(f, line, int(parts[3]))] = chain
                    outer = chain[-1][0]
                    inl = None if f == outer else next(c for c in chain if c[0] == outer)
                loc = Loc(str(f), line, (str(inl[0]), inl[1]) if inl else None)
            except (ValueError, IndexError):
                pass
            continue
        if kind == "open":
            if fn is None:
                if pending_header is None:
                    raise PTXError(say("ptx.open_outside"))
                fn = _parse_header(pending_header, mod)
                pending_header = None
                scopes = [{}]
                scope_counter += 1
                label_scopes = [scope_counter]
                label_defs = {}
                raw_branches = []
                continue
            scopes.append({})
            scope_counter += 1
            label_scopes.append(scope_counter)
            continue
        if kind == "close":
            if fn is None:
                raise PTXError(say("ptx.unbalanced"))
            scopes.pop()
            label_scopes.pop()
            if not scopes:
                _finish_function(fn, label_defs, raw_branches, pending_labels)
                pending_labels = []
                mod.functions[fn.name] = fn
                fn = None
            continue
        if kind == "label":
            if fn is None:
                continue
            unique = f"{item[1]}@{label_scopes[-1]}"
            label_defs[(label_scopes[-1], item[1])] = unique
            fn.labels[unique] = len(fn.body)
            continue
        stmt = item[1]
        if kind == "header":
            pending_header = stmt
            continue
        if not stmt:
            continue
        if fn is None:
            _top_level(stmt, mod)
            continue
        if stmt.startswith(".reg"):
            m = re.match(r"\.reg\s+(?:\.v\d\s+)?\.(\w+)\s+(.*)$", stmt)
            if not m:
                raise PTXError(say("ptx.unreadable", stmt=stmt))
            rtype = m.group(1)
            for nm in _split_operands(m.group(2)):
                rm = _REG_RANGE.match(nm)
                names = [f"{rm.group(1)}{i}" for i in range(int(rm.group(2)))] if rm else [nm]
                for name in names:
                    unique = name if len(scopes) == 1 else f"{name}@{scope_counter}_{len(fn.regs)}"
                    scopes[-1][name] = unique
                    fn.regs[unique] = rtype
            continue
        if stmt.startswith((".local", ".shared", ".param")) and not stmt.startswith(".param.") :
            space = stmt.split()[0][1:]
            for v in _parse_var(stmt, space):
                if len(scopes) > 1 or space == "param":
                    unique = f"{v.name}@{scope_counter}"
                    scopes[-1][v.name] = unique
                    v.name = unique
                fn.locals.append(v)
            continue
        if stmt.startswith(".pragma") or stmt.startswith(".maxntid") or stmt.startswith(".reqntid"):
            continue
        if stmt.startswith("."):
            continue  # other directives in a body (.maxnreg, ...) change nothing here
        guard = None
        m = re.match(r"@(!?)(%?[\w$]+)\s+(.*)$", stmt)
        if m:
            guard = m.group(1) + lookup_reg(m.group(2))
            stmt = m.group(3)
        sp = stmt.split(None, 1)
        opcode = sp[0]
        ops = _split_operands(sp[1]) if len(sp) > 1 else []
        ops = [rename(o) for o in ops]
        # labels and symbols: branch targets are resolved per scope at the end of the function
        inst = Inst(opcode, ops, guard, loc, stmt, fn.name)
        if opcode.split(".")[0] in ("bra", "brx"):
            raw_branches.append((inst, list(label_scopes)))
        fn.body.append(inst)
    if fn is not None:
        raise PTXError(say("ptx.not_closed", name=fn.name))
    for f in mod.functions.values():
        for inst in f.body:
            if inst.loc is not None and not inst.loc.file.startswith("/"):
                inst.loc = _resolve_loc(inst.loc, mod.files)
    return mod


def _resolve_loc(loc: Loc, files: dict[int, str]) -> Loc:
    name = files.get(int(loc.file), loc.file)
    inl = None
    if loc.inlined_at:
        inl = (files.get(int(loc.inlined_at[0]), loc.inlined_at[0]), loc.inlined_at[1])
    return Loc(name, loc.line, inl)


def _finish_function(fn, label_defs, raw_branches, pending):
    for inst, chain in raw_branches:
        target = inst.operands[-1]
        for sc in reversed(chain):
            if (sc, target) in label_defs:
                inst.operands[-1] = label_defs[(sc, target)]
                break
        else:
            raise PTXError(say("ptx.unknown_label", name=fn.name, target=target, text=inst.text))


def _parse_params(s: str) -> list[Var]:
    out = []
    for p in _split_operands(s):
        p = p.strip()
        if not p:
            continue
        for v in _parse_var(p.replace(".ptr", " ").replace(".global", " ").replace(".shared", " "),
                            "param"):
            out.append(v)
    return out


def _parse_header(head: str, mod: Module) -> Function:
    m = re.search(r"\.(entry|func)\s+(?:\((.*?)\)\s*)?([\w$]+)\s*(?:\((.*?)\))?\s*(.*)$", head, re.S)
    if not m:
        raise PTXError(say("ptx.header", head=head))
    fn = Function(m.group(3), m.group(1) == "entry")
    if m.group(2):
        fn.rets = _parse_params(m.group(2))
    if m.group(4):
        fn.params = _parse_params(m.group(4))
    rest = m.group(5) or ""
    mt = re.search(r"\.(?:maxntid|reqntid)\s+([\d,\s]+)", rest)
    if mt:
        fn.maxntid = tuple(int(x) for x in mt.group(1).replace(",", " ").split())
    return fn


def _top_level(stmt: str, mod: Module) -> None:
    toks = stmt.split()
    head = toks[0]
    if head == ".version":
        mod.version = toks[1]
        return
    if head == ".target":
        mod.target = " ".join(toks[1:])
        return
    if head == ".address_size":
        return
    if re.search(r"(^|\s)\.(entry|func)\s", stmt):  # a declaration: `.extern .func (...) vprintf (...)`
        fn = _parse_header(stmt, mod)
        fn.extern = True
        mod.functions.setdefault(fn.name, fn)
        return
    spaces = [t for t in toks if t in (".global", ".const", ".shared")]
    if spaces:
        space = spaces[0][1:]
        for v in _parse_var(stmt, space):
            (mod.shared if space == "shared" else mod.globals).append(v)
