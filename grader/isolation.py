"""Running checks in a child process with a time limit, so a kernel that faults or hangs cannot take
down the grading of other exercises (nbgrader autograde, the CLI). The parent reports
"passed", "failed", "crashed" or "timed out" with the exercise's name.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from grader import paths

MARK = "COURSE-RESULT "


@dataclass
class Outcome:
    exercise: str
    status: str            # passed | failed | crashed | timed out
    message: str = ""
    passed: int = 0
    total: int = 0
    output: str = field(default="", repr=False)

    def __str__(self) -> str:
        head = f"{self.exercise}: {self.status} ({self.passed}/{self.total} cases)"
        return head + (f"\n{self.message}" if self.message else "")


def run_child(args: list[str], *, exercise: str, timeout: float, env: dict | None = None,
              cwd: Path | None = None) -> tuple[Outcome | None, subprocess.CompletedProcess | None]:
    """Run `python <args>` with a time limit; (Outcome, None) if it timed out, else (None, completed)."""
    full_env = {**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})}  # keep output up to a crash
    try:
        done = subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=timeout,
                              env=full_env, cwd=cwd)
    except subprocess.TimeoutExpired as e:
        tail = (e.stdout or b"")[-2000:]
        tail = tail.decode(errors="replace") if isinstance(tail, bytes) else tail
        return Outcome(exercise, "timed out", f"still running after {timeout:.0f} s (a kernel that never "
                       f"finishes, or an endless loop?); the process was stopped.", output=tail), None
    return None, done


def run_exercise(day, name: str, cases: list[dict] | None = None, *, source_dir: str | None = None,
                 solutions: bool = False, seed: int | None = None, timeout: float = 300) -> Outcome:
    """Check an exercise's cases (its own by default) in a child process."""
    key = f"{paths.day_name(day)}/{name}"
    request = {"day": paths.day_name(day), "name": name, "cases": cases, "seed": seed}
    env = {paths.KERNELS_ENV: "solutions" if solutions else "days"}
    if source_dir:
        env[paths.SOURCE_DIR_ENV] = str(Path(source_dir).resolve())
    timed_out, done = run_child(["-m", "grader.isolation", json.dumps(request)], exercise=key,
                                timeout=timeout, env=env)
    if timed_out:
        return timed_out
    return classify(done, key)


def classify(done: subprocess.CompletedProcess, key: str) -> Outcome:
    """The child's reported Outcome, or "crashed" when it died before reporting."""
    for line in reversed(done.stdout.splitlines()):
        if line.startswith(MARK):
            return Outcome(**json.loads(line[len(MARK):]), output=done.stdout + done.stderr)
    tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-15:])
    how = f"signal {-done.returncode}" if done.returncode < 0 else f"exit status {done.returncode}"
    return Outcome(key, "crashed", f"the checking process died ({how}) before reporting:\n{tail}",
                   output=done.stdout + done.stderr)


def _child(request: dict) -> dict:
    """In the child: compile, run each case, stop at the first crash (the CUDA context is gone)."""
    from grader import device, exercises, runner

    ex = exercises.get(request["day"], request["name"])
    cases = request["cases"] or list(ex.cases)
    result = {"exercise": ex.key, "status": "passed", "message": "", "passed": 0, "total": len(cases)}
    try:
        module = runner.load(ex)
    except Exception as e:  # noqa: BLE001 - compile errors and missing files are reported
        return {**result, "status": "failed", "message": str(e)}
    failures = []
    for case in cases:
        try:
            runner.check(ex, case, module, seed=request["seed"])
            result["passed"] += 1
        except AssertionError as e:
            failures.append(f"{exercises.case_id(case)}: {e}")
        except device.KernelFault as e:
            return {**result, "status": "crashed", "message": f"{exercises.case_id(case)}: {e}"}
    if failures:
        result.update(status="failed", message="\n".join(failures[:3]) +
                      (f"\n... and {len(failures) - 3} more" if len(failures) > 3 else ""))
    return result


if __name__ == "__main__":
    print(MARK + json.dumps(_child(json.loads(sys.argv[1]))), flush=True)
