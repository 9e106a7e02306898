"""The student's progress: each exercise's last result on their own kernels (days/), from `pytest
days/...` and from `python -m grader check`, kept in .course/progress.json (git-ignored)."""
from __future__ import annotations

import json
import os
import time

from grader import paths

FILE = paths.STATE / "progress.json"


def load() -> dict[str, dict]:
    """{'day02/silu_and_mul': {'status', 'passed', 'total', 'when', 'by'}, ...}; {} before any run."""
    try:
        data = json.loads(FILE.read_text())
    except (OSError, ValueError):
        return {}
    return {k: v for k, v in data.items() if "/" in k and isinstance(v, dict)}  # older files kept days


def record(rows: list[dict], by: str) -> None:
    """Keep the result of each exercise row (`pytest_plugin.summarize`) of a run of the student's own
    kernels; runs of the solutions or of another folder ($COURSE_SOURCE_DIR) are not the student's, and
    an exercise whose cases were all skipped (no GPU) keeps its last result."""
    if paths.use_solutions() or os.environ.get(paths.SOURCE_DIR_ENV):
        return
    ran = [r for r in rows if r["status"] != "skipped"]
    if not ran:
        return
    data = load()
    when = time.strftime("%Y-%m-%d %H:%M")
    for r in ran:
        data[r["exercise"]] = {"status": r["status"], "passed": r["passed"],
                               "total": r["passed"] + r["failed"] + r["skipped"], "when": when, "by": by}
    FILE.parent.mkdir(parents=True, exist_ok=True)
    tmp = FILE.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data, indent=1, sort_keys=True))
    os.replace(tmp, FILE)


def day_summary(day: str, keys: list[str]) -> str:
    """'2 of 3 exercises passed (last run: pytest, 2026-11-23 15:11)', or how to check the day."""
    data = load()
    seen = [data[k] for k in keys if k in data]
    if not seen:
        return f"not checked yet: pytest days/{day}"
    last = max(seen, key=lambda v: v["when"])
    passed = sum(v["status"] == "passed" for v in seen)
    return f"{passed} of {len(keys)} passed (last run: {last['by']}, {last['when']})"
