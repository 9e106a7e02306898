"""One line for a student who runs the course outside its Python environment (a plain `pytest` or
`python3 -m grader` where .venv is not active), instead of an import traceback. Imports nothing."""
from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def missing_module(name: str) -> str:
    """What to do when `name`, one of the course's dependencies, does not import here."""
    if (ROOT / ".venv" / "bin" / "python").exists():
        how = "run `source .venv/bin/activate` first (the lab's terminal has it), or use `./course.sh check dayNN`"
    else:
        how = "set it up and check with `./course.sh check dayNN` (it makes .venv the first time)"
    return f"the course's Python environment is not active here (no module named {name!r}): {how}"


def is_dependency(error: ModuleNotFoundError) -> bool:
    """A missing third-party module, not a missing piece of the course itself."""
    return bool(error.name) and error.name.split(".")[0] != "grader"
