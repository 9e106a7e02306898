"""Each PTX instruction decoded once into an `Op`: a numpy function over the threads that execute it.

`decode(prog, inst)` dispatches on the base opcode; modifiers (rounding, .ftz, .sat, types) are read
here, not at run time. An opcode or form without a builder raises `Unsupported` when the kernel is
loaded, naming the instruction and its CUDA source line.
"""
from __future__ import annotations

import numpy as np

from grader.emulator import memops, values as V
from grader.emulator.machine import BAR, BRA, EXIT, NORMAL, WSYNC, Op
from grader.emulator.operands import Unsupported, immediate, np_type, reader, writer

FLOATS = ("f16", "bf16", "f32", "f64", "f16x2", "bf16x2")
RND = ("rn", "rz", "rm", "rp")
IRND = ("rni", "rzi", "rmi", "rpi")
BUILDERS = {}


def builder(*names):
    def deco(f):
        for n in names:
            BUILDERS[n] = f
        return f
    return deco


def decode(prog, inst) -> Op:
    base = inst.parts[0]
    b = BUILDERS.get(base)
    if b is None:
        raise Unsupported(f"instruction {inst.opcode}")
    op = b(prog, inst)
    if inst.guard is not None:
        g = inst.guard
        slot, _ = prog.reg(g.lstrip("!"))
        op.guard = (slot, g.startswith("!"))
    return op


def _normal(fn, inst):
    return Op(NORMAL, fn, inst)


def _type(inst) -> str:
    return inst.parts[-1]


# ---- float helpers ------------------------------------------------------------------------------

def _f16x2_split(v):
    v = np.asarray(v, np.uint32)
    return (v & 0xFFFF).astype(np.uint16), (v >> 16).astype(np.uint16)


def _pack16(lo, hi):
    return (np.asarray(lo).astype(np.uint32) | (np.asarray(hi).astype(np.uint32) << 16)).astype(np.uint32)


def _to64(x, t):
    """Values of a float type (numpy array or uint16 bits for bf16) as float64."""
    if t == "bf16":
        return V.bf16_bits_to_f32(x).astype(np.float64)
    if t == "f16":
        return np.asarray(x).view(np.float16).astype(np.float64) if np.asarray(x).dtype == np.uint16 \
            else np.asarray(x, np.float64)
    return np.asarray(x, np.float64)


def _from64(x, t, mode="rn"):
    """float64 (exact or rounded to odd) to type t (bf16/f16 as uint16 bits)."""
    if t == "f32":
        return V.to_f32(x, mode)
    if t == "f16":
        return V.to_f16(x, mode).view(np.uint16)
    if t == "bf16":
        return V.to_bf16_bits(x, mode)
    if t == "f64":
        if mode != "rn":
            raise Unsupported(f"f64 rounding mode .{mode}")
        return np.asarray(x, np.float64)
    raise Unsupported(t)


def _ftz(x, t):
    if t == "f32":
        return V.ftz32(x)
    return x


def _sat(x):
    x = np.asarray(x)
    return np.where(np.isnan(x), x.dtype.type(0), np.clip(x, 0, 1)).astype(x.dtype)


def _elementwise16(t, fn):
    """Lift a function on (t-scalars as float64 arrays) -> float64 into f16/bf16/x2 bit domain."""
    scalar = t.replace("x2", "")
    if t.endswith("x2"):
        def f(*args):
            los = [_f16x2_split(a)[0] for a in args]
            his = [_f16x2_split(a)[1] for a in args]
            lo = fn(*[_to64(x, scalar) for x in los])
            hi = fn(*[_to64(x, scalar) for x in his])
            return _pack16(lo, hi)
        return f
    return lambda *args: fn(*[_to64(a, scalar) for a in args])


def _rd_float(prog, text, t):
    """Reader of a float operand: f16/bf16(x2) as raw bits, f32/f64 as numbers."""
    if t in ("f16", "bf16"):
        return reader(prog, text, "b16")
    if t in ("f16x2", "bf16x2"):
        return reader(prog, text, "b32")
    return reader(prog, text, t)


# ---- arithmetic ---------------------------------------------------------------------------------

@builder("add", "sub", "mul", "fma", "mad", "div", "min", "max", "rem", "mul24", "mad24", "sad")
def build_arith(prog, inst):
    parts = inst.parts
    base, t = parts[0], parts[-1]
    mods = set(parts[1:-1])
    if t in FLOATS:
        return _float_arith(prog, inst, base, t, mods)
    if mods & {"cc"}:
        raise Unsupported(f"{inst.opcode} (carry chains)")
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
            return _normal(fn, inst)
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
            return _normal(fn, inst)
        if hi:
            def fn(st, sel):
                r = _mulhi(np.asarray(a(st, sel)), np.asarray(b(st, sel)), dt)
                if c is not None:
                    r = (r + c(st, sel)).astype(dt)
                d(st, sel, r)
            return _normal(fn, inst)

        def fn(st, sel):
            r = np.multiply(a(st, sel), b(st, sel), dtype=dt)
            if c is not None:
                r = np.add(r, c(st, sel), dtype=dt)
            d(st, sel, r)
        return _normal(fn, inst)
    a = reader(prog, srcs[0], t)
    b = reader(prog, srcs[1], t)
    if base in ("add", "sub"):
        if sat:
            def fn(st, sel):
                x = np.asarray(a(st, sel)).astype(np.int64)
                y = np.asarray(b(st, sel)).astype(np.int64)
                r = x + y if base == "add" else x - y
                d(st, sel, np.clip(r, -2**31, 2**31 - 1).astype(np.int32))
            return _normal(fn, inst)
        uf = np.add if base == "add" else np.subtract

        def fn(st, sel):
            d(st, sel, uf(a(st, sel), b(st, sel), dtype=dt))
        return _normal(fn, inst)
    if base in ("min", "max"):
        if "relu" in mods:
            raise Unsupported(inst.opcode)
        uf = np.minimum if base == "min" else np.maximum

        def fn(st, sel):
            d(st, sel, uf(a(st, sel), b(st, sel)).astype(dt))
        return _normal(fn, inst)
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
        return _normal(fn, inst)
    if base == "sad":
        c = reader(prog, srcs[2], t)

        def fn(st, sel):
            x = np.asarray(a(st, sel)).astype(np.int64)
            y = np.asarray(b(st, sel)).astype(np.int64)
            d(st, sel, (np.abs(x - y) + c(st, sel)).astype(dt))
        return _normal(fn, inst)
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
    srcs = [_rd_float(prog, s, t) for s in inst.operands[1:]]
    if base == "mad" and not (mods & set(RND)):
        raise Unsupported(f"{inst.opcode} (mad without rounding)")
    if t in ("f32", "f64"):
        dt = np_type(t)
        if base in ("min", "max"):
            uf = np.fmin if base == "min" else np.fmax
            nan_mode = "NaN" in mods

            def fn(st, sel):
                x, y = srcs[0](st, sel), srcs[1](st, sel)
                if ftz:
                    x, y = _ftz(x, t), _ftz(y, t)
                r = uf(x, y)
                if nan_mode:
                    r = np.where(np.isnan(x) | np.isnan(y), dt.type(np.nan), r)
                d(st, sel, np.asarray(r, dt))
            return _normal(fn, inst)
        if base in ("add", "sub", "mul") and mode == "rn":
            uf = {"add": np.add, "sub": np.subtract, "mul": np.multiply}[base]

            def fn(st, sel):
                x, y = srcs[0](st, sel), srcs[1](st, sel)
                if ftz:
                    x, y = _ftz(x, t), _ftz(y, t)
                r = uf(x, y, dtype=dt)
                if ftz:
                    r = _ftz(r, t)
                if sat:
                    r = _sat(r)
                d(st, sel, r)
            return _normal(fn, inst)
        if t == "f64" and base in ("fma", "mad") and mode == "rn":
            def fn(st, sel):
                d(st, sel, V.fma64(*(s(st, sel) for s in srcs)))
            return _normal(fn, inst)
        if t == "f64" and base == "div" and mode == "rn":
            def fn(st, sel):
                d(st, sel, np.divide(srcs[0](st, sel), srcs[1](st, sel), dtype=np.float64))
            return _normal(fn, inst)
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
                    raise Unsupported(f"{inst.opcode} (directed rounding)")
                return np.asarray(x, np.float64) / np.asarray(y, np.float64)
            raise Unsupported(inst.opcode)

        if base == "div" and mode != "rn" and not approx:
            raise Unsupported(f"{inst.opcode} (directed rounding)")

        def fn(st, sel):
            xs = [s(st, sel) for s in srcs]
            if ftz:
                xs = [_ftz(x, t) for x in xs]
            r = V.to_f32(exact(*xs), mode)
            if ftz:
                r = _ftz(r, t)
            if sat:
                r = _sat(r)
            d(st, sel, r)
        return _normal(fn, inst)
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
            r = _sat(r)
        out = _from64(r, scalar, mode)
        if "relu" in mods:
            out = np.where(_to64(out, scalar) < 0, np.uint16(0), out).astype(np.uint16)
        return out

    f = _elementwise16(t, one)

    def fn(st, sel):
        d(st, sel, f(*(s(st, sel) for s in srcs)))
    return _normal(fn, inst)


@builder("neg", "abs")
def build_neg(prog, inst):
    t = _type(inst)
    base = inst.parts[0]
    d = writer(prog, inst.operands[0])
    if t in ("f16", "bf16", "f16x2", "bf16x2"):
        a = reader(prog, inst.operands[1], "b32" if t.endswith("x2") else "b16")
        sign = np.uint32(0x80008000) if t.endswith("x2") else np.uint16(0x8000)

        def fn(st, sel):
            x = a(st, sel)
            d(st, sel, (x ^ sign) if base == "neg" else (x & ~sign))
        return _normal(fn, inst)
    a = reader(prog, inst.operands[1], t)
    ftz = "ftz" in inst.parts
    dt = np_type(t)

    def fn(st, sel):
        x = a(st, sel)
        if ftz:
            x = _ftz(x, t)
        r = np.negative(x, dtype=dt) if base == "neg" else np.abs(x).astype(dt)
        d(st, sel, r)
    return _normal(fn, inst)


@builder("copysign")
def build_copysign(prog, inst):
    t = _type(inst)
    d = writer(prog, inst.operands[0])
    a, b = reader(prog, inst.operands[1], t), reader(prog, inst.operands[2], t)
    return _normal(lambda st, sel: d(st, sel, np.copysign(b(st, sel), a(st, sel)).astype(np_type(t))), inst)


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
    a = _rd_float(prog, inst.operands[1], t)
    if t in ("f32", "f64"):
        if t == "f64" and mode != "rn" and "approx" not in mods:
            raise Unsupported(inst.opcode)
        to = (lambda x: V.to_f32(x, mode if "approx" not in mods else "rn")) if t == "f32" \
            else (lambda x: np.asarray(x, np.float64))

        def fn(st, sel):
            x = a(st, sel)
            if ftz:
                x = _ftz(x, t)
            with np.errstate(all="ignore"):
                r = to(g(np.asarray(x, np.float64)))
            if ftz:
                r = _ftz(r, t)
            d(st, sel, r)
        return _normal(fn, inst)
    f = _elementwise16(t, lambda x: _from64(g(x), t.replace("x2", "")))

    def fn(st, sel):
        with np.errstate(all="ignore"):
            d(st, sel, f(a(st, sel)))
    return _normal(fn, inst)


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
    return _normal(lambda st, sel: d(st, sel, g(a(st, sel))), inst)


# ---- bits ---------------------------------------------------------------------------------------

@builder("and", "or", "xor", "not", "cnot")
def build_logic(prog, inst):
    base, t = inst.parts[0], _type(inst)
    d = writer(prog, inst.operands[0])
    rt = "pred" if t == "pred" else ("b" + str(np_type(t).itemsize * 8))
    srcs = [reader(prog, s, rt) for s in inst.operands[1:]]
    if base == "not":
        return _normal(lambda st, sel: d(st, sel, np.invert(srcs[0](st, sel))), inst)
    if base == "cnot":
        return _normal(lambda st, sel: d(st, sel, (srcs[0](st, sel) == 0).astype(np_type(rt))), inst)
    uf = {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}[base]
    return _normal(lambda st, sel: d(st, sel, uf(srcs[0](st, sel), srcs[1](st, sel))), inst)


@builder("shl", "shr")
def build_shift(prog, inst):
    base, t = inst.parts[0], _type(inst)
    dt = np_type(t)
    bits = dt.itemsize * 8
    d = writer(prog, inst.operands[0])
    a = reader(prog, inst.operands[1], t)
    b = reader(prog, inst.operands[2], "u32")
    shift = immediate(inst.operands[2], "u32")
    if shift is not None and shift < bits:  # a constant shift within the width: one numpy operation
        uf, sc = (np.left_shift if base == "shl" else np.right_shift), dt.type(shift)
        return _normal(lambda st, sel: d(st, sel, uf(a(st, sel), sc, dtype=dt)), inst)

    def fn(st, sel):
        x = np.asarray(a(st, sel))
        s = np.minimum(np.asarray(b(st, sel)).astype(np.int64), bits)
        sc = np.minimum(s, bits - 1).astype(dt)
        if base == "shl":
            r = np.where(s >= bits, dt.type(0), np.left_shift(x, sc, dtype=dt))
        elif dt.kind == "i":
            r = np.right_shift(x, sc, dtype=dt)  # arithmetic; s >= bits gives the sign fill
        else:
            r = np.where(s >= bits, dt.type(0), np.right_shift(x, sc, dtype=dt))
        d(st, sel, np.asarray(r, dt))
    return _normal(fn, inst)


@builder("shf")
def build_shf(prog, inst):
    parts = inst.parts
    left, wrap = "l" in parts, "wrap" in parts
    d = writer(prog, inst.operands[0])
    a, b = reader(prog, inst.operands[1], "b32"), reader(prog, inst.operands[2], "b32")
    c = reader(prog, inst.operands[3], "u32")

    def fn(st, sel):
        lo = np.asarray(a(st, sel)).astype(np.uint64)
        hi = np.asarray(b(st, sel)).astype(np.uint64)
        n = np.asarray(c(st, sel)).astype(np.uint64)
        n = n & np.uint64(31) if wrap else np.minimum(n, np.uint64(32))
        v = (hi << np.uint64(32)) | lo
        r = (v << n) >> np.uint64(32) if left else v >> n
        d(st, sel, (r & np.uint64(0xFFFFFFFF)).astype(np.uint32))
    return _normal(fn, inst)


@builder("popc", "clz", "brev", "bfind")
def build_bitcount(prog, inst):
    base, t = inst.parts[0], _type(inst)
    dt = np_type(t)
    bits = dt.itemsize * 8
    d = writer(prog, inst.operands[0])
    a = reader(prog, inst.operands[1], t)
    udt = np.dtype(f"u{dt.itemsize}")

    def bitlen(u):
        u = np.asarray(u).astype(np.uint64)
        hi = (u >> np.uint64(32)).astype(np.float64)
        lo = (u & np.uint64(0xFFFFFFFF)).astype(np.float64)
        lh = np.where(hi > 0, np.frexp(hi)[1] + 32, 0)
        ll = np.where(lo > 0, np.frexp(lo)[1], 0)
        return np.where(hi > 0, lh, ll).astype(np.int64)

    def fn(st, sel):
        x = np.asarray(a(st, sel))
        u = x.view(udt) if x.ndim else udt.type(x.view(udt) if hasattr(x, "view") else x)
        if base == "popc":
            r = np.bitwise_count(u).astype(np.uint32)
        elif base == "clz":
            r = (bits - bitlen(u)).astype(np.uint32)
        elif base == "bfind":
            if dt.kind == "i":
                u = np.where(np.asarray(x) < 0, ~u, u).astype(udt)
            bl = bitlen(u)
            r = np.where(bl == 0, np.uint32(0xFFFFFFFF), (bl - 1).astype(np.uint32))
            if "shiftamt" in inst.parts:
                r = np.where(bl == 0, r, (bits - 1 - (bl - 1)).astype(np.uint32))
        else:  # brev
            u64 = np.asarray(u).astype(np.uint64)
            r = np.zeros_like(u64)
            for i in range(bits):
                r |= ((u64 >> np.uint64(i)) & np.uint64(1)) << np.uint64(bits - 1 - i)
            r = r.astype(udt)
        d(st, sel, r)
    return _normal(fn, inst)


@builder("bfe")
def build_bfe(prog, inst):
    t = _type(inst)
    dt = np_type(t)
    bits = dt.itemsize * 8
    d = writer(prog, inst.operands[0])
    a = reader(prog, inst.operands[1], t)
    b, c = reader(prog, inst.operands[2], "u32"), reader(prog, inst.operands[3], "u32")

    def fn(st, sel):
        x = np.asarray(a(st, sel))
        pos = np.minimum(np.asarray(b(st, sel)).astype(np.int64) & 0xFF, bits)
        ln = np.minimum(np.asarray(c(st, sel)).astype(np.int64) & 0xFF, bits)
        u = x.astype(np.uint64) & np.uint64((1 << bits) - 1) if dt.kind == "u" else \
            x.view(f"u{dt.itemsize}").astype(np.uint64)
        sh = np.minimum(pos, 63).astype(np.uint64)
        field = (u >> sh) & ((np.uint64(1) << np.minimum(ln, 63).astype(np.uint64)) - np.uint64(1))
        field = np.where(ln >= 64, u >> sh, field)
        if dt.kind == "i":
            top = np.minimum(pos + ln - 1, bits - 1)
            sbit = np.where(ln == 0, 0, (u >> top.astype(np.uint64)) & np.uint64(1))
            ext = np.where((sbit == 1) & (ln < bits), ~((np.uint64(1) << ln.astype(np.uint64)) - np.uint64(1)),
                           np.uint64(0))
            field = field | ext
        d(st, sel, (field & np.uint64((1 << bits) - 1 if bits < 64 else 0xFFFFFFFFFFFFFFFF))
          .astype(f"u{dt.itemsize}"))
    return _normal(fn, inst)


@builder("bfi")
def build_bfi(prog, inst):
    t = _type(inst)
    bits = np_type(t).itemsize * 8
    d = writer(prog, inst.operands[0])
    a, b = reader(prog, inst.operands[1], t), reader(prog, inst.operands[2], t)
    c, e = reader(prog, inst.operands[3], "u32"), reader(prog, inst.operands[4], "u32")
    full = np.uint64((1 << bits) - 1) if bits < 64 else np.uint64(0xFFFFFFFFFFFFFFFF)

    def fn(st, sel):
        x = np.asarray(a(st, sel)).astype(np.uint64)
        y = np.asarray(b(st, sel)).astype(np.uint64)
        pos = np.minimum(np.asarray(c(st, sel)).astype(np.int64) & 0xFF, bits).astype(np.uint64)
        ln = np.minimum(np.asarray(e(st, sel)).astype(np.int64) & 0xFF, bits).astype(np.uint64)
        m = (((np.uint64(1) << np.minimum(ln, np.uint64(63))) - np.uint64(1)) << np.minimum(pos, np.uint64(63)))
        r = (y & ~m) | ((x << np.minimum(pos, np.uint64(63))) & m)
        d(st, sel, (r & full).astype(f"u{bits // 8}"))
    return _normal(fn, inst)


@builder("prmt")
def build_prmt(prog, inst):
    mode = inst.parts[2] if len(inst.parts) > 2 and inst.parts[2] != "b32" else None
    if mode is not None:
        raise Unsupported(inst.opcode)
    d = writer(prog, inst.operands[0])
    a, b = reader(prog, inst.operands[1], "b32"), reader(prog, inst.operands[2], "b32")
    c = reader(prog, inst.operands[3], "b32")

    def fn(st, sel):
        x = np.asarray(a(st, sel)).astype(np.uint64)
        y = np.asarray(b(st, sel)).astype(np.uint64)
        s = np.asarray(c(st, sel)).astype(np.uint64)
        x, y, s = np.broadcast_arrays(x, y, s)
        v = x | (y << np.uint64(32))
        r = np.zeros(x.shape, np.uint64)
        for i in range(4):
            sel_i = (s >> np.uint64(4 * i)) & np.uint64(0xF)
            byte = (v >> ((sel_i & np.uint64(7)) * np.uint64(8))) & np.uint64(0xFF)
            sign = (byte >> np.uint64(7)) * np.uint64(0xFF)
            byte = np.where(sel_i & np.uint64(8), sign, byte)
            r |= byte << np.uint64(8 * i)
        d(st, sel, r.astype(np.uint32))
    return _normal(fn, inst)


@builder("lop3")
def build_lop3(prog, inst):
    d = writer(prog, inst.operands[0])
    a, b, c = (reader(prog, s, "b32") for s in inst.operands[1:4])
    lut = int(inst.operands[4], 0)

    def fn(st, sel):
        x, y, z = (np.asarray(f(st, sel)) for f in (a, b, c))
        r = np.zeros(np.broadcast(x, y, z).shape, np.uint32)
        for i in range(8):
            if lut >> i & 1:
                r |= (x if i & 4 else ~x) & (y if i & 2 else ~y) & (z if i & 1 else ~z)
        d(st, sel, r)
    return _normal(fn, inst)


# ---- compare and select -------------------------------------------------------------------------

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
        raise Unsupported(f"comparison .{cmp}")
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
    raise Unsupported(f"comparison .{cmp}")


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
        a0 = _rd_float(prog, inst.operands[1], t)
        b0 = _rd_float(prog, inst.operands[2], t)
        a = lambda st, sel: _to64(a0(st, sel), t)  # noqa: E731
        b = lambda st, sel: _to64(b0(st, sel), t)  # noqa: E731
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
            x, y = _ftz(x, t), _ftz(y, t)
        r = np.asarray(cf(x, y))
        if comb is not None:
            cc = c(st, sel)
            p, q = comb(r, cc), comb(~r, cc)
        else:
            p, q = r, ~r
        dp(st, sel, p)
        if dq is not None:
            dq(st, sel, q)
    return _normal(fn, inst)


@builder("selp")
def build_selp(prog, inst):
    t = _type(inst)
    rt = t if t not in ("f16", "bf16") else "b16"
    d = writer(prog, inst.operands[0])
    a, b = reader(prog, inst.operands[1], rt), reader(prog, inst.operands[2], rt)
    c = reader(prog, inst.operands[3], "pred")
    dt = np_type(rt)
    return _normal(lambda st, sel: d(st, sel, np.where(c(st, sel), a(st, sel), b(st, sel)).astype(dt)), inst)


@builder("slct")
def build_slct(prog, inst):
    t, ct = inst.parts[-2], inst.parts[-1]
    d = writer(prog, inst.operands[0])
    a, b = reader(prog, inst.operands[1], t), reader(prog, inst.operands[2], t)
    c = reader(prog, inst.operands[3], ct)
    return _normal(lambda st, sel: d(st, sel, np.where(c(st, sel) >= 0, a(st, sel), b(st, sel))
                                     .astype(np_type(t))), inst)


# ---- moves and conversions ----------------------------------------------------------------------

def _vec(text):
    text = text.strip()
    if text.startswith("{"):
        return [x.strip() for x in text[1:-1].split(",")]
    return None


@builder("mov")
def build_mov(prog, inst):
    t = _type(inst)
    dst, src = inst.operands
    dv, sv = _vec(dst), _vec(src)
    if dv is not None:  # unpack
        width = np_type(t).itemsize * 8
        part = width // len(dv)
        a = reader(prog, src, t if t.startswith("b") else "b" + str(width))
        ws = [writer(prog, x) for x in dv]
        pdt = np.dtype(f"u{part // 8}")

        def fn(st, sel):
            x = np.asarray(a(st, sel)).astype(np.uint64)
            for i, w in enumerate(ws):
                w(st, sel, ((x >> np.uint64(part * i)) & np.uint64((1 << part) - 1)).astype(pdt))
        return _normal(fn, inst)
    if sv is not None:  # pack
        width = np_type(t).itemsize * 8
        part = width // len(sv)
        rs = [reader(prog, x, "b" + str(part)) for x in sv]
        wdt = np.dtype(np.uint64)
        d = writer(prog, dst)
        odt = np.dtype(f"u{width // 8}")

        def fn(st, sel):
            r = np.uint64(0)
            for i, f in enumerate(rs):
                r = r | (np.asarray(f(st, sel)).astype(wdt) << np.uint64(part * i))
            d(st, sel, np.asarray(r).astype(odt))
        return _normal(fn, inst)
    rt = t if t != "pred" else "pred"
    if t in ("f16", "bf16"):
        rt = "b16"
    a = reader(prog, src, rt)
    d = writer(prog, dst)

    def fn(st, sel):
        v = a(st, sel)
        d(st, sel, v.copy() if isinstance(v, np.ndarray) else v)
    return _normal(fn, inst)


def _cvt_fp8x2(prog, inst, dt_, at, mods):
    """The two FP8 conversions: `cvt.rn.satfinite.e4m3x2.f32 d, a, b` packs b into the low byte and a
    into the high byte of a b16; `cvt.rn.f16x2.e4m3x2 d, a` unpacks the two bytes into an f16x2 (exact)."""
    d = writer(prog, inst.operands[0])
    if dt_ in V.FP8X2 and at == "f32":
        if "satfinite" not in mods or "rn" not in mods:
            raise Unsupported(f"{inst.opcode} (PTX has only .rn.satfinite for FP8)")
        hi, lo = reader(prog, inst.operands[1], "f32"), reader(prog, inst.operands[2], "f32")

        def fn(st, sel):
            byte = [V.to_fp8_bits(np.asarray(f(st, sel), np.float32), dt_[:-2]) for f in (lo, hi)]
            d(st, sel, (byte[0].astype(np.uint16) | (byte[1].astype(np.uint16) << 8)).astype(np.uint16))
        return _normal(fn, inst)
    if at in V.FP8X2 and dt_ == "f16x2":
        a = reader(prog, inst.operands[1], "b16")

        def fn(st, sel):
            x = np.asarray(a(st, sel)).astype(np.uint16)
            lo, hi = (V.fp8_bits_to_f64(b, at[:-2]) for b in ((x & 0xFF), (x >> 8)))
            d(st, sel, _pack16(_from64(lo, "f16"), _from64(hi, "f16")))
        return _normal(fn, inst)
    raise Unsupported(inst.opcode)


@builder("cvt")
def build_cvt(prog, inst):
    parts = inst.parts
    mods = parts[1:-2]
    dt_, at = parts[-2], parts[-1]
    sat = "sat" in mods
    ftz = "ftz" in mods
    if ("relu" in mods or "satfinite" in mods) and dt_ not in V.FP8X2:
        raise Unsupported(inst.opcode)
    if dt_ in V.FP8X2 or at in V.FP8X2:
        return _cvt_fp8x2(prog, inst, dt_, at, mods)
    d = writer(prog, inst.operands[0])
    if dt_ in ("f16x2", "bf16x2"):
        mode = next((m for m in mods if m in RND), "rn")
        a, b = reader(prog, inst.operands[1], at), reader(prog, inst.operands[2], at)
        scalar = dt_[:-2]

        def fn(st, sel):
            hi = _from64(np.asarray(a(st, sel), np.float64), scalar, mode)
            lo = _from64(np.asarray(b(st, sel), np.float64), scalar, mode)
            d(st, sel, _pack16(lo, hi))
        return _normal(fn, inst)
    if at in ("f16x2", "bf16x2"):
        raise Unsupported(inst.opcode)
    a = _rd_float(prog, inst.operands[1], at) if at in FLOATS else reader(prog, inst.operands[1], at)
    dfl, afl = dt_ in FLOATS, at in FLOATS
    mode = next((m for m in mods if m in RND), None)
    imode = next((m for m in mods if m in IRND), None)
    ddt = np_type(dt_)
    if dfl and afl:
        def fn(st, sel):
            x = _to64(a(st, sel), at)
            if ftz and at == "f32":
                x = V.ftz32(x.astype(np.float32)).astype(np.float64)
            if imode:
                x = {"rni": np.rint, "rzi": np.trunc, "rmi": np.floor, "rpi": np.ceil}[imode](x)
            r = _from64(x, dt_, mode or "rn")
            if sat:
                r64 = _sat(_to64(r, dt_))
                r = _from64(r64, dt_)
            if ftz and dt_ == "f32":
                r = V.ftz32(r)
            d(st, sel, r)
        return _normal(fn, inst)
    if afl:  # float -> int: round as told, saturate, NaN -> 0
        rnd = {"rni": np.rint, "rzi": np.trunc, "rmi": np.floor, "rpi": np.ceil}[imode or "rzi"]
        info = np.iinfo(ddt)

        def fn(st, sel):
            x = _to64(a(st, sel), at)
            if ftz and at == "f32":
                x = V.ftz32(x.astype(np.float32)).astype(np.float64)
            with np.errstate(invalid="ignore"):
                r = rnd(x)
                r = np.where(np.isnan(r), 0, np.clip(r, info.min, info.max))
            if ddt.itemsize == 8:
                big = r >= 2.0**63
                out = np.where(big, info.max, r).astype(ddt) if ddt.kind == "u" else r.astype(ddt)
                if ddt.kind == "i":
                    out = np.where(r >= 2.0**63, info.max, out)
                d(st, sel, np.asarray(out, ddt))
            else:
                d(st, sel, r.astype(ddt))
        return _normal(fn, inst)
    if dfl:  # int -> float
        m = mode or "rn"

        def fn(st, sel):
            x = np.asarray(a(st, sel))
            if dt_ == "f32" and m == "rn" and x.dtype.itemsize == 8:
                d(st, sel, x.astype(np.float32))
                return
            if x.dtype.itemsize == 8 and m != "rn":
                if np.any(np.abs(x.astype(np.float64)) >= 2.0**53):
                    raise Unsupported(f"{inst.opcode} of an integer beyond 2^53")
            d(st, sel, _from64(x.astype(np.float64), dt_, m))
        return _normal(fn, inst)

    def fn(st, sel):  # int -> int
        x = np.asarray(a(st, sel))
        if sat:
            info = np.iinfo(ddt)
            x = np.clip(x.astype(np.float64) if x.dtype.itemsize == 8 else x.astype(np.int64),
                        info.min, info.max)
        d(st, sel, x.astype(ddt))
    return _normal(fn, inst)


@builder("cvta")
def build_cvta(prog, inst):
    from grader.emulator.memory import LOCAL_WINDOW, SHARED_WINDOW
    parts = inst.parts
    to = "to" in parts
    space = parts[2] if to else parts[1]
    t = parts[-1]
    d = writer(prog, inst.operands[0])
    a = reader(prog, inst.operands[1], t)
    if space in ("global", "const", "param"):
        return _normal(lambda st, sel: d(st, sel, np.asarray(a(st, sel)).copy()), inst)
    base = {"shared": SHARED_WINDOW, "local": LOCAL_WINDOW}.get(space)
    if base is None:
        raise Unsupported(inst.opcode)
    dt = np_type(t)
    off = dt.type(base & ((1 << (dt.itemsize * 8)) - 1))

    def fn(st, sel):
        x = np.asarray(a(st, sel))
        d(st, sel, (x - off if to else x + off).astype(dt))
    return _normal(fn, inst)


# ---- control ------------------------------------------------------------------------------------

@builder("bra", "brx")
def build_bra(prog, inst):
    if inst.parts[0] == "brx":
        raise Unsupported(inst.opcode)
    op = Op(BRA, None, inst)
    op.target = prog.label(inst.operands[-1])
    return op


@builder("ret", "exit")
def build_ret(prog, inst):
    return Op(EXIT, None, inst)  # only kernels are decoded: calls other than printf are unsupported


@builder("trap", "brkpt")
def build_trap(prog, inst):
    from grader.emulator.machine import EmulatorFault

    def fn(st, sel):
        t = int(st.idx(sel)[0])
        raise EmulatorFault(f"{inst.opcode} executed (an assert failed or the kernel trapped) by "
                            f"{st.who(t)} at {inst.loc}")
    return _normal(fn, inst)


@builder("membar", "fence", "nanosleep", "prefetch", "prefetchu", "griddepcontrol", "pmevent",
         "discard", "applypriority", "createpolicy")
def build_nop(prog, inst):
    if inst.parts[0] == "createpolicy":
        d = writer(prog, inst.operands[0])
        return _normal(lambda st, sel: d(st, sel, np.uint64(0)), inst)
    return _normal(lambda st, sel: None, inst)


@builder("bar", "barrier")
def build_bar(prog, inst):
    parts = inst.parts
    if parts[1] == "warp":  # bar.warp.sync membermask
        return _warp_sync_op(prog, inst, reader(prog, inst.operands[0], "b32"), lambda st, sel: None)
    kind = parts[1] if len(parts) > 1 else "sync"
    if kind in ("aligned",):
        kind = "sync"
    if kind == "arrive" and len(inst.operands) == 2:
        return _bar_arrive(prog, inst)
    if kind not in ("sync", "red") and not (parts[0] == "barrier" and "sync" in parts):
        raise Unsupported(f"{inst.opcode} (only bar.sync / barrier.sync / bar.red / bar.arrive id, count)")
    if len(inst.operands) > 1 and kind == "sync":
        count = reader(prog, inst.operands[1], "u32")
    else:
        count = None
    red = None
    if kind == "red":
        redop = parts[2]
        d = writer(prog, inst.operands[0])
        p = reader(prog, inst.operands[-1], "pred")
        red = (redop, d, p)

    # a named barrier (bar.sync id, count): threads meet per (block, id), 16 barriers per block
    ident = reader(prog, inst.operands[0], "u32") if count is not None else None

    def ready(st, sel):
        blk = st.blk[sel]
        key = blk.astype(np.int64)
        if ident is not None:
            key = _named_key(st, sel, ident)
        arrived = np.bincount(key, minlength=st.nblk * 16 if ident is not None else st.nblk)
        if ident is not None:
            arrived = arrived + _named_credits(st)  # threads that passed it with bar.arrive
        # every thread of the block must arrive: one that exited never will (undefined in CUDA,
        # reported here as a barrier reached by part of the block)
        need = st.bthreads if count is None else int(np.asarray(count(st, sel[:1])).ravel()[0])
        done = arrived[key] >= need
        return sel[done], sel[~done]

    def fn(st, sel):
        blocks = np.unique(st.blk[sel])
        st.barrier(blocks)
        if st.order is not None:  # what each thread observed of async copies, shared at the barrier
            st.order.sync(sel, _named_key(st, sel, ident) if ident is not None else st.blk[sel], ident is not None)
        if ident is not None:  # the arrivals this completion used up
            key = _named_key(st, sel, ident)
            need = int(np.asarray(count(st, sel[:1])).ravel()[0])
            keys, here = np.unique(key, return_counts=True)
            credits = _named_credits(st)
            credits[keys] = np.maximum(credits[keys] - (need - here), 0)
        if red is not None:
            redop, d, p = red
            pv = np.asarray(p(st, sel), bool)
            blk = st.blk[sel]
            cnt = np.bincount(blk, weights=pv, minlength=st.nblk)
            tot = np.bincount(blk, minlength=st.nblk)
            if redop == "popc":
                d(st, sel, cnt[blk].astype(np.uint32))
            elif redop == "and":
                d(st, sel, cnt[blk] == tot[blk])
            else:
                d(st, sel, cnt[blk] > 0)
    op = Op(BAR, fn, inst, ready=ready)
    if ident is not None:
        def stuck(st, op, sel):
            t = int(sel[0])
            keys = _named_key(st, sel, ident)
            bar = int(keys[0]) % 16
            need = int(np.asarray(count(st, sel[:1])).ravel()[0])
            credits = int(_named_credits(st)[keys[0]])
            here = int(np.count_nonzero(keys == keys[0]))
            return (f"named barrier {bar} never completes: {op.where()} waits for {need} threads; {here} "
                    f"wait there ({st.who(t)} first) and {credits} more passed it with bar.arrive. Every "
                    f"bar.sync {bar}, {need} needs {need} threads between its own and the other side's bar.arrive "
                    f"(a ping-pong whose first turn is never given away deadlocks so).")
        op.stuck = stuck
    return op


def _named_key(st, sel, ident) -> np.ndarray:
    """Per thread of `sel`: block * 16 + the named barrier's id (`ident` reads it)."""
    ids = np.broadcast_to(np.asarray(ident(st, sel)).astype(np.int64) % 16, sel.shape)
    return st.blk[sel].astype(np.int64) * 16 + ids


def _named_credits(st) -> np.ndarray:
    """Per (block, barrier id): threads that arrived with bar.arrive and were not yet used by a bar.sync."""
    if getattr(st, "named_credits", None) is None:
        st.named_credits = np.zeros(st.nblk * 16, np.int64)
    return st.named_credits


def _bar_arrive(prog, inst):
    """bar.arrive id, count: count this thread in named barrier `id` without waiting (the producer side of
    a producer/consumer pair; bar.sync id, count on the other side completes once `count` threads came)."""
    ident = reader(prog, inst.operands[0], "u32")

    def fn(st, sel):
        keys = _named_key(st, st.idx(sel), ident)
        np.add.at(_named_credits(st), keys, 1)
        if st.order is not None:
            st.order.arrive_named(st.idx(sel), keys)
    return _normal(fn, inst)


def _warp_sync_op(prog, inst, mask_reader, fn):
    def ready(st, sel):
        if sel.size == st.n or st.whole_warps(sel):  # every lane of every warp is here
            return sel, None
        need = np.asarray(mask_reader(st, sel)).astype(np.uint32) & st.warp_exists(sel)
        present = st.warp_present(sel)
        ok = (need & ~present) == 0
        if ok.all():
            return sel, None
        # lanes that exited count as arrived (they never will)
        ex = st.exited_mask(sel)
        ok = (need & ~(present | ex)) == 0
        return sel[ok], sel[~ok]
    return Op(WSYNC, fn, inst, ready=ready)


@builder("shfl")
def build_shfl(prog, inst):
    parts = inst.parts
    if "sync" not in parts:
        raise Unsupported(f"{inst.opcode} (only shfl.sync)")
    mode = parts[2]
    dests = inst.operands[0].split("|")
    d = writer(prog, dests[0])
    dp = writer(prog, dests[1]) if len(dests) > 1 else None
    src_slot = inst.operands[1]
    a_full = reader(prog, src_slot, "b32")
    b = reader(prog, inst.operands[2], "u32")
    c = reader(prog, inst.operands[3], "u32")
    mask = reader(prog, inst.operands[4], "b32")
    from grader.emulator.machine import EmulatorFault
    # constant lane offset and clamp: each lane's source, once, for whole warps all shuffling
    bi, ci = immediate(inst.operands[2], "u32"), immediate(inst.operands[3], "u32")
    if bi is not None and ci is not None:
        lane32 = np.arange(32, dtype=np.int64)
        j32, p32 = _shfl_source(mode, lane32, np.int64(bi) & 31, np.int64(ci))
        delta32, sources = j32 - lane32, {}  # per number of threads: each one's source minus itself

    def fn(st, sel):
        if bi is not None and ci is not None and st.whole_warps(sel):
            m = sel.size
            if m not in sources:
                sources[m] = np.tile(delta32, m // 32)
            rsel = None if m == st.n else sel
            vals = a_full(st, None)
            d(st, rsel, np.asarray(vals)[sel + sources[m]] if np.ndim(vals) else vals)
            if dp is not None:
                dp(st, rsel, np.tile(p32, m // 32))
            return
        lane = st.lane[sel].astype(np.int64)
        j, pval = _shfl_source(mode, lane, np.asarray(b(st, sel)).astype(np.int64) & 31,
                               np.asarray(c(st, sel)).astype(np.int64))
        src = sel - lane + j
        st.mark[sel] = True
        ok = (src < st.n) & (src >= 0)
        srcc = np.where(ok, src, sel)
        ok &= st.mark[srcc] & (st.wkey[srcc] == st.wkey[sel])
        st.mark[sel] = False
        if not ok.all():
            bad = int(np.flatnonzero(~ok)[0])
            t = int(sel[bad])
            raise EmulatorFault(
                f"{inst.text} at {inst.loc}: {st.who(t)} reads lane {int(j[bad])}, which does not execute "
                f"this shuffle (it exited, took another path, or lies outside the block): the result "
                f"would be undefined on a GPU")
        vals = a_full(st, None)
        d(st, sel, np.asarray(vals)[srcc] if np.ndim(vals) else vals)
        if dp is not None:
            dp(st, sel, pval)
    return _warp_sync_op(prog, inst, mask, fn)


def _shfl_source(mode, lane, bv, cv):
    """(the lane each lane reads, whether it is in range: the predicate) of shfl.sync `mode` with
    b = bv (lane offset, mask or index) and c = cv (clamp value and segment mask)."""
    segmask = (cv >> 8) & 31
    cval = cv & 31
    maxlane = (lane & segmask) | (cval & ~segmask)
    minlane = lane & segmask
    if mode == "up":
        j = lane - bv
        pval = j >= maxlane
    elif mode == "down":
        j = lane + bv
        pval = j <= maxlane
    elif mode == "bfly":
        j = lane ^ bv
        pval = j <= maxlane
    else:
        j = minlane | (bv & ~segmask)
        pval = j <= maxlane
    return np.where(pval, j, lane), pval


@builder("vote")
def build_vote(prog, inst):
    parts = inst.parts
    if "sync" not in parts:
        raise Unsupported(f"{inst.opcode} (only vote.sync)")
    mode = parts[2]
    d = writer(prog, inst.operands[0])
    p = reader(prog, inst.operands[1], "pred")
    mask = reader(prog, inst.operands[2], "b32")

    def fn(st, sel):
        pv = np.asarray(p(st, sel), bool)
        pv = np.broadcast_to(pv, sel.shape)
        m = np.asarray(mask(st, sel)).astype(np.uint32)
        ballot = st.warp_present(sel[pv]) if pv.any() else None
        # per-thread ballot over the threads of its warp that voted true
        bits = np.zeros(sel.size, np.uint32)
        if ballot is not None:
            w_true = st.wkey[sel[pv]]
            w_all = st.wkey[sel]
            pos = np.searchsorted(w_true, w_all)
            posc = np.minimum(pos, w_true.size - 1)
            bits = np.where(w_true[posc] == w_all, ballot[posc], 0).astype(np.uint32)
        bits &= m
        if mode == "ballot":
            d(st, sel, bits)
        elif mode == "all":
            d(st, sel, (bits & m & st.warp_present(sel)) == (m & st.warp_present(sel)))
        elif mode == "any":
            d(st, sel, bits != 0)
        elif mode == "uni":
            pres = m & st.warp_present(sel)
            d(st, sel, (bits == 0) | (bits == pres))
        else:
            raise Unsupported(inst.opcode)
    return _warp_sync_op(prog, inst, mask, fn)


@builder("activemask")
def build_activemask(prog, inst):
    d = writer(prog, inst.operands[0])
    return _normal(lambda st, sel: d(st, sel, st.warp_present(st.idx(sel))), inst)


@builder("match")
def build_match(prog, inst):
    parts = inst.parts
    mode, t = parts[1], parts[-1]
    dests = inst.operands[0].split("|")
    d = writer(prog, dests[0])
    dp = writer(prog, dests[1]) if len(dests) > 1 else None
    a = reader(prog, inst.operands[1], t)
    mask = reader(prog, inst.operands[2], "b32")

    def fn(st, sel):
        v = np.broadcast_to(np.asarray(a(st, sel)), sel.shape)
        m = np.asarray(mask(st, sel)).astype(np.uint32)
        w = st.wkey[sel]
        bit = (np.uint32(1) << st.lane[sel]).astype(np.uint32)
        key = np.stack([w.astype(np.uint64), v.astype(np.uint64)], 1)
        _, inv = np.unique(key, axis=0, return_inverse=True)
        inv = inv.ravel()
        grp = np.zeros(inv.max() + 1, np.uint32)
        np.bitwise_or.at(grp, inv, bit)
        same = grp[inv] & m
        if mode == "any":
            d(st, sel, same)
        else:
            present = st.warp_present(sel) & m
            allsame = same == present
            d(st, sel, np.where(allsame, present, np.uint32(0)))
            if dp is not None:
                dp(st, sel, allsame)
    return _warp_sync_op(prog, inst, mask, fn)


# ---- memory -------------------------------------------------------------------------------------

BUILDERS.update({"ld": memops.build_ld, "ldu": memops.build_ld, "st": memops.build_st,
                 "atom": memops.build_atom, "red": memops.build_atom,
                 "cp": memops.build_cp, "ldmatrix": memops.build_ldmatrix,
                 "stmatrix": memops.build_stmatrix, "mma": memops.build_mma,
                 "call": memops.build_call})


@builder("redux")
def build_redux(prog, inst):
    parts = inst.parts
    if "sync" not in parts:
        raise Unsupported(inst.opcode)
    redop, t = parts[2], parts[-1]
    if t not in ("u32", "s32", "b32"):
        raise Unsupported(inst.opcode)
    d = writer(prog, inst.operands[0])
    a = reader(prog, inst.operands[1], t)
    mask = reader(prog, inst.operands[2], "b32")
    ufunc = {"add": np.add, "min": np.minimum, "max": np.maximum, "and": np.bitwise_and,
             "or": np.bitwise_or, "xor": np.bitwise_xor}[redop]
    dt = np_type(t)

    def fn(st, sel):
        v = np.broadcast_to(np.asarray(a(st, sel), dt), sel.shape)
        w = st.wkey[sel]
        starts = np.r_[0, np.flatnonzero(np.diff(w)) + 1]
        acc = v.astype(np.int64) if redop == "add" else v
        seg = ufunc.reduceat(acc, starts)
        d(st, sel, np.repeat(seg, np.diff(np.r_[starts, sel.size])).astype(dt))
    return _warp_sync_op(prog, inst, mask, fn)
