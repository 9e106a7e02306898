#!/usr/bin/env bash
# The course's two commands (see README.md):
#   ./course.sh lab     set everything up, then open JupyterLab on the notebooks
#   ./course.sh test    set everything up, then run the course's tests, and every exercise test on
#                       the solutions (must pass) and the stubs (must fail); what CI runs. Without a
#                       GPU, kernels run on the PTX emulator.
# COURSE_CUDA=12 selects the CUDA 12 wheels (driver older than 580); the default is CUDA 13.
set -euo pipefail
cd "$(dirname "$0")"
cuda=${COURSE_CUDA:-13}
case "$cuda" in 12|13) ;; *) echo "COURSE_CUDA=$cuda: expected 12 or 13" >&2; exit 2 ;; esac

setup() {
  python3 -c 'import sys; sys.exit(sys.version_info < (3, 10))' 2>/dev/null ||
    { echo "the course needs Python 3.10 or newer as python3" >&2; exit 2; }
  [ -x .venv/bin/python ] || python3 -m venv .venv
  local stamp=".venv/.installed-cuda$cuda-$(sha256sum pyproject.toml | cut -c1-12)"
  if [ ! -f "$stamp" ]; then
    echo "setting up .venv (CUDA $cuda wheels; a minute or two the first time)..."
    .venv/bin/python -m pip install -q --upgrade pip
    .venv/bin/python -m pip install -q -e ".[cuda$cuda]"
    rm -f .venv/.installed-* && touch "$stamp"
  fi
}

case "${1:-}" in
  lab)
    setup; shift
    .venv/bin/python -m grader show-config || true
    exec .venv/bin/jupyter lab notebooks "$@" ;;
  test)
    # the course's own tests, then every exercise test on this machine's kernels: on the GPU, or on
    # the PTX emulator where there is none (cases too large for a CPU and timed tests skip there)
    setup; shift
    .venv/bin/python -m pytest tests "$@"
    report=$(mktemp -d)/stubs.json
    echo "== the solutions (every exercise test must pass)"
    .venv/bin/python -m pytest days --solutions "$@"
    echo "== the stubs (every exercise test must fail)"
    .venv/bin/python -m pytest days --course-report "$report" "$@" > "${report%.json}.log" 2>&1 || true
    tail -n 3 "${report%.json}.log"
    exec .venv/bin/python -m grader.stubs_fail "$report" ;;
  *)
    echo "usage: ./course.sh lab | test [extra arguments for jupyter lab / pytest]" >&2
    exit 2 ;;
esac
