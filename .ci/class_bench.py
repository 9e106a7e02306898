"""Grade a synthetic class twice, serially with `nbgrader autograde` and with `python -m grader
grade-class` (Ray), and report student-days per hour for each; the scores of the students both graded
must agree. Run by .ci/class_bench.sh on a GPU machine (on the emulator it runs too, slowly).

For a fair comparison a warm-up grades one solution per day first (untimed: it measures the solutions'
times that set the per-case budgets), and each mode compiles into a cupy kernel cache of its own.

The class cycles through kinds of submission: the solutions, the released stubs, half done (the first
half of the day's files solved), a kernel that traps (the day's first file), the solutions again, and
a kernel that never finishes.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grader import nbgrader_course as course  # noqa: E402
from grader import paths  # noqa: E402

KINDS = ("solution", "stubs", "half", "traps", "solution", "hangs")
_GLOBAL = re.compile(r"(__global__[^{;]*\{)")


def _files(day: str, kind: str, release: Path) -> dict[str, str]:
    """filename -> text of one submission of the given kind."""
    names = course.exercise_files(day)
    solved = {"solution": names, "stubs": [], "half": names[:len(names) // 2], "traps": names,
              "hangs": names}[kind]
    files = {n: (paths.SOLUTIONS / day / n if n in solved else release / n).read_text() for n in names}
    if kind in ("traps", "hangs"):
        stall = " __trap();" if kind == "traps" else " while (true) {}"
        files[names[0]] = _GLOBAL.sub(lambda m: m.group(1) + stall, files[names[0]])
    return files


def build(folder: Path, days: list[str], students: int) -> Path:
    course_dir = course.build_course(folder, days=days)
    for day in days:
        release = course_dir / "release" / day
        for i in range(students):
            dest = course_dir / "submitted" / f"s{i:03d}" / day
            dest.mkdir(parents=True)
            shutil.copyfile(release / f"{day}.ipynb", dest / f"{day}.ipynb")
            for name, text in _files(day, KINDS[i % len(KINDS)], release).items():
                (dest / name).write_text(text)
    return course_dir


def scores(course_dir: Path) -> dict[tuple[str, str], float]:
    with course.gradebook(course_dir) as gb:
        return {(s.student.id, a.name): float(s.code_score) for a in gb.assignments for s in a.submissions}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--students", type=int, default=6, help="the class graded by grade-class")
    p.add_argument("--serial", type=int, default=2, help="how many of them nbgrader autograde grades serially")
    p.add_argument("--days", nargs="+", default=["day01", "day06"])
    p.add_argument("--gpus-per-task", default="1")
    p.add_argument("--out", default=os.environ.get("OUT", "/tmp/class-bench"))
    args = p.parse_args()
    out = Path(args.out)
    work = Path(tempfile.mkdtemp(prefix="class-bench-"))  # not under $OUT: only the results come back
    warmup_dir = build(work / "warmup", args.days, 1)
    serial_dir = build(work / "serial", args.days, min(args.serial, args.students))
    ray_dir = build(work / "ray", args.days, args.students)

    for folder in (warmup_dir, serial_dir):
        os.environ["CUPY_CACHE_DIR"] = str(work / f"{folder.name}-kernel-cache")
        start = time.monotonic()
        for day in args.days:
            course.run_nbgrader(folder, "autograde", day, "--force")
        print(f"{folder.name}: {time.monotonic() - start:.0f} s", flush=True)
    serial_s = time.monotonic() - start
    os.environ["CUPY_CACHE_DIR"] = str(work / "ray-kernel-cache")

    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "grader", "grade-class", str(ray_dir),
                           "--gpus-per-task", args.gpus_per_task], cwd=ROOT, text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          env={**os.environ, "PYTHONPATH": paths.python_path(), "COLUMNS": "160"})
    ray_s = time.monotonic() - start
    print(done.stdout[-6000:])

    serial, ray = scores(serial_dir), scores(ray_dir)
    differ = {k: (v, ray.get(k)) for k, v in serial.items() if ray.get(k) != v}
    rows = [("nbgrader autograde (serial)", len(serial), serial_s), (f"grade-class (Ray, --gpus-per-task "
                                                                     f"{args.gpus_per_task})", len(ray), ray_s)]
    base = len(serial) / serial_s
    print(f"\n{'':42} {'student-days':>12} {'seconds':>8} {'per hour':>9} {'x serial':>9}")
    for name, n, s in rows:
        print(f"{name:42} {n:12d} {s:8.0f} {n / s * 3600:9.0f} {n / s / base:9.2f}")
    with course.gradebook(ray_dir) as gb:
        full = {a.name: float(a.max_code_score) for a in gb.assignments}
    honest = [k for k in ray if KINDS[int(k[0][1:]) % len(KINDS)] == "solution"]
    print(f"solution submissions at full marks: {sum(ray[k] == full[k[1]] for k in honest)} of {len(honest)}")
    print(f"scores of the {len(serial)} student-days graded both ways: "
          + ("identical" if not differ else f"{len(differ)} differ: {differ}"))
    out.mkdir(parents=True, exist_ok=True)
    (out / "class_bench.json").write_text(json.dumps({
        "days": args.days, "students": args.students, "gpus_per_task": args.gpus_per_task,
        "serial": {"student_days": len(serial), "seconds": serial_s},
        "ray": {"student_days": len(ray), "seconds": ray_s, "exit_status": done.returncode},
        "differ": {f"{s}/{a}": v for (s, a), v in differ.items()}}, indent=1))
    return 1 if differ or done.returncode or len(ray) != args.students * len(args.days) else 0


if __name__ == "__main__":
    raise SystemExit(main())
