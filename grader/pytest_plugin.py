"""The course's pytest plugin: `--solutions`, the `course` fixture, a watchdog for hanging kernels,
and a closing summary per exercise with its % of ceiling.

Loaded by the course's root conftest.py.
"""
from __future__ import annotations

import json
import os
import re
import threading
from collections import defaultdict
from pathlib import Path

import pytest

from grader import device, paths, progress, runner, sass, tables
from grader.exercises import Exercise, case_id
from grader.messages import ceiling as ceiling_word, say, status as status_word

TIMEOUT_ENV = "COURSE_TEST_TIMEOUT"
_fault: dict[str, str] = {}
_RESULTS: list[dict] = []


def pytest_addoption(parser):
    group = parser.getgroup("course")
    group.addoption("--solutions", action="store_true",
                    help="load kernels from solutions/ instead of days/ (same as COURSE_KERNELS=solutions)")
    group.addoption("--course-report", metavar="PATH",
                    help="write each exercise test's outcome and % of ceiling as JSON (used by the CLI)")


_TERMINAL = os.dup(2)  # stderr before pytest's capture replaces it


def pytest_configure(config):
    if config.getoption("solutions"):
        os.environ[paths.KERNELS_ENV] = "solutions"
    try:
        if paths.use_solutions():
            paths.solutions_dir("--solutions (COURSE_KERNELS=solutions)")
    except (ValueError, paths.InstructorOnly) as e:
        raise pytest.UsageError(str(e)) from None
    config.addinivalue_line("markers", "gpu: needs a CUDA GPU")
    if not device.current().full_sizes and not config.pluginmanager.has_plugin("grader.emutools.pytest_scaling"):
        # cases too large for a CPU and timed tests are skipped, with the reason
        config.pluginmanager.import_plugin("grader.emutools.pytest_scaling")


def _headline(message: str) -> str:
    """What the later cases of an exercise repeat of its first failure: the first line, only its
    headline ('day02/quant_int8: the technique of the day is missing from quant_int8.cu') when that
    line goes on (a technique message is one long line)."""
    first = message.splitlines()[0]
    headline = re.match(r"(.+?[:：].+?)[:：]", first)
    return headline.group(1) if headline and len(first) > 160 else first


class Course:
    """What a day's test gets: check one case, or benchmark an exercise against its ceiling.

    Checks run in a locked-down child per exercise (grader.isolation): all the exercise's cases that
    this machine runs go to one child the first time a test asks, and each test reports its own
    case. A kernel that crashes or hangs costs its own exercise, reported within its time budget;
    the other exercises still run."""

    def __init__(self, node):
        self.node = node

    def _ready(self, ex: Exercise) -> None:
        why = runner.why_not_here(ex)
        if why:
            pytest.skip(why)
        self.node.user_properties.append(("exercise", ex.key))
        self.node.user_properties.append(("source", str(runner.source_of(ex))))

    def check(self, ex: Exercise, case: dict) -> None:
        self._ready(ex)
        result, first = _isolated_case(ex, case)
        if result.status == "passed":
            return
        if result.status == "not run":
            outcome = _OUTCOMES[ex.key]
            if outcome.status == "failed" and not any(r.status != "not run" for r in outcome.cases):
                why = outcome.message if first else \
                    say("not_run.whole", first=_headline(outcome.message), exercise=ex.key)
            else:
                ended = next((r for r in outcome.cases if r.status in ("timed out", "crashed")), None)
                why = (say("not_run.ended", exercise=ex.key, case=case_id(ended.case),
                           status=status_word(ended.status)) if ended else
                       say("not_run.stopped", exercise=ex.key, first=outcome.message.splitlines()[0]))
            pytest.fail(why, pytrace=False)
        progress.record_failure(ex.key, result.case, result.seed)  # what `grader debug` replays
        prefix = say("crashed") if result.status == "crashed" else ""
        pytest.fail(prefix + result.message, pytrace=False)

    def bench(self, ex: Exercise) -> None:
        self._ready(ex)
        largest, _ = _isolated_case(ex, ex.cases[-1])  # a hung or wrong kernel is never timed
        if largest.status != "passed":
            pytest.fail(say("bench.largest_failed", exercise=ex.key, status=status_word(largest.status),
                            error=(largest.message or _OUTCOMES[ex.key].message).splitlines()[0]), pytrace=False)
        if _fault:
            pytest.fail(say("bench.context_lost", what=_fault["what"]), pytrace=False)
        try:
            module = runner.load(ex)
        except Exception as e:  # noqa: BLE001 - the student's problem, said plainly
            pytest.fail(str(e), pytrace=False)
        report = None

        def run():
            nonlocal report
            report = runner.bench(ex, module, quick=True)  # checks the largest case first

        self._run(ex, run)
        label = next(iter(report.series))
        ratios = {lbl: report.final_ratio(lbl) for lbl in report.series if lbl not in report.earlier}
        worst = min(ratios, key=ratios.get)
        self.node.user_properties.append(("ratio", ratios[worst]))
        self.node.user_properties.append(("ceiling", report.ceiling_label))
        print(report.table())
        if ex.target is not None and ratios[worst] < ex.target:
            pytest.fail(say("bench.below_target", exercise=ex.key, label=worst, ratio=f"{ratios[worst]:.0%}",
                            target=f"{ex.target:.0%}", table=label), pytrace=False)

    @staticmethod
    def _run(ex: Exercise, fn):
        failure = None
        try:
            fn()
        except device.KernelFault as e:
            if not device.current().survives_faults:  # a GPU context is unusable after a fault
                _fault["what"] = ex.key
            failure = f"crashed: {e}"
        except AssertionError as e:
            failure = str(e)
        if failure is not None:  # outside the except block: the failure is printed once
            pytest.fail(failure, pytrace=False)


_OUTCOMES: dict = {}
_SHOWN: set = set()
_SELECTED: dict = {}   # exercise key -> the cases this pytest run selected (-k, node ids)


def pytest_collection_finish(session):
    """Note the cases each exercise's selected tests ask for: its one child runs those (of the ones this
    machine runs), so a hang is reported against a case the student chose."""
    for item in session.items:
        case = getattr(item, "callspec", None) and item.callspec.params.get("case")
        key = dict(item.user_properties).get("exercise")
        if isinstance(case, dict) and key:
            _SELECTED.setdefault(key, []).append(case)


def _isolated_case(ex: Exercise, case: dict):
    """(this case's isolation.CaseResult, whether it is the exercise's first failure shown)."""
    from grader import isolation
    from grader.exercises import case_id

    if ex.key not in _OUTCOMES:
        cases = isolation.runnable_cases(ex)
        chosen = {case_id(c) for c in _SELECTED.get(ex.key, ())}
        cases = [c for c in cases if case_id(c) in chosen] if chosen else cases
        if case_id(case) not in {case_id(c) for c in cases}:
            cases.append(case)
        _OUTCOMES[ex.key] = isolation.run_exercise(ex.day, ex.name, cases, solutions=paths.use_solutions())
    outcome = _OUTCOMES[ex.key]
    found = next((r for r in outcome.cases if case_id(r.case) == case_id(case)), None)
    if found is None:  # a case the first run did not hold
        found = isolation.run_exercise(ex.day, ex.name, [case], solutions=paths.use_solutions()).cases[0]
    first = found.status != "passed" and ex.key not in _SHOWN
    if found.status != "passed":
        _SHOWN.add(ex.key)
    return found, first


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
    """Checks run in children with their own time budgets; this is the last resort for a benchmark
    that never finishes: after $COURSE_TEST_TIMEOUT seconds (default 900) say which test hung, on the
    terminal pytest's capture does not hold, and end the process."""
    limit = float(os.environ.get(TIMEOUT_ENV, "900"))

    def expire():
        os.write(_TERMINAL, f"\n\nTIMED OUT: {item.nodeid} still running after {limit:.0f} s "
                            f"(a kernel that never finishes?). Stopping.\n".encode())
        os._exit(3)

    timer = threading.Timer(limit, expire)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()


def pytest_collection_modifyitems(items):
    """Tag each case of an exercise with the exercise, so that a case skipped before it runs (too large
    for the emulator) still counts in the exercise's row of the summary."""
    for item in items:
        case = getattr(item, "callspec", None) and item.callspec.params.get("case")
        if not isinstance(case, dict):
            continue
        ex = next((v for v in vars(item.module).values()
                   if isinstance(v, Exercise) and any(c is case for c in v.cases)), None)
        if ex is not None:
            item.user_properties.append(("exercise", ex.key))


def pytest_runtest_logreport(report):
    if report.when != "call" and not (report.when == "setup" and report.outcome != "passed"):
        return
    props = dict(report.user_properties)
    if "exercise" not in props:
        return
    message = ""
    if report.failed:
        message = str(report.longrepr.reprcrash.message if hasattr(report.longrepr, "reprcrash")
                      else report.longrepr).removeprefix("Failed: ")
    elif report.skipped:
        message = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
    _RESULTS.append({"nodeid": report.nodeid, "exercise": props["exercise"], "outcome": report.outcome,
                       "message": message, "ratio": props.get("ratio"), "ceiling": props.get("ceiling"),
                       "source": props.get("source")})


def summarize(results: list[dict]) -> list[dict]:
    """One row per exercise: cases passed / failed / skipped, outcome, % of ceiling, first failure,
    first reason for a skip."""
    rows: dict[str, dict] = defaultdict(lambda: {"passed": 0, "failed": 0, "skipped": 0, "ratio": None,
                                                 "ceiling": None, "first_failure": "", "first_skip": ""})
    for r in results:
        row = rows[r["exercise"]]
        row[r["outcome"]] += 1
        if r["ratio"] is not None:
            row["ratio"], row["ceiling"] = r["ratio"], r["ceiling"]
        if r["outcome"] == "failed" and not row["first_failure"]:
            row["first_failure"] = say("summary.case", case=r["nodeid"].split("::")[-1], message=r["message"])
        if r["outcome"] == "skipped" and not row["first_skip"]:
            row["first_skip"] = r["message"].removeprefix("Skipped: ")
    out = []
    for ex, row in rows.items():
        status = "FAILED" if row["failed"] else ("skipped" if not row["passed"] else "passed")
        out.append({"exercise": ex, "status": status, **row})
    return out


def format_table(rows: list[dict]) -> str:
    counts = [status_word("passed"), status_word("failed"), say("table.skipped")]  # the outcomes' own words
    return tables.render(
        [say("table.exercise"), *counts, say("table.result"), say("table.of_ceiling")],
        [[r["exercise"], r["passed"], r["failed"], r["skipped"], status_word(r["status"]),
          say("table.ratio", ratio=f"{r['ratio']:.0%}", ceiling=ceiling_word(r["ceiling"])) if r["ratio"] is not None else "-"]
         for r in rows],
        right=tuple(counts))


def _cases(n: int) -> str:
    return say("summary.one_case") if n == 1 else say("summary.cases", n=n)


def pytest_terminal_summary(terminalreporter, config):
    results = _RESULTS
    path = config.getoption("course_report")
    if path:
        Path(path).write_text(json.dumps(results, indent=1))
    if not results:
        return
    rows = summarize(results)
    which = say("summary.solutions") if paths.use_solutions() else say("summary.yours")
    tr = terminalreporter
    tr.section(say("summary.title", which=which))
    tr.write_line(format_table(rows))
    for r in rows:
        if r["first_failure"]:
            first = r["first_failure"].splitlines()[0]
            tr.write_line("\n" + say("summary.first_failure", exercise=r["exercise"], cases=_cases(r["failed"]),
                                      first=first))
    skipped = [r for r in rows if r["skipped"]]
    if skipped:
        tr.write_line("\n" + say("summary.skipped", cases=_cases(sum(r["skipped"] for r in skipped)),
                                  first=skipped[0]["first_skip"]))
    if not device.current().full_sizes and skipped:
        tr.write_line(say("summary.notebook_sizes"))
    progress.record(rows, "pytest")
    if any(r["status"] == "skipped" for r in rows) and device.current().full_sizes:
        tr.write_line("\n" + say("summary.needs_gpu"))
