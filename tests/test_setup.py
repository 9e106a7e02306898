"""The set-up is one thing, described three ways: pyproject.toml, environment.yml, README/.ci/run."""
import re
import tomllib

from grader import paths

# pip name -> conda-forge name
CONDA_NAME = {"ml-dtypes": "ml_dtypes", "cupy-cuda13x": "cupy", "nvidia-cuda-nvrtc": "cuda-nvrtc",
              "nvidia-cuda-runtime": "cuda-cudart-dev", "cuda-bindings": "cuda-bindings",
              "nvidia-cuda-nvdisasm": "cuda-nvdisasm", "nvidia-cuda-cuobjdump": "cuda-cuobjdump"}
CONDA_ONLY = {"python", "pip", "cuda-version"}


def _split(req: str) -> tuple[str, str]:
    name, spec = re.match(r"([A-Za-z0-9_.-]+)\s*(.*)", req).groups()
    return name.lower(), spec.strip()


def _pyproject():
    data = tomllib.loads((paths.ROOT / "pyproject.toml").read_text())["project"]
    return dict(map(_split, data["dependencies"])), dict(map(_split, data["optional-dependencies"]["cuda13"]))


def _environment() -> dict[str, str]:
    deps = {}
    text = (paths.ROOT / "environment.yml").read_text()
    for line in text[text.index("dependencies:"):].splitlines():
        m = re.match(r"^  - ([A-Za-z0-9_.-]+)(.*)$", line)
        if m:
            deps[m.group(1).lower()] = m.group(2).strip()
    return deps


def test_environment_matches_pyproject():
    base, cuda = _pyproject()
    env = _environment()
    for name, spec in base.items():
        conda = CONDA_NAME.get(name, name)
        assert conda in env, f"{name} is in pyproject.toml but not in environment.yml"
        assert env[conda] == spec, f"{name}: pyproject says {spec!r}, environment.yml {env[conda]!r}"
    for name in cuda:
        assert CONDA_NAME.get(name, name) in env, f"{name} (cuda13 extra) has no conda entry"
    known = {CONDA_NAME.get(n, n) for n in [*base, *cuda]} | CONDA_ONLY
    assert not set(env) - known, f"environment.yml has packages pyproject.toml lacks: {set(env) - known}"


def test_cuda12_extra_mirrors_cuda13():
    data = tomllib.loads((paths.ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert len(data["cuda12"]) == len(data["cuda13"])


def test_readme_gives_the_two_commands_and_ci_runs_the_test_one():
    readme = (paths.ROOT / "README.md").read_text()
    assert "./course.sh lab" in readme and "./course.sh test" in readme
    assert "./course.sh test" in (paths.ROOT / ".ci/run").read_text()
