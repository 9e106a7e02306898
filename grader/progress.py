"""The student's progress: each exercise's last result on their own kernels (days/), from `pytest
days/...` and from `python -m grader check`, kept in .course/progress.json (git-ignored); the last
failing case of each exercise (its sizes, flags and seed, for `python -m grader debug` to replay), in
.course/failures.json."""
from __future__ import annotations

import json
import os
import time

from grader import paths
from grader.messages import say

FILE = paths.STATE / "progress.json"
FAILURES = paths.STATE / "failures.json"


def load() -> dict[str, dict]:
    """{'day02/silu_and_mul': {'status', 'passed', 'total', 'when', 'by'}, ...}; {} before any run."""
    try:
        data = json.loads(FILE.read_text())
    except (OSError, ValueError):
        return {}
    return {k: v for k, v in data.items() if "/" in k and isinstance(v, dict)}  # older files kept days


def _mine() -> bool:
    """Whether this run checks the student's own kernels (not the solutions, not another folder)."""
    return not (paths.use_solutions() or os.environ.get(paths.SOURCE_DIR_ENV))


def _write(path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data, indent=1, sort_keys=True))
    os.replace(tmp, path)


def _read(path) -> dict:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def record_failure(exercise: str, case: dict, seed: int | None) -> None:
    """Remember the case of the student's kernel that failed last ('day12/attention_mma': its sizes and
    flags, and the seed of its inputs)."""
    if not _mine():
        return
    data = _read(FAILURES)
    data[exercise] = {"case": case, "seed": seed, "when": time.strftime("%Y-%m-%d %H:%M")}
    _write(FAILURES, data)


def last_failure(exercise: str) -> dict | None:
    """{'case', 'seed', 'when'} of the exercise's last failing case, or None (none, or passed since)."""
    found = _read(FAILURES).get(exercise)
    return found if isinstance(found, dict) and isinstance(found.get("case"), dict) else None


def record(rows: list[dict], by: str) -> None:
    """Keep the result of each exercise row (`pytest_plugin.summarize`) of a run of the student's own
    kernels; runs of the solutions or of another folder ($COURSE_SOURCE_DIR) are not the student's, and
    an exercise whose cases were all skipped (no GPU) keeps its last result."""
    if not _mine():
        return
    ran = [r for r in rows if r["status"] != "skipped"]
    if not ran:
        return
    data = load()
    when = time.strftime("%Y-%m-%d %H:%M")
    for r in ran:
        data[r["exercise"]] = {"status": r["status"], "passed": r["passed"],
                               "total": r["passed"] + r["failed"] + r["skipped"], "when": when, "by": by}
    _write(FILE, data)
    failures = _read(FAILURES)
    passed = [r["exercise"] for r in ran if r["status"] == "passed" and r["exercise"] in failures]
    if passed:  # an exercise that passes has no failure left to replay
        _write(FAILURES, {k: v for k, v in failures.items() if k not in passed})


def day_summary(day: str, keys: list[str]) -> str:
    """'2 of 3 exercises passed (last run: pytest, 2026-11-23 15:11)', or how to check the day."""
    data = load()
    seen = [data[k] for k in keys if k in data]
    if not seen:
        return say("progress.not_checked", day=day)
    last = max(seen, key=lambda v: v["when"])
    passed = sum(v["status"] == "passed" for v in seen)
    return say("progress.passed", passed=passed, total=len(keys), by=last["by"], when=last["when"])
