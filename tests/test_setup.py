"""The set-up is one thing, described several ways: pyproject.toml, environment.yml, constraints.txt,
course.sh, the READMEs and .ci/run; they must agree on names, versions and the Python they need."""
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet

import pytest

from grader import paths

# pip name -> conda-forge name
CONDA_NAME = {"ml-dtypes": "ml_dtypes", "cupy-cuda13x": "cupy", "nvidia-cuda-nvrtc": "cuda-nvrtc",
              "nvidia-cuda-runtime": "cuda-cudart-dev", "cuda-bindings": "cuda-bindings"}
# conda-forge packages whose version is the one `cuda-version` pins
CUDA_VERSIONED = {"cuda-nvrtc", "cuda-cudart-dev"}
CONDA_ONLY = {"python", "pip", "cuda-version"}


def _split(req: str) -> tuple[str, str]:
    name, spec = re.match(r"([A-Za-z0-9_.-]+)\s*(.*)", req).groups()
    return name.lower(), spec.strip()


def _project() -> dict:
    return tomllib.loads((paths.ROOT / "pyproject.toml").read_text())["project"]


def _pyproject():
    data = _project()
    return dict(map(_split, data["dependencies"])), dict(map(_split, data["optional-dependencies"]["cuda13"]))


def _environment() -> tuple[dict[str, str], dict[str, str]]:
    """(conda packages, pip packages) of environment.yml, name -> version spec."""
    conda, pip = {}, {}
    text = (paths.ROOT / "environment.yml").read_text()
    for line in text[text.index("dependencies:"):].splitlines():
        if m := re.match(r"^  - ([A-Za-z0-9_.-]+)(.*)$", line):
            conda[m.group(1).lower()] = m.group(2).strip()
        elif m := re.match(r"^      - ([A-Za-z][A-Za-z0-9_.-]*)(.*)$", line):
            pip[m.group(1).lower()] = m.group(2).strip()
    return conda, pip


def _as_conda(spec: str) -> str:
    """pip's '==13.0.*' is conda's '=13.0'; '>=1.26' is the same in both."""
    return re.sub(r"^==(.*)\.\*$", r"=\1", spec)


def test_environment_matches_pyproject_in_names_and_versions():
    base, cuda = _pyproject()
    conda, pip = _environment()
    for name, spec in {**base, **cuda}.items():
        if name in pip:
            assert pip[name] == spec, f"{name}: pyproject says {spec!r}, environment.yml's pip part {pip[name]!r}"
            continue
        assert CONDA_NAME.get(name, name) in conda, f"{name} is in pyproject.toml but not in environment.yml"
        got = conda[CONDA_NAME.get(name, name)]
        if CONDA_NAME.get(name) in CUDA_VERSIONED:
            assert not got, f"{name}: its version comes from cuda-version in environment.yml, not {got!r}"
            got = "=" + conda["cuda-version"].lstrip("=")
        want = spec if name not in cuda or name.startswith("cupy") else _as_conda(spec)
        assert got == want, f"{name}: pyproject says {spec!r}, environment.yml {got!r}"
    known = {CONDA_NAME.get(n, n) for n in [*base, *cuda]} | CONDA_ONLY
    assert not set(conda) - known, f"environment.yml has packages pyproject.toml lacks: {set(conda) - known}"
    assert not set(pip) - set(cuda), "environment.yml's pip part has packages pyproject.toml lacks"


def test_cuda12_extra_mirrors_cuda13():
    data = _project()["optional-dependencies"]
    assert len(data["cuda12"]) == len(data["cuda13"])


def _constraints() -> dict[str, str]:
    pins = {}
    for line in (paths.ROOT / "constraints.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, version = line.split("==")
            pins[name.lower().replace("_", "-")] = version
    return pins


def test_constraints_pin_every_requirement_within_pyproject():
    """constraints.txt holds a version of every package pyproject.toml asks for (but cuda-bindings,
    pinned per CUDA version by the extras), each inside pyproject's range; never the course itself."""
    data = _project()
    pins = _constraints()
    assert "cuda-course" not in pins and "cuda-bindings" not in pins
    wanted = data["dependencies"] + [r for extra in ("cuda13", "class", "zh")
                                     for r in data["optional-dependencies"][extra]]
    for req in map(Requirement, wanted):
        name = req.name.lower().replace("_", "-")
        if name == "cuda-bindings":
            continue
        assert name in pins, f"constraints.txt has no version of {name}: regenerate it (its header says how)"
        assert req.specifier.contains(pins[name], prereleases=True), \
            f"constraints.txt pins {name}=={pins[name]}, outside pyproject's {req.specifier}"


def test_installed_versions_are_the_constrained_ones():
    """What this environment runs is what constraints.txt says CI tested (a stale file fails here)."""
    stale = []
    for name, version in _constraints().items():
        try:
            installed = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
        if installed != version:
            stale.append(f"{name} {installed} (constraints.txt: {version})")
    assert not stale, "regenerate constraints.txt (its header says how): " + "; ".join(stale)


def test_one_python_promise():
    """requires-python, course.sh's check, the READMEs and environment.yml's python agree."""
    minimum = re.fullmatch(r">=(\d+)\.(\d+)", _project()["requires-python"]).groups()
    text = ".".join(minimum)
    assert f"sys.version_info < ({minimum[0]}, {minimum[1]})" in (paths.ROOT / "course.sh").read_text()
    assert f"Python {text} or newer" in (paths.ROOT / "course.sh").read_text()
    for readme in ("README.md", "README.zh.md"):
        found = set(re.findall(r"Python (\d+\.\d+)\+", (paths.ROOT / readme).read_text()))
        assert found == {text}, f"{readme} promises Python {found}, pyproject.toml {text}+"
    conda_python = _environment()[0]["python"].lstrip("=")
    assert conda_python in SpecifierSet(_project()["requires-python"])


def test_course_sh_installs_what_it_runs_with_the_constraints():
    script = (paths.ROOT / "course.sh").read_text()
    assert "-c constraints.txt" in script
    assert re.search(r"^\s+setup class zh ffi\b", script, re.M), \
        "./course.sh test must install the class extra (Ray), the zh extra (the CJK font the plot test needs) and ffi"
    assert re.search(r"zh\) extras=\(zh ffi\)", script), "./course.sh lab --lang zh must install the zh and ffi extras"
    assert re.search(r"en\) extras=\(ffi\)", script), "./course.sh lab must install the ffi extra (day 14's TVM-FFI)"


def test_readme_gives_the_two_commands_and_ci_runs_the_test_one():
    readme = (paths.ROOT / "README.md").read_text()
    assert "./course.sh lab" in readme and "./course.sh test" in readme
    assert "./course.sh test" in (paths.ROOT / ".ci/run").read_text()
    # the second command a student reads is the day's check; the full test says what it is and costs
    zh = (paths.ROOT / "README.zh.md").read_text()
    assert "./course.sh check day01" in readme and "./course.sh check day01" in zh
    assert "maintainers' check" in readme and "30 minutes" in readme and "维护者" in zh


def _set_up_course(folder: Path, extras: tuple[str, ...], python: str) -> Path:
    """course.sh and what it reads in `folder`, with a .venv it takes as set up for `extras` (nothing to
    install) whose bin/python is the script `python`; returns the .venv."""
    for name in ("course.sh", "pyproject.toml", "constraints.txt"):
        shutil.copy(paths.ROOT / name, folder / name)
    venv = folder / ".venv"
    (venv / "bin").mkdir(parents=True)
    digest = hashlib.sha256((paths.ROOT / "pyproject.toml").read_bytes() + (paths.ROOT / "constraints.txt").read_bytes())
    for extra in extras:
        (venv / f".installed-{digest.hexdigest()[:12]}-{extra}").touch()
    (venv / "bin" / "python").write_text(python)
    (venv / "bin" / "python").chmod(0o755)
    return venv


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_each_language_has_its_own_lab_workspace(tmp_path, lang):
    """./course.sh lab --lang zh must not reopen the English session's tabs (one workspace each)."""
    venv = _set_up_course(tmp_path, ("cuda13", "zh", "ffi"), "#!/bin/sh\nexit 0\n")
    (venv / "bin" / "jupyter").write_text('#!/bin/sh\nprintf "%s\\n" "$@" "config=$JUPYTER_CONFIG_PATH"\n')
    (venv / "bin" / "jupyter").chmod(0o755)
    done = subprocess.run(["bash", "course.sh", "lab", "--lang", lang], cwd=tmp_path, capture_output=True,
                          text=True, env={**os.environ, "COURSE_CUDA": "13"}, timeout=60)
    assert done.returncode == 0, done.stderr
    args = done.stdout.splitlines()
    assert f"--LabApp.workspaces_dir={tmp_path}/.course/lab/workspaces-{lang}" in args, args
    assert f"--FileContentsManager.preferred_dir={'notebooks/zh' if lang == 'zh' else 'notebooks'}" in args
    assert f"config={tmp_path}/lab/student" in args  # nbgrader's instructor menus off for students
    settings = json.loads((venv / "share/jupyter/lab/settings/overrides.d/cuda-course.json").read_text())
    assert settings["@jupyterlab/translation-extension:plugin"]["locale"] == {"en": "en", "zh": "zh_CN"}[lang]
    assert settings["@jupyterlab/apputils-extension:notification"]["fetchNews"] == "false"  # no news prompt


def test_the_student_lab_turns_nbgrader_off():
    """lab/student/ (JUPYTER_CONFIG_PATH of ./course.sh lab) disables every nbgrader extension installed."""
    import json

    config = paths.ROOT / "lab" / "student"
    off = json.loads((config / "jupyter_server_config.json").read_text())["ServerApp"]["jpserver_extensions"]
    assert off and not any(off.values())
    installed = [p for p in (Path(sys.prefix) / "etc/jupyter/jupyter_server_config.d").glob("nbgrader*.json")]
    for p in installed:
        assert set(json.loads(p.read_text())["ServerApp"]["jpserver_extensions"]) <= set(off), p
    page = json.loads((config / "labconfig" / "page_config.json").read_text())
    assert page["disabledExtensions"] == {"@jupyter/nbgrader": True}


def test_the_chinese_readme_links_the_chinese_pages():
    """A link of README.zh.md to a page that has a Chinese version (x.zh.md) goes to that version (the
    first line is the switch to the English README)."""
    text = (paths.ROOT / "README.zh.md").read_text().split("\n", 1)[1]
    english = [t for t in re.findall(r"\]\(([^)#]+\.md)\)", text)
               if not t.endswith(".zh.md") and (paths.ROOT / t.replace(".md", ".zh.md")).is_file()]
    assert not english, f"README.zh.md links the English page(s) {english}"


def test_the_chinese_readme_s_commands_are_explained_in_chinese():
    """A comment in README.zh.md's command blocks is Chinese (the first screen's `./course.sh lab` one was
    English)."""
    text = (paths.ROOT / "README.zh.md").read_text()
    comments = [m.group(1) for block in re.findall(r"```[a-z]*\n(.*?)```", text, re.S)
                for m in re.finditer(r"\s#\s+(.*)$", block, re.M)]
    assert comments and not [c for c in comments if not re.search(r"[\u4e00-\u9fff]", c)], comments


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_course_sh_check_names_an_unknown_day_in_the_lessons_language(tmp_path, lang):
    """`./course.sh check day99` says it in one line, in Chinese under COURSE_LANG=zh (it was English)."""
    _set_up_course(tmp_path, ("cuda13",), f'#!/bin/sh\nexec {sys.executable} "$@"\n')
    done = subprocess.run(["bash", "course.sh", "check", "day99"], cwd=tmp_path, capture_output=True, text=True,
                          env={**os.environ, "COURSE_CUDA": "13", "COURSE_LANG": lang, "PYTHONPATH": str(paths.ROOT)},
                          timeout=60)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1 and "day99" in lines[0], done.stderr
    assert lines[0].startswith({"en": "error: unknown day", "zh": "错误：没有这一天"}[lang]), lines


@pytest.mark.parametrize("args, en, zh", [
    ([], "usage: ./course.sh lab", "用法：./course.sh lab"),
    (["check"], "usage: ./course.sh check dayNN", "用法：./course.sh check dayNN"),
    (["lab", "--lang", "xx"], "--lang xx: expected en or zh", "--lang xx：应为 en 或 zh"),
    (["check", "day02", "--lang", "xx"], "--lang xx: expected en or zh", "--lang xx：应为 en 或 zh"),
])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_course_sh_says_what_is_wrong_in_the_lessons_language(lang, args, en, zh):
    """course.sh's own lines (usage, a bad --lang) follow COURSE_LANG like the course's Python (they were
    English under zh); nothing is set up before they are said."""
    done = subprocess.run(["bash", str(paths.ROOT / "course.sh"), *args], capture_output=True, text=True, timeout=30,
                          env={**os.environ, "COURSE_LANG": lang})
    assert done.returncode == 2 and done.stderr.startswith({"en": en, "zh": zh}[lang]), done.stderr


@pytest.mark.parametrize("where", ["after", "before"])
def test_course_sh_check_takes_the_lessons_language(tmp_path, where):
    """`./course.sh check day02 --lang zh` (as `lab --lang zh`): pytest runs under COURSE_LANG=zh and never
    sees --lang (it stopped at 'unrecognized arguments: --lang zh'); other arguments still reach it."""
    _set_up_course(tmp_path, ("cuda13",), f'#!/bin/sh\nexec {sys.executable} "$@"\n')
    args = ["day02", "--lang", "zh", "-k", "silu"] if where == "after" else ["--lang", "zh", "day02", "-k", "silu"]
    (tmp_path / "pytest.py").write_text("import os, sys\nprint(os.environ.get('COURSE_LANG'), sys.argv[1:])\n")
    done = subprocess.run(["bash", "course.sh", "check", *args], cwd=tmp_path, capture_output=True, text=True,
                          env={**os.environ, "COURSE_CUDA": "13", "COURSE_LANG": "en",
                               "PYTHONPATH": f"{tmp_path}:{paths.ROOT}"}, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "zh ['days/day02', '-k', 'silu']", done.stdout
