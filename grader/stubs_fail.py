"""Every exercise test run against the stubs must FAIL (CI, on the GPU or the emulator).

    COURSE_BACKEND=emulator pytest days --course-report stubs.json    # fails, as it should
    python -m grader.stubs_fail stubs.json                    # exit 1 if any test passed

Reads the JSON of the course plugin's `--course-report`; a stub test that passes (a stub that pretends,
or a test that cannot fail) or a report with no failed test at all makes the exit status 1.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path


def verdict(results: list[dict]) -> tuple[bool, str]:
    """(ok, summary): ok when no exercise test passed and at least one failed."""
    counts = Counter(r["outcome"] for r in results)
    passed = [r["nodeid"] for r in results if r["outcome"] == "passed"]
    lines = [f"stubs on the emulator: {counts['failed']} failed (as they must), {counts['skipped']} skipped, "
             f"{counts['passed']} passed"]
    lines += [f"  PASSED against its stub (the test cannot fail, or the stub pretends): {n}" for n in passed]
    if not counts["failed"]:
        lines.append("  no exercise test failed: did the stubs run at all?")
    return not passed and counts["failed"] > 0, "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report", type=Path, help="the JSON written by pytest days --course-report")
    args = parser.parse_args(argv)
    if not args.report.is_file():
        print(f"no course report at {args.report}: run pytest days --course-report {args.report} first",
              file=sys.stderr)
        return 2
    ok, summary = verdict(json.loads(args.report.read_text()))
    print(summary)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
