"""Comparing a kernel's output with a numpy reference, and saying clearly what is wrong.

Tolerances follow the dtype: float32 is checked element by element (relative 1e-5); float16 and
bfloat16 by the norm of the error (relative 1e-3 and 1e-2), since rounding to them is the dominant
error. NaN and Inf are always failures: outputs are poisoned before each launch with a NaN whose bits no
arithmetic makes (grader.dtypes.POISON_BITS), so a message tells an element the kernel never wrote from
a NaN it computed.
"""
from __future__ import annotations

import os
import secrets
from dataclasses import dataclass

import numpy as np

from grader.device import bfloat16, dtype as as_dtype
from grader.dtypes import unwritten
from grader.messages import say

SEED_ENV = "COURSE_SEED"


@dataclass(frozen=True)
class Tolerance:
    rtol: float
    atol: float
    by_norm: bool  # compare ||got - ref|| / ||ref|| instead of each element


TOLERANCES = {
    np.dtype(np.float64): Tolerance(1e-12, 1e-12, False),
    np.dtype(np.float32): Tolerance(1e-5, 1e-6, False),
    np.dtype(np.float16): Tolerance(1e-3, 0.0, True),
    bfloat16: Tolerance(1e-2, 0.0, True),
}


def tolerance(dt) -> Tolerance:
    dt = as_dtype(dt)
    if dt.kind in "iub":
        return Tolerance(0.0, 0.0, False)
    if dt not in TOLERANCES:
        raise ValueError(f"no tolerance defined for dtype {dt}")
    return TOLERANCES[dt]


def new_seed() -> int:
    """A fresh seed for every check; $COURSE_SEED replays a failing one."""
    fixed = os.environ.get(SEED_ENV)
    if fixed:
        try:
            return int(fixed)
        except ValueError:
            raise ValueError(f"{SEED_ENV}={fixed!r} is not an integer") from None
    return secrets.randbelow(2**31)


def replay(seed: int | None) -> str:
    """How to draw the same inputs again (empty without a seed)."""
    return say("replay", seed=seed, env=SEED_ENV) if seed is not None else ""


def _fmt_index(flat: int, shape) -> str:
    return str(tuple(int(i) for i in np.unravel_index(flat, shape))) if len(shape) > 1 else str(flat)


def nan_problem(got, expected, name: str, replay: str = "") -> str | None:
    """What the NaNs of `got` say, most specific first: elements still holding the poison (never
    written) and NaNs the kernel computed, each counted, with the first index; None without NaN."""
    g = np.asarray(got)
    nan = np.isnan(g.astype(np.float64))
    if not nan.any():
        return None
    e = np.asarray(expected, dtype=np.float64)
    never = unwritten(g) & nan
    computed = nan & ~never
    parts = []
    for mask, what in ((never, say("nan.never")), (computed, say("nan.computed"))):
        if mask.any():
            i = int(np.flatnonzero(mask)[0])
            parts.append(say("nan.part", count=int(mask.sum()), size=g.size, what=what,
                             index=_fmt_index(i, g.shape), expected=f"{e.flat[i]:.6g}"))
    if computed.any() and (not never.any() or np.flatnonzero(computed)[0] < np.flatnonzero(never)[0]):
        parts.reverse()  # the first wrong element's story first
    return f"{name}: " + say("and").join(parts) + replay


def _elements(count: int) -> str:
    """'element' or 'elements' after a count."""
    return say("emu.element" if count == 1 else "emu.elements")


def _also_differ(g: np.ndarray, e: np.ndarray, tol: Tolerance) -> str:
    """Beside NaNs, the elements that are numbers and still wrong, counted with the first (a kernel
    writing one element off: element 0 never written and every other one shifted); '' when none. A
    tolerance by norm is taken per element against the largest |expected|."""
    atol = tol.rtol * float(np.nanmax(np.abs(e), initial=0.0)) if tol.by_norm else tol.atol
    with np.errstate(invalid="ignore"):
        wrong = np.flatnonzero(~np.isnan(g) & ~(np.abs(g - e) <= np.abs(e) * tol.rtol + atol))
    if not wrong.size:
        return ""
    i = int(wrong[0])
    return say("nan.also", count=wrong.size, index=_fmt_index(i, g.shape), expected=f"{e.flat[i]:.6g}",
               got=f"{g.flat[i]:.6g}")


def assert_close(got, expected, *, dt=None, name: str = "output", seed: int | None = None,
                 tol: Tolerance | None = None) -> None:
    """Raise AssertionError unless `got` (the kernel's result, on the host) matches `expected`
    (a float64 or exact reference) within the dtype's tolerance.

    The message names the output, the first unwritten element if any, the worst element (index,
    expected, got, relative error) and the seed that reproduces the inputs.
    """
    got = np.asarray(got)
    expected = np.asarray(expected)
    dt = as_dtype(dt if dt is not None else got.dtype)
    tol = tol or tolerance(dt)
    again = replay(seed)
    if got.shape != expected.shape:
        raise AssertionError(say("shape", name=name, got=got.shape, expected=expected.shape, replay=again))
    if got.size == 0:
        return
    if dt.kind in "iub":
        bad = np.flatnonzero(got.astype(np.int64) != expected.astype(np.int64))
        if bad.size:
            i = bad[0]
            raise AssertionError(say("differ", name=name, count=bad.size, size=got.size,
                                     index=_fmt_index(i, got.shape), expected=expected.flat[i],
                                     got=got.flat[i], replay=again))
        return
    g = got.astype(np.float64)
    e = np.asarray(expected, dtype=np.float64)  # read only: no copy of a float64 reference
    if np.isnan(g).any():
        raise AssertionError(nan_problem(got, e, name, _also_differ(g, e, tol) + again))
    inf = np.isinf(g)
    if inf.any():
        inf = np.flatnonzero(inf & ~np.isinf(e))
        if inf.size:
            i = inf[0]
            raise AssertionError(say("inf", name=name, count=inf.size, elements=_elements(inf.size),
                                     index=_fmt_index(i, g.shape),
                                     expected=f"{e.flat[i]:.6g}", replay=again))
    err = np.subtract(g, e, out=g)  # g is this function's own copy
    np.abs(err, out=err)

    def detail() -> str:  # the worst element, worded only for a failure (the arrays are large)
        worst = int(np.argmax(err - tol.rtol * np.abs(e)))
        with np.errstate(over="ignore", divide="ignore"):
            rel = err.flat[worst] / np.maximum(np.abs(e.flat[worst]), np.finfo(np.float64).tiny)
        return say("worst", index=_fmt_index(worst, err.shape), expected=f"{e.flat[worst]:.7g}",
                   got=f"{got.reshape(-1)[worst:worst + 1].astype(np.float64)[0]:.7g}", rel=f"{rel:.2e}")

    if tol.by_norm:
        ref_norm = np.linalg.norm(e)
        norm_err = np.linalg.norm(err) / ref_norm if ref_norm > 0 else np.linalg.norm(err)
        if not norm_err <= tol.rtol:
            raise AssertionError(say("norm", name=name, dtype=dt.name, err=f"{norm_err:.2e}",
                                     rtol=f"{tol.rtol:.0e}", detail=detail(), replay=again))
        return
    limit = np.abs(e)
    limit *= tol.rtol
    limit += tol.atol
    bad = err > limit
    if bad.any():
        raise AssertionError(say("outside", name=name, dtype=dt.name, count=int(bad.sum()), size=err.size,
                                 rtol=f"{tol.rtol:.0e}", atol=f"{tol.atol:.0e}", detail=detail(), replay=again))


def assert_untouched(got, mask, *, name: str = "output", seed: int | None = None) -> None:
    """Elements selected by `mask` must still hold the NaN poison: the kernel must not write them."""
    got = np.asarray(got, dtype=np.float64)
    written = np.flatnonzero(mask.ravel() & ~np.isnan(got.ravel()))
    if written.size:
        i = written[0]
        raise AssertionError(say("left_alone", name=name, count=written.size, elements=_elements(written.size),
                                 index=_fmt_index(i, got.shape),
                                 got=f"{got.flat[i]:.6g}", replay=replay(seed)))
