"""`./course.sh lab` in a real browser (headless Chromium through playwright): it starts (as root too),
opens at the course's root on notebooks/, a days/dayNN/*.cu file opens in the editor highlighted as
C++, and `--lang zh` gives notebooks/zh/ and a Chinese JupyterLab. Screenshots go to
.course/screenshots/ (look at them).

Skipped, with one line, without chromium (apt-get install chromium) or playwright: playwright may live
in any other Python (`python -m venv /tmp/pw && /tmp/pw/bin/pip install playwright`, then
PLAYWRIGHT_PYTHON=/tmp/pw/bin/python); this file is also the script that Python runs."""
from __future__ import annotations

import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import re
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHOTS = ROOT / ".course" / "screenshots"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CU_FILE = "days/day02/silu_and_mul.cu"
CJK = re.compile(r"[\u4e00-\u9fff]")
NBGRADER_UI = ("Nbgrader", "Create Assignment", "Validate", "Formgrader", "Assignment List", "Course List")


# ---- the browser's part (run by a Python that has playwright) ---------------------------------

def look(base: str, token: str, lang: str, out: Path) -> dict:
    """Open the lab at `base` with its token, take the screenshots, say what was seen."""
    from playwright.sync_api import sync_playwright

    seen = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        page.goto(f"{base}/lab?token={token}", wait_until="domcontentloaded")
        page.wait_for_selector(".jp-DirListing-item", timeout=60_000)
        page.wait_for_timeout(1500)
        seen["files"] = page.locator(".jp-DirListing-itemText").all_inner_texts()
        seen["breadcrumbs"] = page.locator(".jp-BreadCrumbs").inner_text()
        seen["menus"] = page.locator(".lm-MenuBar-itemLabel").all_inner_texts()
        page.screenshot(path=str(out / f"lab-{lang}.png"))
        seen["tabs_at_start"] = _tab_paths(page)
        notebook = f"notebooks/{'zh/' if lang == 'zh' else ''}day01.ipynb"
        page.goto(f"{base}/lab/tree/{notebook}?token={token}", wait_until="domcontentloaded")
        page.wait_for_selector(".jp-Notebook .jp-CodeCell", timeout=60_000)
        page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']", timeout=120_000)
        try:
            _run_first_cell(page)
        finally:
            page.screenshot(path=str(out / f"lab-{lang}-notebook.png"))
        page.wait_for_timeout(1000)
        seen["first_output"] = page.locator(".jp-Notebook .jp-CodeCell .jp-OutputArea-output").first.inner_text()
        seen["nbgrader_ui"] = [t for t in NBGRADER_UI if page.get_by_text(t, exact=True).count()]
        seen["news_prompt"] = page.get_by_text("official Jupyter news").count()
        page.screenshot(path=str(out / f"lab-{lang}-notebook.png"))
        page.wait_for_timeout(3000)  # the workspace (open tabs) is saved
        if lang == "en":
            page.goto(f"{base}/lab/tree/{CU_FILE}?token={token}", wait_until="domcontentloaded")
            page.wait_for_selector(".jp-FileEditor .cm-content", timeout=60_000)
            page.wait_for_timeout(2500)
            editor = page.locator(".jp-FileEditor .cm-content").first
            seen["editor_text"] = editor.inner_text()[:400]
            seen["highlighted_spans"] = editor.locator("span[class]").count()
            seen["status_bar"] = page.locator(".jp-StatusBar-Widget").inner_text()
            page.screenshot(path=str(out / "lab-cu-editor.png"))
        browser.close()
    return seen


def _run_first_cell(page, tries: int = 6) -> None:
    """Run the lesson's first cell (nb.setup's banner) and wait for its output. A run asked for while the
    kernel is still connecting is dropped by the lab (the prompt stays "[ ]"): ask again. On a loaded
    machine the lab may ask something first (a kernel slow to start brings up its kernel dialog): take
    its default answer, as a student would."""
    output, prompt = ".jp-Notebook .jp-CodeCell .jp-OutputArea-output", ".jp-Notebook .jp-CodeCell .jp-InputPrompt"
    for _ in range(tries):
        if page.locator(".jp-Dialog").count():
            page.locator(".jp-Dialog .jp-mod-accept").first.click()
            page.wait_for_timeout(1000)
        page.locator(".jp-Notebook .jp-CodeCell").first.click()
        page.keyboard.press("Shift+Enter")
        try:
            page.wait_for_selector(output, state="attached", timeout=30_000)
            return
        except Exception:  # noqa: BLE001 - playwright's TimeoutError: not run yet, or still running
            if "*" in page.locator(prompt).first.inner_text():
                page.wait_for_selector(output, state="attached", timeout=240_000)
                return
    raise TimeoutError(f"the first cell never ran ({tries} tries)")


def _tab_paths(page) -> list[str]:
    """The paths of the documents open in the main area (their tabs' titles name them)."""
    titles = page.locator(".lm-DockPanel-tabBar .lm-TabBar-tab").evaluate_all("ts => ts.map(t => t.title)")
    return [ln.split(":", 1)[1].strip() for t in titles for ln in t.splitlines() if ln.startswith("Path:")]


# ---- the test's part (the course's Python) ----------------------------------------------------

def _playwright_python() -> str | None:
    for python in (os.environ.get("PLAYWRIGHT_PYTHON"), sys.executable):
        if python and subprocess.run([python, "-c", "import playwright.sync_api"],
                                     capture_output=True).returncode == 0:
            return python
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _lab(lang: str, tmp: Path):
    """Start `./course.sh lab --lang LANG` headless; (process, base URL with token)."""
    port, token = _free_port(), secrets.token_hex(16)
    log = (tmp / f"lab-{lang}.log").open("w")
    proc = subprocess.Popen(
        ["./course.sh", "lab", "--lang", lang, "--no-browser", f"--port={port}", "--ServerApp.ip=127.0.0.1",
         f"--IdentityProvider.token={token}", f"--LabApp.user_settings_dir={tmp / 'settings'}"],
        cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,  # workspaces: course.sh's, per language
        env={**{k: v for k, v in os.environ.items() if k != "COURSE_LANG"}, "COURSE_LAB_STATE": str(tmp / "lab")})
    deadline = time.monotonic() + 600  # the first run may set up .venv's extras
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/status?token={token}", timeout=2)
            return proc, f"http://127.0.0.1:{port}", token
        except OSError:
            if proc.poll() is not None:
                break
            time.sleep(1)
    os.killpg(proc.pid, signal.SIGTERM)
    raise AssertionError(f"the lab did not start: {(tmp / f'lab-{lang}.log').read_text()[-3000:]}")


def _look(python: str, lang: str, tmp: Path) -> dict:
    """What the browser saw in the lab; the lesson it ran is left as it was (autosave off, its bytes
    written back)."""
    docmanager = tmp / "settings" / "@jupyterlab" / "docmanager-extension"
    docmanager.mkdir(parents=True, exist_ok=True)
    (docmanager / "plugin.jupyterlab-settings").write_text('{"autosave": false}')
    lesson = ROOT / "notebooks" / ("zh" if lang == "zh" else "") / "day01.ipynb"
    before = lesson.read_bytes()
    proc, base, token = _lab(lang, tmp)
    try:
        SHOTS.mkdir(parents=True, exist_ok=True)
        done = subprocess.run([python, __file__, base, token, lang, str(SHOTS)], capture_output=True,
                              text=True, timeout=600)
        assert done.returncode == 0, done.stderr[-3000:]
        return {**json.loads(done.stdout.splitlines()[-1]), "log": (tmp / f"lab-{lang}.log").read_text()}
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=60)
        if lesson.read_bytes() != before:
            lesson.write_bytes(before)


try:
    import pytest
except ImportError:  # the browser's Python need not have pytest
    pytest = None

if pytest is not None:
    def test_the_built_extension_is_its_source_s():
        """lab/build.sh records what it built from; an edited source not rebuilt fails here (CI too)."""
        import hashlib

        built = ROOT / "lab/labextensions/cuda-course-lab"
        for line in (built / "source.sha256").read_text().splitlines():
            digest, name = line.split()
            source = ROOT / "lab/cuda-course-lab" / name
            assert hashlib.sha256(source.read_bytes()).hexdigest() == digest, f"{source} changed: bash lab/build.sh"
        load = json.loads((built / "package.json").read_text())["jupyterlab"]["_build"]["load"]
        assert (built / load).is_file()

    @pytest.fixture(scope="module")
    def python():
        found = _playwright_python()
        if not Path(CHROMIUM).is_file() or found is None:
            pytest.skip("needs chromium and playwright (see this file's docstring); CI has neither")
        return found

    @pytest.fixture(scope="module")
    def lab_state(tmp_path_factory):
        """One lab state folder for every run of this module: the languages' workspaces side by side."""
        return tmp_path_factory.mktemp("lab")

    def test_lab_in_english_lands_on_the_notebooks_and_opens_cu_files_as_cpp(python, lab_state):
        seen = _look(python, "en", lab_state)
        assert "notebooks" in seen["breadcrumbs"] and "day01.ipynb" in seen["files"], seen
        assert "File" in seen["menus"], seen["menus"]
        assert "day01" in seen["first_output"] and not CJK.search(seen["first_output"]), seen  # it ran
        assert "silu_and_mul" in seen["editor_text"], seen  # the .cu file, open in the editor
        assert "CUDA" in seen["status_bar"].splitlines(), seen["status_bar"]  # the editor's language
        assert seen["highlighted_spans"] > 20, seen  # tokens coloured, not plain text
        assert not seen["nbgrader_ui"], f"nbgrader's instructor UI in a student's lab: {seen['nbgrader_ui']}"
        assert "nbgrader" not in seen["log"].lower(), seen["log"]  # no 'No nbgrader_config.py' lines
        assert not seen["news_prompt"], "the lab asks whether to fetch Jupyter news"

    def test_lab_in_chinese_lands_on_the_chinese_notebooks_in_a_chinese_ui(python, lab_state):
        seen = _look(python, "zh", lab_state)
        assert "zh" in seen["breadcrumbs"] and "day01.ipynb" in seen["files"], seen
        assert "文件" in seen["menus"], seen["menus"]
        assert not any(not p.startswith("notebooks/zh/") and p.endswith(".ipynb") for p in seen["tabs_at_start"]), \
            f"the Chinese lab reopened the English tabs: {seen['tabs_at_start']}"
        assert CJK.search(seen["first_output"]), seen["first_output"]  # the lesson's first cell, in Chinese
        assert not seen["nbgrader_ui"] and "nbgrader" not in seen["log"].lower(), (seen["nbgrader_ui"], seen["log"])

    def test_each_language_reopens_its_own_tabs(python, lab_state):
        """After both ran (the tests above, same state folder): the English lab reopens its tabs."""
        if not (lab_state / "lab" / "workspaces-en").is_dir():
            pytest.skip("runs after the English and Chinese labs above")
        seen = _look(python, "en", lab_state)
        assert "notebooks/day01.ipynb" in seen["tabs_at_start"], seen["tabs_at_start"]
        assert not any(p.startswith("notebooks/zh/") for p in seen["tabs_at_start"]), seen["tabs_at_start"]


if __name__ == "__main__":  # the browser's part, in the Python that has playwright: BASE TOKEN LANG OUT
    print(json.dumps(look(sys.argv[1], sys.argv[2], sys.argv[3], Path(sys.argv[4]))))
