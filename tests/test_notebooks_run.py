"""Every lesson notebook executes top to bottom with the course's solutions (GPU machines only)."""
import os

import pytest

from grader import device, paths

NOTEBOOKS = sorted(paths.NOTEBOOKS.glob("day[0-9][0-9].ipynb"))


@pytest.mark.gpu
@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs_with_solutions(notebook, monkeypatch, tmp_path):
    if not device.gpu_available():
        pytest.skip(f"executing notebooks needs a CUDA GPU: {device.why_no_gpu()}")
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    monkeypatch.setenv(paths.KERNELS_ENV, "solutions")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    nb = nbformat.read(notebook, as_version=4)
    client = nbclient.NotebookClient(nb, timeout=900, kernel_name="python3",
                                     resources={"metadata": {"path": str(paths.NOTEBOOKS)}})
    client.execute()
    out = os.environ.get("OUT")
    if out:  # keep the executed notebook (plots included) for a look
        nbformat.write(nb, os.path.join(out, f"{notebook.stem}.executed.ipynb"))
