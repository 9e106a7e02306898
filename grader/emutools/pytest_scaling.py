"""A pytest plugin for exercise tests on the emulator (`-p grader.emutools.pytest_scaling`): skips,
with the reason, the cases too large for a CPU (grader/emulator/scaling.py) and the timed tests
(timings are not emulated). Does nothing on a GPU backend.
"""
from __future__ import annotations

import pytest

from grader import device
from grader.emulator.scaling import runs_on_emulator
from grader.messages import say



def _exercise_of(item, case):
    for value in vars(item.module).values():
        cases = getattr(value, "cases", None)
        if isinstance(cases, tuple) and any(c is case for c in cases):
            return value
    return None


def pytest_collection_modifyitems(config, items):
    if device.backend() != "emulator":
        return
    for item in items:
        if item.get_closest_marker("perf"):
            item.add_marker(pytest.mark.skip(reason=say("emulator.no_timing")))
            continue
        case = getattr(item, "callspec", None) and item.callspec.params.get("case")
        if not isinstance(case, dict):
            continue
        ex = _exercise_of(item, case)
        if ex is not None:
            ok, why = runs_on_emulator(ex, case)
            if not ok:
                item.add_marker(pytest.mark.skip(reason=why))
