"""Comparisons and selects: setp / set (every comparison, .and/.or/.xor, two destinations), selp, slct."""
from __future__ import annotations

import numpy as np

from grader.emulator.operands import Unsupported, np_type, reader, writer
from grader.emulator.ops.floats import FLOATS, flush_subnormal, read_float, to_f64
from grader.emulator.ops.table import builder, normal, operand_type
from grader.messages import say


_ORDERED = {"eq": np.equal, "lt": np.less, "lo": np.less, "le": np.less_equal, "ls": np.less_equal,
            "gt": np.greater, "hi": np.greater, "ge": np.greater_equal, "hs": np.greater_equal}


_OPPOSITE = {"ltu": np.greater_equal, "leu": np.greater, "gtu": np.less_equal, "geu": np.less}


def _compare(cmp, t):
    """setp's comparison as f(x, y) -> bool array. A comparison with NaN is false, so the ordered
    float comparisons are numpy's (ne: lt or gt), and an unordered one (true on NaN) is the negation of
    the opposite ordered one."""
    is_f = t in FLOATS
    if cmp == "ne":
        return (lambda x, y: (x < y) | (x > y)) if is_f else np.not_equal
    if cmp in _ORDERED:
        return _ORDERED[cmp]
    if not is_f:
        raise Unsupported(say("emu.unsup.comparison", cmp=cmp))
    if cmp in _OPPOSITE:
        opposite = _OPPOSITE[cmp]
        return lambda x, y: ~opposite(x, y)
    if cmp == "neu":
        return np.not_equal
    if cmp == "equ":
        return lambda x, y: ~((x < y) | (x > y))
    if cmp == "num":
        return lambda x, y: ~(np.isnan(x) | np.isnan(y))
    if cmp == "nan":
        return lambda x, y: np.isnan(x) | np.isnan(y)
    raise Unsupported(say("emu.unsup.comparison", cmp=cmp))


@builder("setp", "set")
def build_setp(prog, inst):
    parts = inst.parts
    cmp, t = parts[1], parts[-1]
    mods = parts[2:-1]
    boolop = next((m for m in mods if m in ("and", "or", "xor")), None)
    if inst.parts[0] == "set":
        raise Unsupported(inst.opcode)
    ftz = "ftz" in mods
    dests = inst.operands[0].split("|")
    dp = writer(prog, dests[0])
    dq = writer(prog, dests[1]) if len(dests) > 1 else None
    if t in ("f16", "bf16"):
        a0 = read_float(prog, inst.operands[1], t)
        b0 = read_float(prog, inst.operands[2], t)
        a = lambda st, sel: to_f64(a0(st, sel), t)  # noqa: E731
        b = lambda st, sel: to_f64(b0(st, sel), t)  # noqa: E731
    elif t in ("f16x2", "bf16x2"):
        raise Unsupported(inst.opcode)
    else:
        a, b = reader(prog, inst.operands[1], t), reader(prog, inst.operands[2], t)
    c = reader(prog, inst.operands[3], "pred") if boolop else None
    cf = _compare(cmp, t)
    comb = {"and": np.logical_and, "or": np.logical_or, "xor": np.logical_xor}.get(boolop)

    def fn(st, sel):
        x, y = a(st, sel), b(st, sel)
        if ftz:
            x, y = flush_subnormal(x, t), flush_subnormal(y, t)
        r = np.asarray(cf(x, y))
        if comb is not None:
            cc = c(st, sel)
            p, q = comb(r, cc), comb(~r, cc)
        else:
            p, q = r, ~r
        dp(st, sel, p)
        if dq is not None:
            dq(st, sel, q)
    return normal(fn, inst)


@builder("selp")
def build_selp(prog, inst):
    t = operand_type(inst)
    rt = t if t not in ("f16", "bf16") else "b16"
    d = writer(prog, inst.operands[0])
    a, b = reader(prog, inst.operands[1], rt), reader(prog, inst.operands[2], rt)
    c = reader(prog, inst.operands[3], "pred")
    dt = np_type(rt)
    return normal(lambda st, sel: d(st, sel, np.where(c(st, sel), a(st, sel), b(st, sel)).astype(dt)), inst)


@builder("slct")
def build_slct(prog, inst):
    t, ct = inst.parts[-2], inst.parts[-1]
    d = writer(prog, inst.operands[0])
    a, b = reader(prog, inst.operands[1], t), reader(prog, inst.operands[2], t)
    c = reader(prog, inst.operands[3], ct)
    return normal(lambda st, sel: d(st, sel, np.where(c(st, sel) >= 0, a(st, sel), b(st, sel))
                                     .astype(np_type(t))), inst)
