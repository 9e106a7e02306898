"""Compare the emulator with a GPU on the same inputs: record every array a self-check reads back, on
whichever backend runs, then diff two recordings.

    python -m grader.emutools.compare record gpu.npz               # on the GPU machine
    COURSE_BACKEND=emulator python -m grader.emutools.compare record emu.npz
    python -m grader.emutools.compare diff gpu.npz emu.npz

Each exercise runs its smallest case and its largest up to COMPARE_LIMIT elements (solutions and stubs)
with fixed seeds; inputs come from numpy's
generator, so both machines feed the kernels identical bytes.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
import zlib

import numpy as np

from grader import device, paths
from grader.emulator.scaling import case_size
from grader.exercises import case_id, day_exercises, days_with_exercises


COMPARE_LIMIT = 1 << 18   # elements: the largest case compared per exercise
ULPS = 4                  # "close": within this many units in the last place of the output type


def record(out: str, days: list[str], cases: int, which: tuple[str, ...]) -> int:
    arrays: dict[str, np.ndarray] = {}
    status: dict[str, str] = {}
    real_to_host = device.to_host
    t0 = time.time()
    for kind in which:  # every solution first, then the stubs
        for day in days:
            for ex in day_exercises(day):
                by_size = sorted(ex.cases, key=case_size)
                fits = [c for c in by_size if case_size(c) <= COMPARE_LIMIT] or by_size[:1]
                chosen = [fits[0], fits[-1]][:cases] if len(fits) > 1 else fits
                path = (paths.SOLUTIONS if kind == "solutions" else paths.DAYS) / ex.day / ex.source
                if not path.is_file():
                    continue
                try:
                    module = device.load(path)
                except Exception as e:  # noqa: BLE001 - recorded, the run goes on
                    status[f"{ex.key}|{kind}"] = f"load: {e.__class__.__name__}: {str(e)[:200]}"
                    continue
                for case in chosen:
                    key = f"{ex.key}|{kind}|{case_id(case)}"
                    got: list[np.ndarray] = []

                    def to_host(arr, as_dtype=None, got=got):
                        h = real_to_host(arr, as_dtype)
                        got.append(np.array(h))
                        return h

                    device.to_host = to_host
                    seed = zlib.crc32(key.encode()) & 0x7FFFFFFF
                    try:
                        ex.check(module, seed, **case)
                        status[key] = "passed"
                    except AssertionError as e:
                        status[key] = f"failed: {str(e).splitlines()[0][:200]}"
                    except Exception as e:  # noqa: BLE001
                        status[key] = f"error: {e.__class__.__name__}: {str(e)[:200]}"
                    finally:
                        device.to_host = real_to_host
                    for i, a in enumerate(got):
                        arrays[f"{key}|{i}"] = a.view(np.uint16) if a.dtype == device.bfloat16 else a
                    print(f"{time.time() - t0:7.1f}s {key}: {status[key][:100]}", flush=True)
                _save(out, arrays, status)  # after each exercise: a time limit keeps what ran
    _save(out, arrays, status)
    return 0


def _save(out, arrays, status):
    # the outcomes as JSON bytes: no pickled object arrays (numpy 2.5 could not read those back)
    np.savez_compressed(out, **arrays, __status__=np.frombuffer(json.dumps(status).encode(), np.uint8))


def _ordered(a: np.ndarray) -> np.ndarray:
    """Float bits as integers ordered like the floats: the difference of two is their distance in ulps."""
    i = a.view({2: np.int16, 4: np.int32, 8: np.int64}[a.itemsize]).astype(np.int64)
    return np.where(i < 0, -(i & ((1 << (8 * a.itemsize - 1)) - 1)), i)


def _compare(a: np.ndarray, b: np.ndarray) -> tuple[str, float]:
    """('bitwise' | 'close' (within ULPS of the output type) | 'different', largest distance in ulps)."""
    if a.shape != b.shape or a.dtype != b.dtype:
        return "shape/dtype differ", np.inf
    if a.tobytes() == b.tobytes():
        return "bitwise", 0.0
    if a.dtype.kind == "f":
        if (np.isnan(a) != np.isnan(b)).any():
            return "NaN differs", np.inf
        ok = ~np.isnan(a)
        ulps = float(np.abs(_ordered(a[ok]) - _ordered(b[ok])).max()) if ok.any() else 0.0
    else:  # integers, and bfloat16 kept as its uint16 bits (same sign: the bit distance is in ulps)
        ulps = float(np.abs(a.astype(np.int64) - b.astype(np.int64)).max())
    return ("close" if ulps <= ULPS else "different"), ulps


def diff(ref: str, other: str) -> int:
    A, B = np.load(ref), np.load(other)
    sa, sb = (json.loads(X["__status__"].tobytes()) for X in (A, B))
    rows: dict[str, list] = {}
    for key in sorted(set(A.files) & set(B.files) - {"__status__"}):
        ex = "|".join(key.split("|")[:2])
        verdict, err = _compare(A[key], B[key])
        rows.setdefault(ex, []).append((verdict, err, key))
    print(f"{'exercise | source':<40} {'arrays':>6} {'bitwise':>8} {'close':>6} {'other':>6} {'max ulps':>9}")
    bad = 0
    for ex, rs in rows.items():
        n_bit = sum(v == "bitwise" for v, _, _ in rs)
        n_close = sum(v == "close" for v, _, _ in rs)
        worst = max(e for _, e, _ in rs)
        other_n = len(rs) - n_bit - n_close
        bad += other_n
        print(f"{ex:<40} {len(rs):>6} {n_bit:>8} {n_close:>6} {other_n:>6} {worst:>9.4g}")
        for v, e, k in rs:
            if v not in ("bitwise", "close"):
                print(f"    {k}: {v} ({e:.3g})")
    mism = [k for k in sorted(set(sa) & set(sb)) if sa[k].split(":")[0] != sb[k].split(":")[0]]
    for k in mism:
        print(f"outcome differs: {k}: {sa[k][:90]} | {sb[k][:90]}")
    only = sorted(set(sa) ^ set(sb))
    if only:
        print(f"{len(only)} cases recorded on one side only, e.g. {only[:3]}")
    print(f"{sum(len(r) for r in rows.values())} arrays compared; {bad} differ by more than {ULPS} ulps; "
          f"{len(mism)} outcomes differ")
    return 1 if bad or mism else 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m grader.emutools.compare", description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("record")
    r.add_argument("out")
    r.add_argument("days", nargs="*")
    r.add_argument("--cases", type=int, default=2)
    r.add_argument("--which", default="solutions,days")
    d = sub.add_parser("diff")
    d.add_argument("ref")
    d.add_argument("other")
    a = p.parse_args(argv)
    if a.cmd == "record":
        days = [paths.day_name(x) for x in a.days] or days_with_exercises()
        return record(a.out, days, a.cases, tuple(a.which.split(",")))
    return diff(a.ref, a.other)


if __name__ == "__main__":
    sys.exit(main())
