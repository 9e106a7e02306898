"""Which self-check cases run on the emulator: the awkward small sizes (the ones that catch bugs) in
full, the large ones only when asked.

The rule: a case's size is the product of its integer values above 1 (n, rows x d, m x n x k ...);
cases up to LIMIT run, or up to TENSOR_LIMIT for an exercise graded on the tensor cores (its technique
requires HMMA, HGMMA or QGMMA: one mma.sync is 16x8x16 multiply-adds in one numpy operation, a wgmma 64xNx16, so a GEMM of 512^3 or an
attention of 2 x 1000 x 1000 x 64 takes about a second); larger ones are skipped unless
$COURSE_EMULATOR_FULL=1. Each exercise keeps at least its MIN_CASES smallest cases whatever their size. An
exercise whose work is not the product of its sizes (attention: heads x seq^2 x d) says so with `cost`.
"""
from __future__ import annotations

import math
import os

from grader.messages import say

LIMIT = 1 << 21
TENSOR_LIMIT = 1 << 27
MIN_CASES = 2
FULL_ENV = "COURSE_EMULATOR_FULL"


def case_size(case: dict) -> int:
    return math.prod(int(v) for v in case.values() if isinstance(v, int) and not isinstance(v, bool) and v > 1)


def work(ex, case: dict) -> int:
    """A case's size on the emulator: the exercise's own `cost` where it states one, else `case_size`."""
    return ex.cost(case) if getattr(ex, "cost", None) else case_size(case)


def limit(ex) -> int:
    """The largest case size of exercise `ex` that runs on the emulator."""
    tensor = any(r.startswith(("HMMA", "HGMMA", "QGMMA")) for t in getattr(ex, "technique", ()) for r in t.require)
    return TENSOR_LIMIT if tensor else LIMIT


def runs_on_emulator(ex, case: dict) -> tuple[bool, str]:
    """(True, '') if `case` of exercise `ex` runs on the emulator, else (False, why)."""
    if os.environ.get(FULL_ENV) == "1":
        return True, ""
    size, most = work(ex, case), limit(ex)
    if size <= most:
        return True, ""
    smallest = sorted(work(ex, c) for c in ex.cases)[:MIN_CASES]
    if size <= smallest[-1]:
        return True, ""
    return False, say("emulator.too_large", size=f"{size:,}", most=f"{most:,}", exercise=ex.key, env=FULL_ENV)
