"""Every student notebook (notebooks/, generated from instructor/notebooks/: no hidden tests, so each
grade cell runs the exercise's own cases) executes top to bottom with the course's solutions. On a GPU
machine all of them, English and Chinese. Without one they run on the PTX emulator (COURSE_BACKEND=emulator: small
sizes from nb.size, nothing timed, memory statistics instead): every English notebook, and of the
Chinese ones, whose code cells are the English ones (tests/test_notebooks_zh.py), day01; COURSE_FULL=1
runs them all. Days 2, 7 and 10 must draw at least one plot on either. What a Chinese notebook prints
is Chinese: no English sentence in its outputs (english_lines) nor in the text its plots draw (DRAWN)."""
import os
import re

import pytest

from grader import device, paths

ENGLISH = sorted(paths.NOTEBOOKS.glob("day[0-9][0-9].ipynb"))
CHINESE = sorted((paths.NOTEBOOKS / "zh").glob("day[0-9][0-9].ipynb"))
FULL_ENV = "COURSE_FULL"
ZH_ON_EMULATOR = ("day01",)
PICTURES = ("day02", "day07", "day10")
#: Three English words in a row: a sentence left untranslated (a list of names has commas: "mma, ldmatrix").
SENTENCE = re.compile(r"\b[A-Za-z]{2,}(?: [a-z]{2,}){2,}\b")
#: What is code in a printed line (day 1's common.cuh, a source listing, a SASS map, an array): comments,
#: string literals and NaNs, in English in both languages as all of the course's code is; not checked.
CODE_TEXT = re.compile(r"//.*|\"[^\"]*\"|\bnan\b")
#: A printed line of code: a declaration, a statement, a preprocessor line.
CODE_LINE = re.compile(r"^\s*#|[{};\\]\s*$")
#: A first cell, run before a Chinese notebook's own and taken out after: every text matplotlib draws
#: (titles, labels, legends, ticks) is appended to a file, one line each.
DRAWN = """import matplotlib.text
_draw = matplotlib.text.Text.draw
def _drawn(self, renderer, *args, **kwargs):
    with open({path!r}, "a") as f:
        f.write(self.get_text().replace("\\n", " ") + "\\n")
    return _draw(self, renderer, *args, **kwargs)
matplotlib.text.Text.draw = _drawn
"""


def _label(path) -> str:
    return f"zh-{path.stem}" if path.parent.name == "zh" else path.stem


def english_lines(nb) -> list[str]:
    """Lines of an executed notebook's text outputs (printed, displayed, errors) holding an English
    sentence outside code's comments and strings (CODE_TEXT), as "cell N: line"."""
    found = []
    for i, cell in enumerate(nb.cells):
        for out in cell.get("outputs", []):
            text = out.get("text") or out.get("data", {}).get("text/plain") or out.get("evalue") or ""
            found += [f"cell {i}: {line.strip()}" for line in "".join(text).splitlines()
                      if SENTENCE.search(CODE_TEXT.sub(" ", line)) and not CODE_LINE.search(line)
                      and not line.startswith("<Figure size")]
    return found


def images(nb) -> int:
    """How many plots (image/png outputs) an executed notebook shows."""
    return sum("image/png" in out.get("data", {}) for cell in nb.cells for out in cell.get("outputs", []))


@pytest.mark.gpu
@pytest.mark.parametrize("notebook", ENGLISH + CHINESE, ids=_label)
def test_notebook_runs_with_solutions(notebook, monkeypatch, tmp_path):
    if device.why_not_hardware():
        if (notebook.parent.name == "zh" and notebook.stem not in ZH_ON_EMULATOR
                and os.environ.get(FULL_ENV) != "1"):
            pytest.skip(f"without a GPU, of the Chinese notebooks only {', '.join(ZH_ON_EMULATOR)} runs (their "
                        f"code is the English notebooks'); {FULL_ENV}=1 runs them all")
        monkeypatch.setenv(device.BACKEND_ENV, "emulator")
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    monkeypatch.setenv(paths.KERNELS_ENV, "solutions")
    monkeypatch.setenv("MPLBACKEND", "module://matplotlib_inline.backend_inline")  # plots as in JupyterLab
    nb = nbformat.read(notebook, as_version=4)
    chinese, drawn = notebook.parent.name == "zh", tmp_path / "drawn.txt"
    if chinese:
        nb.cells.insert(0, nbformat.v4.new_code_cell(DRAWN.format(path=str(drawn))))
    client = nbclient.NotebookClient(nb, timeout=900, kernel_name="python3",
                                     resources={"metadata": {"path": str(notebook.parent)}})  # as JupyterLab
    client.execute()
    if chinese:
        del nb.cells[0]
    out = os.environ.get("OUT")
    if out:  # keep the executed notebook (plots included) for a look
        nbformat.write(nb, os.path.join(out, f"{_label(notebook)}.executed.ipynb"))
    if notebook.stem in PICTURES:
        assert images(nb) >= 1, f"{_label(notebook)} drew no plot (no image/png output)"
    if chinese:
        english = english_lines(nb)
        assert not english, f"{_label(notebook)} printed English:\n" + "\n".join(english[:20])
        assert drawn.is_file() or not images(nb), "the plots' texts were not recorded (DRAWN)"
        texts = set(drawn.read_text().splitlines()) if drawn.is_file() else set()
        english = sorted(t for t in texts if SENTENCE.search(t))
        assert not english, f"{_label(notebook)} drew English:\n" + "\n".join(english[:20])


def test_images_counts_plots_only():
    nbformat = pytest.importorskip("nbformat")
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(), nbformat.v4.new_code_cell()])
    nb.cells[0].outputs = [nbformat.v4.new_output("display_data", {"text/plain": "<Figure>"}),
                           nbformat.v4.new_output("stream", text="a table")]
    assert images(nb) == 0
    nb.cells[1].outputs = [nbformat.v4.new_output("display_data", {"image/png": "iVBORw0KGgo=",
                                                                   "text/plain": "<Figure>"})]
    assert images(nb) == 1


def test_english_lines_finds_a_sentence_and_passes_code_and_names():
    nbformat = pytest.importorskip("nbformat")
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print(1)"),
                                         nbformat.v4.new_code_cell("print(source)")])
    nb.cells[0].outputs = [nbformat.v4.new_output("stream", text="day02/silu_and_mul：通过（3/3 个用例）\n"
                                                                 "<Figure size 700x300 with 1 Axes>\n"),
                           nbformat.v4.new_output("error", ename="ValueError", evalue="模板 scale.cu.jinja：缺少 scale",
                                                  traceback=[])]
    nb.cells[1].outputs = [nbformat.v4.new_output("stream", text="// the macros every course kernel uses\n"
                                                                 'static_assert(N > 0, "this file needs sm_90");\n'
                                                                 "#define LOCKED(T, what, day, exercise) \\\n"
                                                                 "  __device__ static constexpr bool ACTIVE = true;\n"
                                                                 "[nan nan nan nan]\n")]
    assert english_lines(nb) == []
    nb.cells[0].outputs.append(nbformat.v4.new_output("stream", text="通过；not graded without a GPU\n"))
    assert english_lines(nb) == ["cell 0: 通过；not graded without a GPU"]


@pytest.mark.parametrize("stride", [1, 2, 32])
def test_memory_summary_weighs_each_instruction_by_its_requests(stride, monkeypatch):
    """The one line the notebooks print on the emulator where a GPU times: smem_stride.cu with one
    warp fills its buffer (33 conflict-free stores), reads twice at `stride` (gcd(stride, 32) passes
    each) and stores one float per lane (4 sectors)."""
    import numpy as np

    from grader import notebook
    from grader.exercises import day04

    monkeypatch.setenv(device.BACKEND_ENV, "emulator")
    probe = device.load(day04.DEMO_DIR / "smem_stride.cu").get_function("smem_stride")
    device.launch(probe, (1,), (32,), (device.empty(32), np.int32(stride), np.int32(2)))
    shared = (33 + 2 * day04.conflict_ways(stride)) / 35
    assert notebook.memory_summary() == (f"global 1 requests, 4.00 sectors each (ideal 4.00); "
                                         f"shared 35 requests, {shared:.2f} wavefronts each (ideal 1.00)")
