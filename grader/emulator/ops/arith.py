"""Arithmetic: add sub mul fma mad div min max rem mul24 mad24 sad (integer and float, every rounding
mode, .ftz, .sat), neg abs copysign, the .approx functions (ex2 lg2 rsqrt rcp sqrt sin cos tanh), testp."""
from __future__ import annotations

import numpy as np

from grader.emulator import values as V
from grader.emulator.operands import Unsupported, np_type, reader, writer
from grader.emulator.ops.floats import (FLOATS, RND, elementwise16, flush_subnormal, from_f64, read_float,
                                        saturate, to_f64)
from grader.emulator.ops.table import builder, normal, operand_type
from grader.messages import say


@builder("add", "sub", "mul", "fma", "mad", "div", "min", "max", "rem", "mul24", "mad24", "sad")
def build_arith(prog, inst):
    parts = inst.parts
    base, t = parts[0], parts[-1]
    mods = set(parts[1:-1])
    if t in FLOATS:
        return _float_arith(prog, inst, base, t, mods)
    if mods & {"cc"}:
        raise Unsupported(say("emu.unsup.carry", opcode=inst.opcode))
    if base in ("addc", "subc"):
        raise Unsupported(inst.opcode)
    dt = np_type(t)
    bits = dt.itemsize * 8
    d = writer(prog, inst.operands[0])
    srcs = inst.operands[1:]
    wide = "wide" in mods
    hi = "hi" in mods
    sat = "sat" in mods
    if base in ("mul", "mad", "mul24", "mad24"):
        a = reader(prog, srcs[0], t)
        b = reader(prog, srcs[1], t)
        c = reader(prog, srcs[2], "s64" if wide and dt.kind == "i" else ("u64" if wide else t)) \
            if base in ("mad", "mad24") else None
        if base in ("mul24", "mad24"):
            if hi:
                raise Unsupported(f"{inst.opcode}")
            mask = np.int64(0xFFFFFF)

            def f24(x):
                x = np.asarray(x).astype(np.int64) & mask
                return np.where(x & 0x800000, x - 0x1000000, x) if dt.kind == "i" else x

            def fn(st, sel):
                r = (f24(a(st, sel)) * f24(b(st, sel))).astype(dt)
                if c is not None:
                    r = (r + c(st, sel)).astype(dt)
                d(st, sel, r)
            return normal(fn, inst)
        if wide:
            wdt = np.dtype(np.int64 if dt.kind == "i" else np.uint64)
            if bits != 32 and bits != 16:
                raise Unsupported(inst.opcode)
            if bits == 16:
                wdt = np.dtype(np.int32 if dt.kind == "i" else np.uint32)

            def fn(st, sel):
                r = np.asarray(a(st, sel)).astype(wdt) * np.asarray(b(st, sel)).astype(wdt)
                if c is not None:
                    r = r + np.asarray(c(st, sel)).astype(wdt)
                d(st, sel, r.astype(wdt))
            return normal(fn, inst)
        if hi:
            def fn(st, sel):
                r = _mulhi(np.asarray(a(st, sel)), np.asarray(b(st, sel)), dt)
                if c is not None:
                    r = (r + c(st, sel)).astype(dt)
                d(st, sel, r)
            return normal(fn, inst)

        def fn(st, sel):
            r = np.multiply(a(st, sel), b(st, sel), dtype=dt)
            if c is not None:
                r = np.add(r, c(st, sel), dtype=dt)
            d(st, sel, r)
        return normal(fn, inst)
    a = reader(prog, srcs[0], t)
    b = reader(prog, srcs[1], t)
    if base in ("add", "sub"):
        if sat:
            def fn(st, sel):
                x = np.asarray(a(st, sel)).astype(np.int64)
                y = np.asarray(b(st, sel)).astype(np.int64)
                r = x + y if base == "add" else x - y
                d(st, sel, np.clip(r, -2**31, 2**31 - 1).astype(np.int32))
            return normal(fn, inst)
        uf = np.add if base == "add" else np.subtract

        def fn(st, sel):
            d(st, sel, uf(a(st, sel), b(st, sel), dtype=dt))
        return normal(fn, inst)
    if base in ("min", "max"):
        if "relu" in mods:
            raise Unsupported(inst.opcode)
        uf = np.minimum if base == "min" else np.maximum

        def fn(st, sel):
            d(st, sel, uf(a(st, sel), b(st, sel)).astype(dt))
        return normal(fn, inst)
    if base in ("div", "rem"):
        def fn(st, sel):
            x = np.asarray(a(st, sel))
            y = np.asarray(b(st, sel))
            x, y = np.broadcast_arrays(x, y)
            zero = y == 0
            ys = np.where(zero, 1, y).astype(dt)
            if dt.kind == "i":
                q = np.abs(x.astype(np.int64) if bits < 64 else x) // np.abs(ys.astype(np.int64) if bits < 64 else ys)
                q = np.where((x < 0) != (ys < 0), -q, q).astype(dt)
            else:
                q = (x // ys).astype(dt)
            if base == "div":
                r = np.where(zero, dt.type(-1) if dt.kind == "i" else np.iinfo(dt).max, q)
            else:
                r = np.where(zero, x, (x - q * ys)).astype(dt)
            d(st, sel, np.asarray(r).astype(dt))
        return normal(fn, inst)
    if base == "sad":
        c = reader(prog, srcs[2], t)

        def fn(st, sel):
            x = np.asarray(a(st, sel)).astype(np.int64)
            y = np.asarray(b(st, sel)).astype(np.int64)
            d(st, sel, (np.abs(x - y) + c(st, sel)).astype(dt))
        return normal(fn, inst)
    raise Unsupported(inst.opcode)


def _mulhi(x, y, dt):
    bits = dt.itemsize * 8
    if bits <= 32:
        w = np.int64 if dt.kind == "i" else np.uint64
        return ((x.astype(w) * y.astype(w)) >> bits).astype(dt)
    # 64-bit: 32-bit halves
    signed = dt.kind == "i"
    xu = x.astype(np.uint64) if not signed else x.view(np.uint64) if isinstance(x, np.ndarray) else np.uint64(x)
    yu = y.astype(np.uint64) if not signed else y.view(np.uint64) if isinstance(y, np.ndarray) else np.uint64(y)
    m32 = np.uint64(0xFFFFFFFF)
    s32 = np.uint64(32)
    a0, a1 = xu & m32, xu >> s32
    b0, b1 = yu & m32, yu >> s32
    p00, p01, p10, p11 = a0 * b0, a0 * b1, a1 * b0, a1 * b1
    mid = (p00 >> s32) + (p01 & m32) + (p10 & m32)
    hi = p11 + (p01 >> s32) + (p10 >> s32) + (mid >> s32)
    if signed:  # signed correction: hi(x*y) = hi_u - (x<0 ? y : 0) - (y<0 ? x : 0)
        hi = hi - np.where(np.asarray(x) < 0, yu, np.uint64(0)) - np.where(np.asarray(y) < 0, xu, np.uint64(0))
        return hi.view(np.int64) if isinstance(hi, np.ndarray) else np.int64(hi)
    return hi


def _float_arith(prog, inst, base, t, mods):
    mode = next((m for m in mods if m in RND), "rn")
    ftz = "ftz" in mods
    sat = "sat" in mods
    approx = "approx" in mods or "full" in mods
    d = writer(prog, inst.operands[0])
    srcs = [read_float(prog, s, t) for s in inst.operands[1:]]
    if base == "mad" and not (mods & set(RND)):
        raise Unsupported(say("emu.unsup.mad", opcode=inst.opcode))
    if t in ("f32", "f64"):
        dt = np_type(t)
        if base in ("min", "max"):
            uf = np.fmin if base == "min" else np.fmax
            nan_mode = "NaN" in mods

            def fn(st, sel):
                x, y = srcs[0](st, sel), srcs[1](st, sel)
                if ftz:
                    x, y = flush_subnormal(x, t), flush_subnormal(y, t)
                r = uf(x, y)
                if nan_mode:
                    r = np.where(np.isnan(x) | np.isnan(y), dt.type(np.nan), r)
                d(st, sel, np.asarray(r, dt))
            return normal(fn, inst)
        if base in ("add", "sub", "mul") and mode == "rn":
            uf = {"add": np.add, "sub": np.subtract, "mul": np.multiply}[base]

            def fn(st, sel):
                x, y = srcs[0](st, sel), srcs[1](st, sel)
                if ftz:
                    x, y = flush_subnormal(x, t), flush_subnormal(y, t)
                r = uf(x, y, dtype=dt)
                if ftz:
                    r = flush_subnormal(r, t)
                if sat:
                    r = saturate(r)
                d(st, sel, r)
            return normal(fn, inst)
        if t == "f64" and base in ("fma", "mad") and mode == "rn":
            def fn(st, sel):
                d(st, sel, V.fma64(*(s(st, sel) for s in srcs)))
            return normal(fn, inst)
        if t == "f64" and base == "div" and mode == "rn":
            def fn(st, sel):
                d(st, sel, np.divide(srcs[0](st, sel), srcs[1](st, sel), dtype=np.float64))
            return normal(fn, inst)
        if t == "f64":
            raise Unsupported(inst.opcode)

        def exact(x, y, z=None):
            if base == "add":
                return V.exact_add(x, y)
            if base == "sub":
                return V.exact_add(x, -np.asarray(y, np.float64))
            if base == "mul":
                return np.asarray(x, np.float64) * y
            if base in ("fma", "mad"):
                return V.exact_fma(x, y, z)
            if base == "div":
                if mode != "rn" and not approx:
                    raise Unsupported(say("emu.unsup.directed", opcode=inst.opcode))
                return np.asarray(x, np.float64) / np.asarray(y, np.float64)
            raise Unsupported(inst.opcode)

        if base == "div" and mode != "rn" and not approx:
            raise Unsupported(say("emu.unsup.directed", opcode=inst.opcode))

        def fn(st, sel):
            xs = [s(st, sel) for s in srcs]
            if ftz:
                xs = [flush_subnormal(x, t) for x in xs]
            r = V.to_f32(exact(*xs), mode)
            if ftz:
                r = flush_subnormal(r, t)
            if sat:
                r = saturate(r)
            d(st, sel, r)
        return normal(fn, inst)
    # f16 / bf16 and their x2 forms: exact in float64 (rounded to odd), then rounded to t
    scalar = t.replace("x2", "")

    def one(*xs):
        if base == "add":
            r = V.exact_add(xs[0], xs[1])
        elif base == "sub":
            r = V.exact_add(xs[0], -xs[1])
        elif base == "mul":
            r = V.exact_fma(xs[0], xs[1], np.zeros_like(xs[0]))
        elif base in ("fma", "mad"):
            r = V.exact_fma(*xs)
        elif base in ("min", "max"):
            uf = np.fmin if base == "min" else np.fmax
            r = uf(xs[0], xs[1])
            if "NaN" in mods:
                r = np.where(np.isnan(xs[0]) | np.isnan(xs[1]), np.nan, r)
        else:
            raise Unsupported(inst.opcode)
        if sat:
            r = saturate(r)
        out = from_f64(r, scalar, mode)
        if "relu" in mods:
            out = np.where(to_f64(out, scalar) < 0, np.uint16(0), out).astype(np.uint16)
        return out

    f = elementwise16(t, one)

    def fn(st, sel):
        d(st, sel, f(*(s(st, sel) for s in srcs)))
    return normal(fn, inst)


@builder("neg", "abs")
def build_neg(prog, inst):
    t = operand_type(inst)
    base = inst.parts[0]
    d = writer(prog, inst.operands[0])
    if t in ("f16", "bf16", "f16x2", "bf16x2"):
        a = reader(prog, inst.operands[1], "b32" if t.endswith("x2") else "b16")
        sign = np.uint32(0x80008000) if t.endswith("x2") else np.uint16(0x8000)

        def fn(st, sel):
            x = a(st, sel)
            d(st, sel, (x ^ sign) if base == "neg" else (x & ~sign))
        return normal(fn, inst)
    a = reader(prog, inst.operands[1], t)
    ftz = "ftz" in inst.parts
    dt = np_type(t)

    def fn(st, sel):
        x = a(st, sel)
        if ftz:
            x = flush_subnormal(x, t)
        r = np.negative(x, dtype=dt) if base == "neg" else np.abs(x).astype(dt)
        d(st, sel, r)
    return normal(fn, inst)


@builder("copysign")
def build_copysign(prog, inst):
    t = operand_type(inst)
    d = writer(prog, inst.operands[0])
    a, b = reader(prog, inst.operands[1], t), reader(prog, inst.operands[2], t)
    return normal(lambda st, sel: d(st, sel, np.copysign(b(st, sel), a(st, sel)).astype(np_type(t))), inst)


@builder("ex2", "lg2", "rsqrt", "rcp", "sqrt", "sin", "cos", "tanh")
def build_math(prog, inst):
    parts = inst.parts
    base, t = parts[0], parts[-1]
    mods = set(parts[1:-1])
    ftz = "ftz" in mods
    mode = next((m for m in mods if m in RND), "rn")
    if "approx" not in mods and base not in ("sqrt", "rcp"):
        raise Unsupported(inst.opcode)
    fns = {"ex2": np.exp2, "lg2": np.log2, "rsqrt": lambda x: 1.0 / np.sqrt(x), "rcp": lambda x: 1.0 / x,
           "sqrt": np.sqrt, "sin": np.sin, "cos": np.cos, "tanh": np.tanh}
    g = fns[base]
    d = writer(prog, inst.operands[0])
    a = read_float(prog, inst.operands[1], t)
    if t in ("f32", "f64"):
        if t == "f64" and mode != "rn" and "approx" not in mods:
            raise Unsupported(inst.opcode)
        to = (lambda x: V.to_f32(x, mode if "approx" not in mods else "rn")) if t == "f32" \
            else (lambda x: np.asarray(x, np.float64))

        def fn(st, sel):
            x = a(st, sel)
            if ftz:
                x = flush_subnormal(x, t)
            with np.errstate(all="ignore"):
                r = to(g(np.asarray(x, np.float64)))
            if ftz:
                r = flush_subnormal(r, t)
            d(st, sel, r)
        return normal(fn, inst)
    f = elementwise16(t, lambda x: from_f64(g(x), t.replace("x2", "")))

    def fn(st, sel):
        with np.errstate(all="ignore"):
            d(st, sel, f(a(st, sel)))
    return normal(fn, inst)


@builder("testp")
def build_testp(prog, inst):
    what, t = inst.parts[1], inst.parts[-1]
    d = writer(prog, inst.operands[0])
    a = reader(prog, inst.operands[1], t)
    tiny = np.finfo(np_type(t)).tiny
    tests = {"finite": np.isfinite, "infinite": np.isinf, "number": lambda x: ~np.isnan(x),
             "notanumber": np.isnan, "normal": lambda x: np.isfinite(x) & (np.abs(x) >= tiny),
             "subnormal": lambda x: (np.abs(x) < tiny) & (x != 0)}
    g = tests[what]
    return normal(lambda st, sel: d(st, sel, g(a(st, sel))), inst)
