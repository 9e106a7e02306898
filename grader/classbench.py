"""`python -m grader.classbench OUT_DIR`: how fast a class is graded, serially and on Ray.

Builds the same synthetic class once per mode (a fresh course folder each: nbgrader's configuration
names its folder): N students per day, a fixed mix of submissions (student i gets MIX[i % 6]: half the
class hands in the solutions, the rest stubs, half-done work, or a file that does not compile). Then it
grades it with serial `nbgrader autograde` (what an instructor runs by hand) and with `grade-class` on
Ray for each GPU count asked for (CUDA_VISIBLE_DEVICES set before Ray starts; without a GPU, Ray CPU
workers), checks that every mode gives every (student, day) the same score, and prints a table
(also OUT_DIR/classbench.json).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from grader import device, paths
from grader import nbgrader_course as course
from grader.days import day_name
from grader.exercises import days_with_exercises

MIX = ("solution", "solution", "solution", "stub", "half", "broken")
BROKEN = "#error this submission does not compile\n"


def _files(day: str, kind: str, scratch: Path) -> dict[str, Path]:
    """The .cu files a student of this kind hands in (the others are the released stubs)."""
    names = course.exercise_files(day)
    solved = {"solution": names, "stub": [], "half": names[: len(names) // 2], "broken": names[1:]}[kind]
    files = {n: paths.SOLUTIONS / day / n for n in solved}
    if kind == "broken":
        bad = scratch / f"{day}-{names[0]}"
        bad.write_text(BROKEN + (paths.SOLUTIONS / day / names[0]).read_text())
        files[names[0]] = bad
    return files


def build(course_dir: Path, days: list[str], students: int) -> list[tuple[str, str]]:
    """A released course with every student's submission in submitted/; returns the (student, day) pairs."""
    course.build_course(course_dir, days=days)
    scratch = course_dir / "broken-files"
    scratch.mkdir()
    pairs = []
    with course.gradebook(course_dir) as gb:
        for i in range(students):
            gb.update_or_create_student(f"s{i:03d}")
    for day in days:
        for i in range(students):
            student = f"s{i:03d}"
            course._submit(course_dir, day, student, _files(day, MIX[i % len(MIX)], scratch))
            pairs.append((student, day))
    return pairs


def scores(course_dir: Path, pairs) -> dict[str, float | None]:
    with course.gradebook(course_dir) as gb:
        out = {}
        for student, day in pairs:
            try:
                out[f"{student}/{day}"] = float(gb.find_submission(day, student).code_score)
            except Exception:  # noqa: BLE001 - not graded: reported as a difference
                out[f"{student}/{day}"] = None
        return out


def serial(course_dir: Path, pairs) -> None:
    for student, day in pairs:
        course.run_nbgrader(course_dir, "autograde", day, f"--student={student}", "--force")


def on_ray(course_dir: Path, gpus: int, gpus_per_task: float) -> None:
    env = {**os.environ, "PYTHONPATH": paths.python_path()}
    args = [sys.executable, "-m", "grader", "grade-class", str(course_dir)]
    if device.why_not_hardware():  # the emulator: CPU workers stand for GPUs
        env[device.BACKEND_ENV] = "emulator"
        args += ["--workers", str(gpus)]
    else:
        env["CUDA_VISIBLE_DEVICES"] = ",".join(str(g) for g in range(gpus))
        args += ["--gpus-per-task", str(gpus_per_task)]
    done = subprocess.run(args, cwd=paths.ROOT, env=env, capture_output=True, text=True)
    if done.returncode not in (0, 1):  # 1: some pair failed, reported in the scores
        raise RuntimeError(f"grade-class ended with {done.returncode}: {(done.stdout + done.stderr)[-2000:]}")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m grader.classbench", description=__doc__.splitlines()[0])
    p.add_argument("out_dir")
    p.add_argument("--students", type=int, default=12)
    p.add_argument("--days", nargs="+", default=["day01"])
    p.add_argument("--gpus", type=int, nargs="+", default=[1], help="GPU counts for grade-class (workers without a GPU)")
    p.add_argument("--gpus-per-task", type=float, default=1.0)
    p.add_argument("--no-serial", action="store_true", help="skip serial nbgrader (scores then compared between Ray runs)")
    a = p.parse_args(argv)
    try:
        days = [day_name(d) for d in a.days]
        if bad := [d for d in days if d not in days_with_exercises()]:
            raise ValueError(f"{', '.join(bad)} has no exercises to grade")
        if a.students < 1 or any(g < 1 for g in a.gpus):
            raise ValueError("--students and --gpus must be at least 1")
        out = Path(a.out_dir)
        if out.exists() and any(out.iterdir()):
            raise ValueError(f"{out} is not empty")
    except ValueError as e:
        print(f"classbench: {e}", file=sys.stderr)
        return 2
    out.mkdir(parents=True, exist_ok=True)
    where = "GPUs" if not device.why_not_hardware() else "CPU workers (emulator)"
    modes = ([("serial nbgrader", None)] if not a.no_serial else []) + [(f"grade-class, {g} {where}", g) for g in a.gpus]
    rows, reference = [], None
    for label, gpus in modes:
        course_dir = out / (label.split(",")[0].replace(" ", "-") + (f"-{gpus}" if gpus else ""))
        pairs = build(course_dir, days, a.students)
        start = time.monotonic()
        serial(course_dir, pairs) if gpus is None else on_ray(course_dir, gpus, a.gpus_per_task)
        seconds = time.monotonic() - start
        got = scores(course_dir, pairs)
        reference = reference or got
        same = got == reference and None not in got.values()
        rows.append({"mode": label, "student_days": len(pairs), "seconds": round(seconds, 1),
                     "per_hour": round(len(pairs) / seconds * 3600), "same_scores": same,
                     "differences": {k: (reference[k], v) for k, v in got.items() if v != reference[k]}})
        shutil.rmtree(course_dir / "autograded" / ".grade-class", ignore_errors=True)
    base = rows[0]["seconds"]
    print(f"{'mode':<34} {'student-days':>12} {'seconds':>8} {'per hour':>9} {'speed-up':>9}  same scores")
    for r in rows:
        print(f"{r['mode']:<34} {r['student_days']:>12} {r['seconds']:>8.1f} {r['per_hour']:>9} "
              f"{base / r['seconds']:>8.2f}x  {'yes' if r['same_scores'] else 'NO: ' + str(r['differences'])[:200]}")
    (out / "classbench.json").write_text(json.dumps({"days": days, "students": a.students, "rows": rows,
                                                     "scores": reference}, indent=1))
    return 0 if all(r["same_scores"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
