"""The lessons' language: one place decides it, for the notebooks, the plots and the hints."""
from __future__ import annotations

import os
import re
from pathlib import Path

from grader import paths

LANG_ENV = "COURSE_LANG"
_ZH_ASSIGNMENT = re.compile(r"day\d\d-zh")  # a released Chinese assignment (nbgrader_course.assignment_name)


def language() -> str:
    """The lessons' language, 'en' or 'zh'. A lesson's folder decides for the kernel that runs it (its
    working directory in JupyterLab and nbconvert), whatever the lab's $COURSE_LANG: notebooks/zh/ (and
    the instructor's instructor/notebooks/zh/) or a released dayNN-zh/ is Chinese, any other folder
    holding a dayNN.ipynb English; elsewhere (a terminal) $COURSE_LANG, else English."""
    value = os.environ.get(LANG_ENV, "").strip().lower()
    if value not in ("", "en", "zh"):
        raise ValueError(f"{LANG_ENV}={value!r}: expected en or zh")
    here = Path.cwd().resolve()
    chinese = {(root / "zh").resolve() for root in (paths.NOTEBOOKS, paths.INSTRUCTOR_NOTEBOOKS)}
    if chinese & {here, *here.parents} or _ZH_ASSIGNMENT.fullmatch(here.name):
        return "zh"
    if any(here.glob("day[0-9][0-9].ipynb")):
        return "en"
    return value or "en"
