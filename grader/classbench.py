"""`python -m grader.classbench OUT_DIR`: how fast a class is graded, serially and with grade-class.

Builds the same synthetic class once per mode (a fresh course folder each: nbgrader's configuration
names its folder): N students per day, student i hands in MIX[i % len(MIX)]: the solutions, the
released stubs, half-done work, a file that does not compile, and from the seventh student on a kernel
that traps and one that never finishes; every file a student changed ends with a line naming them, so
that, as in a real class, only untouched stubs are alike. A warm-up first grades one solution per day,
untimed (it measures the solutions' times that set the per-case budgets, and fills the disk cache);
each mode then compiles into a kernel cache of its own (CUPY_CACHE_DIR). The class is graded with
serial `nbgrader autograde` (what an instructor runs by hand) and with `grade-class` for each GPU count
asked for (its worker processes: CUDA_VISIBLE_DEVICES names that many GPUs, --gpus-per-task shares
them; without a GPU, that many workers on the emulator, where each grades an identical submission's
hidden tests once, serial nbgrader every time). A whole serial class on a GPU takes longer than one
sitting: --serial-students K grades the first K students of each day serially (K = 8: one of each
kind) and compares the scores on those.

Prints student-days per hour, per GPU (per worker), seconds per student-day per GPU, the speed-up over
serial per student-day, and whether every (student, day) got the same score in every mode (also
OUT_DIR/classbench.json; grade-class's own report, its per-day times and slowest submissions, in
OUT_DIR/grade-class-N.log).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

from grader import device, paths
from grader import nbgrader_course as course
from grader.days import day_name
from grader.exercises import days_with_exercises

MIX = ("solution", "solution", "stub", "half", "broken", "solution", "traps", "hangs")
BROKEN = "#error this submission does not compile\n"
STALLS = {"traps": " __trap();", "hangs": " while (true) {}"}   # put first in the day's first kernel
_KERNEL = re.compile(r"(__global__[^{;]*\{)")


def _files(day: str, kind: str, scratch: Path, student: str) -> dict[str, Path]:
    """The files a student of this kind hands in (the others are the released stubs). Each solved file
    ends with a comment naming the student, so that no two students hand in the same bytes, as in a real
    class (identical stubs stay identical: an exercise not started is the same file for everyone)."""
    names = course.exercise_files(day)
    solved = {"solution": names, "stub": [], "half": names[: len(names) // 2]}.get(kind, names)
    texts = {n: (paths.SOLUTIONS / day / n).read_text() for n in solved}
    if kind == "broken":
        texts[names[0]] = BROKEN + texts[names[0]]
    elif kind in STALLS:
        first = next(n for n in names if _KERNEL.search(texts[n]))
        texts[first] = _KERNEL.sub(lambda m: m.group(1) + STALLS[kind], texts[first], count=1)
    files = {}
    for n, text in texts.items():
        files[n] = scratch / f"{student}-{day}-{n}"
        files[n].write_text(f"{text}\n{'#' if n.endswith('.py') else '//'} handed in by {student}\n")
    return files


def build(course_dir: Path, days: list[str], students: int) -> list[tuple[str, str]]:
    """A released course with every student's submission in submitted/; returns the (student, day) pairs."""
    course.build_course(course_dir, days=days)
    scratch = course_dir / "kinds"
    scratch.mkdir()
    pairs = []
    with course.gradebook(course_dir) as gb:
        for i in range(students):
            gb.update_or_create_student(f"s{i:03d}")
    for day in days:
        for i in range(students):
            student = f"s{i:03d}"
            course._submit(course_dir, day, student, _files(day, MIX[i % len(MIX)], scratch, student))
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


def grade_class(course_dir: Path, gpus: int, gpus_per_task: float, log: Path) -> None:
    """`grade-class` on the class; what it prints (its per-day times, the slowest submissions) kept in `log`."""
    env = {**os.environ, "PYTHONPATH": paths.python_path()}
    args = [sys.executable, "-m", "grader", "grade-class", str(course_dir)]
    if device.why_not_hardware():  # the emulator: CPU workers stand for GPUs
        env[device.BACKEND_ENV] = "emulator"
        args += ["--workers", str(gpus)]
    else:
        env["CUDA_VISIBLE_DEVICES"] = ",".join(str(g) for g in range(gpus))
        args += ["--gpus-per-task", str(gpus_per_task)]
    done = subprocess.run(args, cwd=paths.ROOT, env={**env, "COLUMNS": "160"}, capture_output=True, text=True)
    log.write_text(done.stdout + done.stderr)
    if done.returncode not in (0, 1):  # 1: some pair failed, reported in the scores
        raise RuntimeError(f"grade-class ended with {done.returncode}: {(done.stdout + done.stderr)[-2000:]}")


def _parse(argv):
    p = argparse.ArgumentParser(prog="python -m grader.classbench", description=__doc__.splitlines()[0])
    p.add_argument("out_dir")
    p.add_argument("--students", type=int, default=12)
    p.add_argument("--days", nargs="+", default=["day01"])
    p.add_argument("--gpus", type=int, nargs="+", default=[1], help="GPU counts for grade-class (workers without a GPU)")
    p.add_argument("--gpus-per-task", type=float, default=1.0)
    p.add_argument("--no-serial", action="store_true", help="skip serial nbgrader (scores then compared between Ray runs)")
    p.add_argument("--serial-only", action="store_true", help="only serial nbgrader (a baseline for --reference)")
    p.add_argument("--reference", nargs="+", type=Path, metavar="JSON",
                   help="compare every mode's scores with these earlier runs' (their classbench.json scores, "
                        "together): a serial baseline graded in other sittings")
    p.add_argument("--serial-students", type=int, metavar="K",
                   help="serial nbgrader grades only the first K students of each day (default: all); scores are "
                        "compared on those (K = 8: one of each kind, where a whole serial class takes too long)")
    p.add_argument("--no-warm-up", action="store_true", help="skip grading one solution per day first")
    a = p.parse_args(argv)
    a.days = [day_name(d) for d in a.days]
    if bad := [d for d in a.days if d not in days_with_exercises()]:
        raise ValueError(f"{', '.join(bad)} has no exercises to grade")
    if a.students < 1 or any(g < 1 for g in a.gpus) or (a.serial_students is not None and a.serial_students < 1):
        raise ValueError("--students, --serial-students and --gpus must be at least 1")
    a.serial_students = min(a.serial_students or a.students, a.students)
    if a.no_serial and a.serial_only:
        raise ValueError("--no-serial and --serial-only leave nothing to run")
    a.reference_scores = None
    if a.reference:
        a.reference_scores = {}
        for path in a.reference:
            try:
                a.reference_scores.update(json.loads(path.read_text())["scores"])
            except (OSError, ValueError, KeyError, TypeError) as e:
                raise ValueError(f"--reference {path}: not a classbench.json ({e.__class__.__name__})") from None
    a.out = Path(a.out_dir)
    if a.out.exists() and any(a.out.iterdir()):
        raise ValueError(f"{a.out} is not empty")
    return a


def _timed(out: Path, label: str, days, students: int, grade) -> tuple[float, dict]:
    """Build the class in its own folder and kernel cache, grade it with `grade(course_dir, pairs)`;
    (seconds, scores)."""
    course_dir = out / re.sub(r"[^a-z0-9]+", "-", label.lower()).strip("-")
    pairs = build(course_dir, days, students)
    saved = os.environ.get("CUPY_CACHE_DIR")
    os.environ["CUPY_CACHE_DIR"] = str(out / f"{course_dir.name}.kernel-cache")  # every mode compiles its own
    try:
        start = time.monotonic()
        grade(course_dir, pairs)
        seconds = time.monotonic() - start
    finally:
        os.environ.pop("CUPY_CACHE_DIR") if saved is None else os.environ.update(CUPY_CACHE_DIR=saved)
    shutil.rmtree(course_dir / "autograded" / ".grade-class", ignore_errors=True)
    return seconds, scores(course_dir, pairs)


def main(argv=None) -> int:
    try:
        a = _parse(argv)
    except ValueError as e:
        print(f"classbench: {e}", file=sys.stderr)
        return 2
    a.out.mkdir(parents=True, exist_ok=True)
    if not a.no_warm_up:
        _timed(a.out, "warm-up", a.days, 1, serial)
    where, on = ("GPU", "") if not device.why_not_hardware() else ("CPU worker", " (emulator)")
    serial_label = "serial nbgrader" + (f" ({a.serial_students} student{'s' if a.serial_students > 1 else ''})"
                                        if a.serial_students < a.students else "")
    modes = ([(serial_label, 1, a.serial_students, serial)] if not a.no_serial else []) + [
        (f"grade-class, {g} {where}{'s' if g > 1 else ''}{on}", g, a.students,
         lambda c, p, g=g: grade_class(c, g, a.gpus_per_task, a.out / f"grade-class-{g}.log"))
        for g in ([] if a.serial_only else a.gpus)]
    rows, reference, first = [], a.reference_scores, None
    for label, gpus, students, grade in modes:
        seconds, got = _timed(a.out, label, a.days, students, grade)
        reference, first = reference or got, first or got
        per_hour = len(got) / seconds * 3600
        common = [k for k in got if k in reference]  # a serial baseline of fewer students: compared on those
        rows.append({"mode": label, "gpus": gpus, "student_days": len(got), "seconds": round(seconds, 1),
                     "per_hour": round(per_hour), "per_hour_per_gpu": round(per_hour / gpus),
                     "seconds_per_student_day_per_gpu": round(seconds * gpus / len(got), 2),
                     "compared": len(common),
                     "same_scores": bool(common) and all(got[k] == reference[k] for k in common)
                                    and None not in got.values(),
                     "differences": {k: (reference[k], got[k]) for k in common if got[k] != reference[k]}})
    base = rows[0]["seconds"] / rows[0]["student_days"]
    unit = "per GPU" if where == "GPU" else "per worker"
    print(f"{'mode':<36} {'student-days':>12} {'seconds':>8} {'per hour':>9} {unit:>10} {'s/day ' + unit:>14} "
          f"{'speed-up':>9}  same scores")
    for r in rows:
        print(f"{r['mode']:<36} {r['student_days']:>12} {r['seconds']:>8.1f} {r['per_hour']:>9} "
              f"{r['per_hour_per_gpu']:>10} {r['seconds_per_student_day_per_gpu']:>14.2f} "
              f"{base / (r['seconds'] / r['student_days']):>8.2f}x  "
              f"{'yes' if r['same_scores'] else 'NO: ' + str(r['differences'])[:200]} ({r['compared']} compared)")
    (a.out / "classbench.json").write_text(json.dumps({"days": a.days, "students": a.students, "mix": MIX,
                                                       "rows": rows, "scores": first}, indent=1))
    return 0 if all(r["same_scores"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
