"""The GPU-vs-emulator comparison tool: a recording reads back and agrees with itself; a changed array
is reported (runs day 1's smallest cases on whichever backend is here)."""
import numpy as np

from grader.emutools import compare


def test_record_then_diff(tmp_path, capsys):
    out = tmp_path / "a.npz"
    assert compare.record(str(out), ["day01"], 1, ("solutions",)) == 0
    assert compare.diff(str(out), str(out)) == 0
    assert "0 differ" in capsys.readouterr().out
    arrays = dict(np.load(out))
    key = next(k for k in arrays if k != "__status__" and arrays[k].size)
    arrays[key] = arrays[key] + 1
    np.savez_compressed(tmp_path / "b.npz", **arrays)
    assert compare.diff(str(out), str(tmp_path / "b.npz")) == 1
    assert key in capsys.readouterr().out
