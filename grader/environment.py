"""One line for a student who runs the course outside its Python environment (a plain `pytest` or
`python3 -m grader` where .venv is not active), instead of an import traceback, in the lessons'
language. Imports only the message catalogue (the standard library's)."""
from __future__ import annotations

from pathlib import Path

from grader.language import language
from grader.messages import say

ROOT = Path(__file__).resolve().parent.parent


def missing_module(name: str, error: bool = False) -> str:
    """What to do when `name`, one of the course's dependencies, does not import here (`error`: as the
    command line's 'error: ...' line)."""
    try:
        lang = language()
    except ValueError:  # a mistyped COURSE_LANG: the line still comes, in English
        lang = "en"
    how = say("env.activate" if (ROOT / ".venv" / "bin" / "python").exists() else "env.set_up", lang)
    line = say("env.missing", lang, name=repr(name), how=how)
    return say("cli.error", lang, message=line) if error else line


def is_dependency(error: ModuleNotFoundError) -> bool:
    """A missing third-party module, not a missing piece of the course itself."""
    return bool(error.name) and error.name.split(".")[0] != "grader"
