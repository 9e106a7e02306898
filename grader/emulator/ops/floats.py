"""The float forms of the instructions (f16, bf16, f32, f64 and the x2 pairs): operands read as numbers
or raw bits, widened to float64, rounded back to a type in a rounding mode, flushed or saturated."""
from __future__ import annotations

import numpy as np

from grader.emulator import values as V
from grader.emulator.operands import Unsupported, reader
from grader.messages import say


FLOATS = ("f16", "bf16", "f32", "f64", "f16x2", "bf16x2")


RND = ("rn", "rz", "rm", "rp")


IRND = ("rni", "rzi", "rmi", "rpi")


def split_x2(v):
    v = np.asarray(v, np.uint32)
    return (v & 0xFFFF).astype(np.uint16), (v >> 16).astype(np.uint16)


def pack_x2(lo, hi):
    return (np.asarray(lo).astype(np.uint32) | (np.asarray(hi).astype(np.uint32) << 16)).astype(np.uint32)


def to_f64(x, t):
    """Values of a float type (numpy array or uint16 bits for bf16) as float64."""
    if t == "bf16":
        return V.bf16_bits_to_f32(x).astype(np.float64)
    if t == "f16":
        return np.asarray(x).view(np.float16).astype(np.float64) if np.asarray(x).dtype == np.uint16 \
            else np.asarray(x, np.float64)
    return np.asarray(x, np.float64)


def from_f64(x, t, mode="rn"):
    """float64 (exact or rounded to odd) to type t (bf16/f16 as uint16 bits)."""
    if t == "f32":
        return V.to_f32(x, mode)
    if t == "f16":
        return V.to_f16(x, mode).view(np.uint16)
    if t == "bf16":
        return V.to_bf16_bits(x, mode)
    if t == "f64":
        if mode != "rn":
            raise Unsupported(say("emu.unsup.f64_rounding", mode=mode))
        return np.asarray(x, np.float64)
    raise Unsupported(t)


def flush_subnormal(x, t):
    if t == "f32":
        return V.ftz32(x)
    return x


def saturate(x):
    x = np.asarray(x)
    return np.where(np.isnan(x), x.dtype.type(0), np.clip(x, 0, 1)).astype(x.dtype)


def elementwise16(t, fn):
    """Lift a function on (t-scalars as float64 arrays) -> float64 into f16/bf16/x2 bit domain."""
    scalar = t.replace("x2", "")
    if t.endswith("x2"):
        def f(*args):
            los = [split_x2(a)[0] for a in args]
            his = [split_x2(a)[1] for a in args]
            lo = fn(*[to_f64(x, scalar) for x in los])
            hi = fn(*[to_f64(x, scalar) for x in his])
            return pack_x2(lo, hi)
        return f
    return lambda *args: fn(*[to_f64(a, scalar) for a in args])


def read_float(prog, text, t):
    """Reader of a float operand: f16/bf16(x2) as raw bits, f32/f64 as numbers."""
    if t in ("f16", "bf16"):
        return reader(prog, text, "b16")
    if t in ("f16x2", "bf16x2"):
        return reader(prog, text, "b32")
    return reader(prog, text, t)
