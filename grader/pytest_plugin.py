"""The course's pytest plugin: `--solutions`, the `course` fixture, a watchdog for hanging kernels,
and a closing summary per exercise with its % of ceiling.

Loaded by the course's root conftest.py.
"""
from __future__ import annotations

import json
import os
import threading
from collections import defaultdict
from pathlib import Path

import pytest

from grader import device, paths, runner, sass
from grader.exercises import Exercise

TIMEOUT_ENV = "COURSE_TEST_TIMEOUT"
_fault: dict[str, str] = {}
_RESULTS: list[dict] = []


def pytest_addoption(parser):
    group = parser.getgroup("course")
    group.addoption("--solutions", action="store_true",
                    help="load kernels from solutions/ instead of days/ (same as COURSE_KERNELS=solutions)")
    group.addoption("--course-report", metavar="PATH",
                    help="write each exercise test's outcome and % of ceiling as JSON (used by the CLI)")


def pytest_configure(config):
    if config.getoption("solutions"):
        os.environ[paths.KERNELS_ENV] = "solutions"
    config.addinivalue_line("markers", "gpu: needs a CUDA GPU")
    if device.emulated() and not config.pluginmanager.has_plugin("grader.emulator.pytest_scaling"):
        # cases too large for a CPU and timed tests are skipped, with the reason
        config.pluginmanager.import_plugin("grader.emulator.pytest_scaling")


class Course:
    """What a day's test gets: check one case, or benchmark an exercise against its ceiling."""

    def __init__(self, node):
        self.node = node

    def _ready(self, ex: Exercise):
        reason = device.why_no_gpu()
        if reason:
            pytest.skip(f"needs a CUDA GPU: {reason}. Compile and SASS checks still run "
                        f"without one (python -m grader compile {ex.day}).")
        if _fault:
            pytest.fail(f"not run: an earlier kernel ({_fault['what']}) crashed and left the GPU "
                        f"context unusable. Fix that one first, or isolate each exercise with "
                        f"`python -m grader check {ex.day}`.", pytrace=False)
        self.node.user_properties.append(("exercise", ex.key))
        self.node.user_properties.append(("source", str(runner.source_of(ex))))
        try:
            return runner.load(ex)
        except Exception as e:  # compile errors and missing files: the student's problem, said plainly
            pytest.fail(str(e), pytrace=False)

    def check(self, ex: Exercise, case: dict) -> None:
        module = self._ready(ex)
        self._run(ex, lambda: runner.check(ex, case, module))

    def bench(self, ex: Exercise) -> None:
        module = self._ready(ex)
        report = None

        def run():
            nonlocal report
            report = runner.bench(ex, module, quick=True)  # checks the largest case first

        self._run(ex, run)
        label = next(iter(report.series))
        ratios = {lbl: report.final_ratio(lbl) for lbl in report.series}
        worst = min(ratios, key=ratios.get)
        self.node.user_properties.append(("ratio", ratios[worst]))
        self.node.user_properties.append(("ceiling", report.ceiling_label))
        print(report.table())
        if ex.target is not None and ratios[worst] < ex.target:
            pytest.fail(f"{ex.key}: {worst} reaches {ratios[worst]:.0%} of the ceiling measured in this run "
                        f"at the largest size; the target is {ex.target:.0%}. ({label} table above)",
                        pytrace=False)

    @staticmethod
    def _run(ex: Exercise, fn):
        try:
            fn()
        except device.KernelFault as e:
            if not device.emulated():  # a GPU context is unusable after a fault; the emulator's is not
                _fault["what"] = ex.key
            pytest.fail(f"crashed: {e}", pytrace=False)
        except AssertionError as e:
            pytest.fail(str(e), pytrace=False)


def require_sass_tools(module_level: bool = True) -> None:
    """Skip (by default the calling test module) where SASS cannot be read offline: NVRTC through
    cuda-bindings, or nvdisasm / cuobjdump, is missing."""
    pytest.importorskip("cuda.bindings.nvrtc", reason="offline compilation needs cuda-bindings")
    try:
        sass.tool("nvdisasm"), sass.tool("cuobjdump")
    except FileNotFoundError as e:
        pytest.skip(str(e), allow_module_level=module_level)


@pytest.fixture
def course(request) -> Course:
    return Course(request.node)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    """A kernel that never finishes must not hang the run: after $COURSE_TEST_TIMEOUT seconds
    (default 300) say which test hung and end the process."""
    limit = float(os.environ.get(TIMEOUT_ENV, "300"))

    def expire():
        print(f"\n\nTIMED OUT: {item.nodeid} still running after {limit:.0f} s "
              f"(a kernel that never finishes?). Stopping.", flush=True)
        os._exit(3)

    timer = threading.Timer(limit, expire)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()


def pytest_runtest_logreport(report):
    if report.when != "call" and not (report.when == "setup" and report.outcome != "passed"):
        return
    props = dict(report.user_properties)
    if "exercise" not in props:
        return
    message = ""
    if report.failed:
        message = str(report.longrepr.reprcrash.message if hasattr(report.longrepr, "reprcrash")
                      else report.longrepr)
    elif report.skipped:
        message = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
    _RESULTS.append({"nodeid": report.nodeid, "exercise": props["exercise"], "outcome": report.outcome,
                       "message": message, "ratio": props.get("ratio"), "ceiling": props.get("ceiling"),
                       "source": props.get("source")})


def summarize(results: list[dict]) -> list[dict]:
    """One row per exercise: cases passed / total, outcome, % of ceiling, first failure."""
    rows: dict[str, dict] = defaultdict(lambda: {"passed": 0, "failed": 0, "skipped": 0, "ratio": None,
                                                 "ceiling": None, "first_failure": ""})
    for r in results:
        row = rows[r["exercise"]]
        row[r["outcome"]] += 1
        if r["ratio"] is not None:
            row["ratio"], row["ceiling"] = r["ratio"], r["ceiling"]
        if r["outcome"] == "failed" and not row["first_failure"]:
            row["first_failure"] = f"{r['nodeid'].split('::')[-1]}: {r['message']}"
    out = []
    for ex, row in rows.items():
        status = "FAILED" if row["failed"] else ("skipped" if not row["passed"] else "passed")
        out.append({"exercise": ex, "status": status, **row})
    return out


def format_table(rows: list[dict]) -> str:
    lines = [f"{'exercise':<28} {'cases':>7}  {'result':<8} % of ceiling"]
    for r in rows:
        total = r["passed"] + r["failed"] + r["skipped"]
        ratio = f"{r['ratio']:.0%} of {r['ceiling']}" if r["ratio"] is not None else "-"
        lines.append(f"{r['exercise']:<28} {r['passed']:>3}/{total:<3}  {r['status']:<8} {ratio}")
    return "\n".join(lines)


def pytest_terminal_summary(terminalreporter, config):
    results = _RESULTS
    path = config.getoption("course_report")
    if path:
        Path(path).write_text(json.dumps(results, indent=1))
    if not results:
        return
    rows = summarize(results)
    which = "solutions/" if paths.use_solutions() else "your kernels (days/)"
    tr = terminalreporter
    tr.section(f"course self-check: {which}")
    tr.write_line(format_table(rows))
    for r in rows:
        if r["first_failure"]:
            first = r["first_failure"].splitlines()[0]
            tr.write_line(f"\n{r['exercise']}: {r['failed']} case(s) failed; first: {first}")
    if any(r["status"] == "skipped" for r in rows) and not device.emulated():
        tr.write_line("\nSkipped exercises need a CUDA GPU; `python -m grader compile` and "
                      "`python -m grader sass` work without one.")
