"""PTX types as numpy dtypes, immediates, and IEEE rounding to float32 / float16 / bfloat16 in any of
PTX's rounding modes (rn, rz, rm, rp).

Exact results come from float64: a product of two float32 is exact in float64, and a sum or quotient
rounded to float64 and then to float32 is correctly rounded (53 >= 2 * 24 + 2: double rounding is
innocuous for +, -, *, /, sqrt). Where that does not hold (fma, directed rounding) the float64 result
is first rounded *to odd*, which keeps the information a second rounding needs.
"""
from __future__ import annotations

import struct

import ml_dtypes
import numpy as np

BF16 = np.dtype(ml_dtypes.bfloat16)

NP_TYPES = {
    "b8": np.uint8, "u8": np.uint8, "s8": np.int8,
    "b16": np.uint16, "u16": np.uint16, "s16": np.int16, "f16": np.float16, "bf16": np.uint16,
    "b32": np.uint32, "u32": np.uint32, "s32": np.int32, "f32": np.float32,
    "f16x2": np.uint32, "bf16x2": np.uint32,
    "b64": np.uint64, "u64": np.uint64, "s64": np.int64, "f64": np.float64,
    "pred": np.bool_,
}
UNSIGNED = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
SIGNED = {1: np.int8, 2: np.int16, 4: np.int32, 8: np.int64}


def storage(ptx_type: str) -> np.dtype:
    """How a register of this type is stored: unsigned bits of its width (bool for predicates)."""
    if ptx_type == "pred":
        return np.dtype(np.bool_)
    return np.dtype(UNSIGNED[np.dtype(NP_TYPES[ptx_type]).itemsize])


def parse_number(text: str, ptx_type: str):
    """An immediate operand as a numpy scalar of the instruction's type."""
    t = text.strip()
    dt = np.dtype(NP_TYPES[ptx_type])
    if t[:2] in ("0f", "0F") and len(t) == 10:
        v = np.array(int(t[2:], 16), np.uint32).view(np.float32)
        return v.astype(dt) if dt.kind == "f" else v.view(np.uint32).astype(dt)
    if t[:2] in ("0d", "0D") and len(t) == 18:
        v = np.array(int(t[2:], 16), np.uint64).view(np.float64)
        return v.astype(dt) if dt.kind == "f" else v.view(np.uint64).astype(dt)
    if dt.kind == "f" or ptx_type in ("f16x2", "bf16x2"):
        if ptx_type in ("f16x2", "bf16x2"):
            return np.uint32(int(t.rstrip("U"), 0) & 0xFFFFFFFF)
        return dt.type(float(t))
    if dt.kind == "b":
        return np.bool_(int(t, 0) != 0)
    v = int(t.rstrip("U"), 0)
    bits = dt.itemsize * 8
    return np.array(v & ((1 << bits) - 1), dtype=UNSIGNED[dt.itemsize]).view(dt)[()]


# ---- rounding ------------------------------------------------------------------------------------

def two_sum(a: np.ndarray, b: np.ndarray):
    """s = fl(a + b) and the exact error e = (a + b) - s, in float64 (Knuth)."""
    s = a + b
    bb = s - a
    e = (a - (s - bb)) + (b - bb)
    return s, e


def round_to_odd(s: np.ndarray, e: np.ndarray) -> np.ndarray:
    """The float64 nearest-rounded `s` with exact error `e`, re-rounded to odd (sticky last bit)."""
    s = np.asarray(s, np.float64)
    inexact = (e != 0) & np.isfinite(s)
    if not inexact.any():
        return s
    bits = s.view(np.int64).copy()
    even = inexact & ((bits & 1) == 0)
    # move one ulp towards the exact value: up in magnitude when e has s's sign
    toward = np.where(np.signbit(e) == np.signbit(s), 1, -1)
    bits = np.where(even, bits + toward, bits)
    return bits.view(np.float64)


def _directed(r: np.ndarray, x: np.ndarray, mode: str, nextafter_dtype) -> np.ndarray:
    """Adjust the nearest-rounded `r` (of dtype) of the exact value `x` (float64) for rz / rm / rp."""
    if mode == "rn":
        return r
    rx = r.astype(np.float64)
    with np.errstate(invalid="ignore"):
        if mode == "rm":
            fix = rx > x
            tgt = -np.inf
        elif mode == "rp":
            fix = rx < x
            tgt = np.inf
        elif mode == "rz":
            fix = np.abs(rx) > np.abs(x)
            tgt = 0.0
        else:
            raise ValueError(mode)
    if not np.any(fix):
        return r
    adj = np.nextafter(r, np.asarray(tgt, dtype=r.dtype)) if nextafter_dtype else None
    return np.where(fix, adj, r).astype(r.dtype)


def to_f32(x: np.ndarray, mode: str = "rn") -> np.ndarray:
    """float64 (exact, or rounded to odd) to float32 with a PTX rounding mode."""
    x = np.asarray(x, np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        r = x.astype(np.float32)
    return _directed(r, x, mode, True)


def to_f16(x: np.ndarray, mode: str = "rn") -> np.ndarray:
    """float64 (exact or rounded to odd) to float16."""
    x = np.asarray(x, np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        r = x.astype(np.float16)
    return _directed(r, x, mode, True)


def f32_to_bf16_bits(x: np.ndarray, mode: str = "rn") -> np.ndarray:
    """float32 to bfloat16 bits (uint16) with rounding; a NaN becomes the canonical NaN 0x7FFF, as the
    H100's cvt.rn.bf16x2.f32 gives it (grader.emutools.compare, 2026-11-23)."""
    x = np.asarray(x, np.float32)
    u = x.view(np.uint32).astype(np.uint64)
    nan = np.isnan(x)
    low = u & 0xFFFF
    hi = u >> 16
    sign = (u >> 31) & 1
    if mode == "rn":
        up = (low > 0x8000) | ((low == 0x8000) & ((hi & 1) == 1))
    elif mode == "rz":
        up = np.zeros_like(low, dtype=bool)
    elif mode == "rp":
        up = (low != 0) & (sign == 0)
    elif mode == "rm":
        up = (low != 0) & (sign == 1)
    else:
        raise ValueError(mode)
    r = (hi + up.astype(np.uint64)).astype(np.uint16)
    return np.where(nan, np.uint16(0x7FFF), r).astype(np.uint16)


def to_bf16_bits(x: np.ndarray, mode: str = "rn") -> np.ndarray:
    """float64 (exact or rounded to odd) to bfloat16 bits: to float32 by rounding to odd, then round."""
    x = np.asarray(x, np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        r = x.astype(np.float32)
    rx = r.astype(np.float64)
    inexact = (rx != x) & np.isfinite(x) & np.isfinite(rx)
    if inexact.any():  # make r odd-rounded: truncate toward zero, then set the last bit
        bits = r.view(np.uint32).copy()
        over = np.abs(rx) > np.abs(x)
        bits = np.where(inexact & over, bits - 1, bits)
        bits = np.where(inexact, bits | 1, bits).astype(np.uint32)
        r = bits.view(np.float32)
    return f32_to_bf16_bits(r, mode)


def bf16_bits_to_f32(b: np.ndarray) -> np.ndarray:
    return (np.asarray(b).astype(np.uint32) << 16).view(np.float32)


def ftz32(x: np.ndarray) -> np.ndarray:
    """Flush float32 subnormals to sign-preserving zero."""
    x = np.asarray(x, np.float32)
    tiny = np.abs(x) < np.float32(1.1754944e-38)
    if not np.any(tiny & (x != 0)):
        return x
    return np.where(tiny, np.copysign(np.float32(0), x), x).astype(np.float32)


def exact_fma(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """a * b + c for float32 (or narrower) inputs, as a float64 rounded to odd."""
    p = np.asarray(a, np.float64) * np.asarray(b, np.float64)  # exact
    s, e = two_sum(p, np.asarray(c, np.float64))
    return round_to_odd(s, e)


def exact_add(a, b):
    s, e = two_sum(np.asarray(a, np.float64), np.asarray(b, np.float64))
    return round_to_odd(s, e)


def fma64(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """fma in float64 by error-free transformations (Dekker product, then two sums): correctly rounded
    except where the compensation itself rounds (far below one ulp; stated in the README)."""
    a = np.asarray(a, np.float64)
    b = np.asarray(b, np.float64)
    c = np.asarray(c, np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        p = a * b
        split = 134217729.0
        ah = a * split
        ah = ah - (ah - a)
        al = a - ah
        bh = b * split
        bh = bh - (bh - b)
        bl = b - bh
        pe = ((ah * bh - p) + ah * bl + al * bh) + al * bl
        s, e = two_sum(p, c)
        r = s + (e + pe)
    return np.where(np.isfinite(p) & np.isfinite(c), r, p + c)


def f32_bits(v: float) -> int:
    return struct.unpack("<I", struct.pack("<f", v))[0]


# ---- FP8 (e4m3, e5m2): conversions as PTX's cvt.rn.satfinite and its exact widening -------------

FP8X2 = ("e4m3x2", "e5m2x2")
FP8 = {"e4m3": ml_dtypes.float8_e4m3fn, "e5m2": ml_dtypes.float8_e5m2}


def to_fp8_bits(x: np.ndarray, kind: str) -> np.ndarray:
    """f32 values rounded to nearest even and saturated to the largest finite FP8 value (.satfinite;
    NaN stays NaN), as uint8 bits."""
    t = FP8[kind]
    big = float(ml_dtypes.finfo(t).max)
    x = np.asarray(x, np.float32)
    with np.errstate(invalid="ignore"):
        x = np.where(np.isnan(x), x, np.clip(x, -big, big))
    return x.astype(t).view(np.uint8)


def fp8_bits_to_f64(b: np.ndarray, kind: str) -> np.ndarray:
    """uint8 FP8 bits as float64 (exact)."""
    return np.asarray(b).astype(np.uint8).view(FP8[kind]).astype(np.float64)
