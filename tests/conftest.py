"""Fixtures of the course's own tests."""
from __future__ import annotations

import itertools

import pytest

from grader import compiler, device, exercises, paths, runner

_count = itertools.count()


@pytest.fixture
def planted(monkeypatch, tmp_path):
    """grade(day, name, text, cases=None, seed=1234, files=None) grades a planted kernel (the text of a
    .cu file; `files`: {name: text} of headers beside it) as the exercise's file, the way pytest and `grader check` do (technique check included), on the
    exercise's cases that this machine runs (the emulator's without a GPU). Returns the failure
    message, or None when every case passed: a planted wrong kernel must give a message."""
    from grader.emulator.scaling import runs_on_emulator

    def grade(day, name, text, cases=None, seed=1234, files=None):
        ex = exercises.get(day, name)
        folder = tmp_path / f"planted{next(_count)}"
        folder.mkdir()
        (folder / ex.source).write_text(text)
        for other, other_text in (files or {}).items():  # headers of the student's own beside it
            (folder / other).write_text(other_text)
        monkeypatch.setenv(paths.SOURCE_DIR_ENV, str(folder))
        if cases is None:
            cases = [c for c in ex.cases if not device.emulated() or runs_on_emulator(ex, c)[0]]
        try:
            module = runner.load(ex)
            for case in cases:
                runner.check(ex, case, module, seed=seed)
        except (AssertionError, device.KernelFault, compiler.CompileError) as e:
            return str(e)
        return None

    return grade
