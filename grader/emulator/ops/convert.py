"""Moves and conversions: mov (with packing and unpacking vectors), cvt between every integer and float
type in every rounding mode (FP8 pairs too), cvta between generic and state-space addresses."""
from __future__ import annotations

import numpy as np

from grader.emulator import values as V
from grader.emulator.operands import Unsupported, np_type, reader, writer
from grader.emulator.ops.floats import FLOATS, IRND, RND, from_f64, pack_x2, read_float, saturate, to_f64
from grader.emulator.ops.table import builder, normal, operand_type
from grader.messages import say


def _vec(text):
    text = text.strip()
    if text.startswith("{"):
        return [x.strip() for x in text[1:-1].split(",")]
    return None


@builder("mov")
def build_mov(prog, inst):
    t = operand_type(inst)
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
        return normal(fn, inst)
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
        return normal(fn, inst)
    rt = t if t != "pred" else "pred"
    if t in ("f16", "bf16"):
        rt = "b16"
    a = reader(prog, src, rt)
    d = writer(prog, dst)

    def fn(st, sel):
        v = a(st, sel)
        d(st, sel, v.copy() if isinstance(v, np.ndarray) else v)
    return normal(fn, inst)


def _cvt_fp8x2(prog, inst, dt_, at, mods):
    """The two FP8 conversions: `cvt.rn.satfinite.e4m3x2.f32 d, a, b` packs b into the low byte and a
    into the high byte of a b16; `cvt.rn.f16x2.e4m3x2 d, a` unpacks the two bytes into an f16x2 (exact)."""
    d = writer(prog, inst.operands[0])
    if dt_ in V.FP8X2 and at == "f32":
        if "satfinite" not in mods or "rn" not in mods:
            raise Unsupported(say("emu.unsup.fp8_rounding", opcode=inst.opcode))
        hi, lo = reader(prog, inst.operands[1], "f32"), reader(prog, inst.operands[2], "f32")

        def fn(st, sel):
            byte = [V.to_fp8_bits(np.asarray(f(st, sel), np.float32), dt_[:-2]) for f in (lo, hi)]
            d(st, sel, (byte[0].astype(np.uint16) | (byte[1].astype(np.uint16) << 8)).astype(np.uint16))
        return normal(fn, inst)
    if at in V.FP8X2 and dt_ == "f16x2":
        a = reader(prog, inst.operands[1], "b16")

        def fn(st, sel):
            x = np.asarray(a(st, sel)).astype(np.uint16)
            lo, hi = (V.fp8_bits_to_f64(b, at[:-2]) for b in ((x & 0xFF), (x >> 8)))
            d(st, sel, pack_x2(from_f64(lo, "f16"), from_f64(hi, "f16")))
        return normal(fn, inst)
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
            hi = from_f64(np.asarray(a(st, sel), np.float64), scalar, mode)
            lo = from_f64(np.asarray(b(st, sel), np.float64), scalar, mode)
            d(st, sel, pack_x2(lo, hi))
        return normal(fn, inst)
    if at in ("f16x2", "bf16x2"):
        raise Unsupported(inst.opcode)
    a = read_float(prog, inst.operands[1], at) if at in FLOATS else reader(prog, inst.operands[1], at)
    dfl, afl = dt_ in FLOATS, at in FLOATS
    mode = next((m for m in mods if m in RND), None)
    imode = next((m for m in mods if m in IRND), None)
    ddt = np_type(dt_)
    if dfl and afl:
        def fn(st, sel):
            x = to_f64(a(st, sel), at)
            if ftz and at == "f32":
                x = V.ftz32(x.astype(np.float32)).astype(np.float64)
            if imode:
                x = {"rni": np.rint, "rzi": np.trunc, "rmi": np.floor, "rpi": np.ceil}[imode](x)
            r = from_f64(x, dt_, mode or "rn")
            if sat:
                r64 = saturate(to_f64(r, dt_))
                r = from_f64(r64, dt_)
            if ftz and dt_ == "f32":
                r = V.ftz32(r)
            d(st, sel, r)
        return normal(fn, inst)
    if afl:  # float -> int: round as told, saturate, NaN -> 0
        rnd = {"rni": np.rint, "rzi": np.trunc, "rmi": np.floor, "rpi": np.ceil}[imode or "rzi"]
        info = np.iinfo(ddt)

        def fn(st, sel):
            x = to_f64(a(st, sel), at)
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
        return normal(fn, inst)
    if dfl:  # int -> float
        m = mode or "rn"

        def fn(st, sel):
            x = np.asarray(a(st, sel))
            if dt_ == "f32" and m == "rn" and x.dtype.itemsize == 8:
                d(st, sel, x.astype(np.float32))
                return
            if x.dtype.itemsize == 8 and m != "rn":
                if np.any(np.abs(x.astype(np.float64)) >= 2.0**53):
                    raise Unsupported(say("emu.unsup.beyond_2_53", opcode=inst.opcode))
            d(st, sel, from_f64(x.astype(np.float64), dt_, m))
        return normal(fn, inst)

    def fn(st, sel):  # int -> int
        x = np.asarray(a(st, sel))
        if sat:
            info = np.iinfo(ddt)
            x = np.clip(x.astype(np.float64) if x.dtype.itemsize == 8 else x.astype(np.int64),
                        info.min, info.max)
        d(st, sel, x.astype(ddt))
    return normal(fn, inst)


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
        return normal(lambda st, sel: d(st, sel, np.asarray(a(st, sel)).copy()), inst)
    base = {"shared": SHARED_WINDOW, "local": LOCAL_WINDOW}.get(space)
    if base is None:
        raise Unsupported(inst.opcode)
    dt = np_type(t)
    off = dt.type(base & ((1 << (dt.itemsize * 8)) - 1))

    def fn(st, sel):
        x = np.asarray(a(st, sel))
        d(st, sel, (x - off if to else x + off).astype(dt))
    return normal(fn, inst)
