"""The feedback run of autograde (RunNotebook) after a kernel that never finishes: a cell past its time
ends the run, with a note in the lesson's language, instead of every later cell waiting its full time
behind a GPU that still spins (a hung kernel ignores the interrupt); where grading found such a kernel,
a cell gets only `hung_cell_timeout` seconds; on a GPU, where a lesson's demo takes seconds, a cell gets
`gpu_cell_timeout` (a kernel that fails its technique check is never launched by grading, so no hang is
found there, but the lesson's demo launches it)."""
import time

import nbformat
import pytest

from grader import autograde, device, sandbox

CELLS = ("print('before')", "import time\ntime.sleep(60)", "print('after')")


def _run(monkeypatch, hung: bool, assignment: str = "day01", gpu: bool = False, **limits):
    # A plain kernel: this test is about time, not isolation (unavailable() is cached: a test before may have asked).
    monkeypatch.setattr(sandbox, "unavailable", lambda: f"turned off ({sandbox.SANDBOX_ENV}=off)")
    monkeypatch.setattr(device, "emulated", lambda: not gpu)
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in CELLS])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    resources = {"nbgrader": {"assignment": assignment, "student": "s"},
                 autograde.RESOURCES_KEY: {"kernel_grades": {"hung": hung}}}
    start = time.monotonic()
    nb, resources = autograde.RunNotebook(**limits).preprocess(nb, resources)
    return nb, resources[autograde.RESOURCES_KEY], time.monotonic() - start


@pytest.mark.parametrize("hung,gpu,limits,seconds", [
    (True, False, {"hung_cell_timeout": 2}, 2), (False, False, {"cell_timeout": 3}, 3),
    (False, True, {"gpu_cell_timeout": 2}, 2), (True, True, {"gpu_cell_timeout": 3, "hung_cell_timeout": 2}, 2)],
    ids=["grading-found-a-hang", "a-cell-past-its-time", "a-cell-on-a-gpu", "a-hang-on-a-gpu"])
def test_a_cell_past_its_time_ends_the_feedback_run(monkeypatch, hung, gpu, limits, seconds):
    nb, state, took = _run(monkeypatch, hung, gpu=gpu, **limits)
    assert [o["text"] for o in nb.cells[0].outputs] == ["before\n"]
    assert nb.cells[2].outputs == [], "a cell after the one that timed out ran"
    assert state["notebook_error"].startswith(f"cell 2 ran past its {seconds} s"), state
    assert took < 30, f"the run waited {took:.0f} s"


def test_the_note_is_in_the_lessons_language(monkeypatch):
    _, state, _ = _run(monkeypatch, True, "day01-zh", hung_cell_timeout=2)
    assert state["notebook_error"].startswith("第 2 个单元格超过了 2 秒"), state
