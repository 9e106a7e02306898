"""nbgrader end to end on the Chinese lessons (dayNN-zh assignments): the check of test_nbgrader_e2e.py,
in a file of its own so that CI's two workers (one file each) grade the languages side by side."""
import pytest

from test_nbgrader_e2e import DAYS, check_day

pytestmark = [pytest.mark.gpu, pytest.mark.nbgrader]


@pytest.mark.parametrize("day", DAYS)
def test_solution_gets_full_marks_and_stub_zero_in_chinese(tmp_path, day, monkeypatch):
    check_day(tmp_path, day, "zh", monkeypatch)
