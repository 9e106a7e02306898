"""Bit instructions: and or xor not cnot, shl shr shf, popc clz brev bfind, bfe bfi, prmt, lop3."""
from __future__ import annotations

import numpy as np

from grader.emulator.operands import Unsupported, immediate, np_type, reader, writer
from grader.emulator.ops.table import builder, normal, operand_type


@builder("and", "or", "xor", "not", "cnot")
def build_logic(prog, inst):
    base, t = inst.parts[0], operand_type(inst)
    d = writer(prog, inst.operands[0])
    rt = "pred" if t == "pred" else ("b" + str(np_type(t).itemsize * 8))
    srcs = [reader(prog, s, rt) for s in inst.operands[1:]]
    if base == "not":
        return normal(lambda st, sel: d(st, sel, np.invert(srcs[0](st, sel))), inst)
    if base == "cnot":
        return normal(lambda st, sel: d(st, sel, (srcs[0](st, sel) == 0).astype(np_type(rt))), inst)
    uf = {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}[base]
    return normal(lambda st, sel: d(st, sel, uf(srcs[0](st, sel), srcs[1](st, sel))), inst)


@builder("shl", "shr")
def build_shift(prog, inst):
    base, t = inst.parts[0], operand_type(inst)
    dt = np_type(t)
    bits = dt.itemsize * 8
    d = writer(prog, inst.operands[0])
    a = reader(prog, inst.operands[1], t)
    b = reader(prog, inst.operands[2], "u32")
    shift = immediate(inst.operands[2], "u32")
    if shift is not None and shift < bits:  # a constant shift within the width: one numpy operation
        uf, sc = (np.left_shift if base == "shl" else np.right_shift), dt.type(shift)
        return normal(lambda st, sel: d(st, sel, uf(a(st, sel), sc, dtype=dt)), inst)

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
    return normal(fn, inst)


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
    return normal(fn, inst)


@builder("popc", "clz", "brev", "bfind")
def build_bitcount(prog, inst):
    base, t = inst.parts[0], operand_type(inst)
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
    return normal(fn, inst)


@builder("bfe")
def build_bfe(prog, inst):
    t = operand_type(inst)
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
    return normal(fn, inst)


@builder("bfi")
def build_bfi(prog, inst):
    t = operand_type(inst)
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
    return normal(fn, inst)


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
    return normal(fn, inst)


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
    return normal(fn, inst)
