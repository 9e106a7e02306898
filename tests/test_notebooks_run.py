"""Every lesson notebook, English and Chinese, executes top to bottom with the course's solutions: on a
GPU machine all of them; without a GPU, the days whose notebooks run on the PTX emulator
(COURSE_BACKEND=emulator)."""
import os

import pytest

from grader import device, paths

NOTEBOOKS = sorted(paths.NOTEBOOKS.glob("day[0-9][0-9].ipynb")) + sorted((paths.NOTEBOOKS / "zh").glob("day[0-9][0-9].ipynb"))


def _label(path) -> str:
    return f"zh-{path.stem}" if path.parent.name == "zh" else path.stem
ON_EMULATOR = ("day01", "day02", "day06")  # small sizes on the emulator (nb.size), nothing timed


@pytest.mark.gpu
@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=_label)
def test_notebook_runs_with_solutions(notebook, monkeypatch, tmp_path):
    if device.why_not_hardware():
        if notebook.stem not in ON_EMULATOR:
            pytest.skip(f"executing this notebook needs a CUDA GPU ({device.why_not_hardware()}); "
                        f"without one, {', '.join(ON_EMULATOR)} run on the emulator")
        monkeypatch.setenv(device.BACKEND_ENV, "emulator")
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    monkeypatch.setenv(paths.KERNELS_ENV, "solutions")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    nb = nbformat.read(notebook, as_version=4)
    client = nbclient.NotebookClient(nb, timeout=900, kernel_name="python3",
                                     resources={"metadata": {"path": str(notebook.parent)}})  # as JupyterLab
    client.execute()
    out = os.environ.get("OUT")
    if out:  # keep the executed notebook (plots included) for a look
        nbformat.write(nb, os.path.join(out, f"{_label(notebook)}.executed.ipynb"))
