"""How far a result may be from its float64 reference: elementwise error bounds (days 1 and 3) and
the relative error norm of K-long fp32 sums (the tensor-core GEMMs of days 9, 10, 14 and 15).
"""
from __future__ import annotations

import numpy as np

from grader import checks
from grader.messages import say


def ulp(exact: np.ndarray) -> np.ndarray:
    """The spacing of float32 numbers at each (float64) value: one unit in the last place."""
    return np.spacing(np.abs(exact).astype(np.float32)).astype(np.float64)


def _index(i: int, shape) -> str:
    return str(tuple(int(k) for k in np.unravel_index(i, shape))) if len(shape) > 1 else str(i)


def assert_within(got, exact, bound, *, name: str, seed: int, inputs=None) -> None:
    """Every |got - exact| <= bound (a number or an array like `exact`). The message names the worst
    element against its bound (input, expected, got, error in ulps and relative) and the largest
    relative error over all elements."""
    replay = checks.replay(seed)
    raw = np.asarray(got)
    got = raw.astype(np.float64)
    exact = np.asarray(exact, dtype=np.float64)
    if got.shape != exact.shape:
        raise AssertionError(f"{name}: shape {got.shape}, expected {exact.shape}{replay}")
    problem = checks.nan_problem(raw, exact, name, replay)
    if problem:
        raise AssertionError(problem)
    err = np.abs(got - exact)
    allowed = np.broadcast_to(bound, exact.shape) + np.finfo(np.float32).tiny
    over = err / allowed
    worst = int(np.argmax(over))
    if over.flat[worst] <= 1.0:
        return
    rel = err / np.maximum(np.abs(exact), np.finfo(np.float64).tiny)
    ulps = err.flat[worst] / ulp(exact.flat[worst])
    shown = "" if inputs is None else say("bound.input", value=np.asarray(inputs).flat[worst])
    raise AssertionError(say(
        "bound.outside", name=name, count=int((over > 1).sum()), size=got.size, index=_index(worst, got.shape),
        shown=shown, expected=exact.flat[worst], got=got.flat[worst], err=err.flat[worst], ulps=ulps,
        rel=rel.flat[worst], allowed=allowed.flat[worst], most=rel.max(), log2=np.log2(max(rel.max(), 1e-300)),
        replay=replay))


U32 = 2.0 ** -24  # unit roundoff of float32


def accumulate_tolerance(k: int, out_dtype: str = "float32") -> checks.Tolerance:
    """Relative error norm allowed for a product with K-long fp32 sums, stored as `out_dtype`.

    The products of 16-bit inputs are exact in fp32; each fp32 addition may lose up to 2^-24 of the
    running sum (tensor cores truncate rather than round), so the bound grows with K: 2^-23 * K on
    top of the output's own rounding (fp32 1e-5, fp16 1e-3, bf16 1e-2, by norm). A wrong fragment
    mapping gives errors of order 1.
    """
    base = {"float32": 1e-5, "float16": 1e-3, "bfloat16": 1e-2}[out_dtype]
    return checks.Tolerance(base + 2 * U32 * k, 0.0, True)
