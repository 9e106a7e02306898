"""Commands a student runs (`python -m grader unlock`) answer in the lessons' language: under
COURSE_LANG=zh every line and refusal is Chinese (names, paths and commands as they are)."""
import pytest

from grader import paths, unlock
from test_module_texts_zh import chinese


def test_unlock_in_chinese(tmp_path, monkeypatch):
    monkeypatch.setenv("COURSE_LANG", "zh")
    monkeypatch.setattr(paths, "STATE", tmp_path / "state")
    assert chinese(unlock.unlock("day03"))  # the full course: recorded
    with pytest.raises(ValueError) as e:
        unlock.unlock("day01")
    assert chinese(str(e.value)), e.value
    monkeypatch.setattr(paths, "SOLUTION_INCLUDE", tmp_path / "none")
    monkeypatch.setattr(paths, "UNLOCKED", tmp_path / "unlocked")
    monkeypatch.setattr(paths, "ROOT", tmp_path)
    handed = tmp_path / "handed"
    (handed / "day03").mkdir(parents=True)
    (handed / "day03" / "ptx_math.cuh").write_text("// the course's\n")
    for refused in (lambda: unlock.unlock("day03"), lambda: unlock.unlock("day08", handed)):
        with pytest.raises(ValueError) as e:
            refused()
        assert chinese(str(e.value)), e.value
    assert chinese(unlock.unlock("day03", handed))
    (tmp_path / "unlocked" / "day03" / "ptx_math.cuh").write_text("// changed\n")
    asked = []
    kept = unlock.unlock("day03", handed, ask=lambda q: asked.append(q) or "n")
    assert chinese(kept) and chinese(asked[0]), (kept, asked)
