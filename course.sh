#!/usr/bin/env bash
# The course's commands (see README.md):
#   ./course.sh lab [--lang en|zh]   set everything up, then open JupyterLab at the course's root, on the
#                                    notebooks (notebooks/zh/ and a Chinese JupyterLab with --lang zh)
#   ./course.sh check dayNN [--lang en|zh] [...]   run a day's self-check (pytest days/dayNN) on your
#                                    kernels, its messages in the lessons' language
#   ./course.sh test [...]           set everything up, then run the course's tests, and every exercise
#                                    test on the solutions (must pass) and the stubs (must fail); what CI
#                                    runs. Arguments go to each pytest run (-k, -x, -q ...).
#   ./course.sh student-edition DIR [dayNN ...] [--lang en|zh|both] [--unlocked dayNN ...]
#                                    build what a class hands students (no solutions/, no instructor/)
# Without a GPU, kernels run on the PTX emulator. COURSE_CUDA=12 selects the CUDA 12 wheels (driver
# older than 580; the default is CUDA 13); COURSE_LANG=zh is the same as --lang zh.
set -euo pipefail
cd "$(dirname "$0")"
# say EN ZH: a line in the lessons' language (COURSE_LANG=zh: Chinese), as the course's Python says it
say() { case "${COURSE_LANG:-}" in zh*) echo "$2" ;; *) echo "$1" ;; esac; }
cuda=${COURSE_CUDA:-13}
case "$cuda" in
  12|13) ;;
  *) say "COURSE_CUDA=$cuda: expected 12 or 13" "COURSE_CUDA=$cuda：应为 12 或 13" >&2; exit 2 ;;
esac

# setup EXTRA...: .venv with the course and these extras of pyproject.toml, at the versions CI tested
# (constraints.txt); each extra is installed once per version of pyproject.toml and constraints.txt.
setup() {
  python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null ||
    { say "the course needs Python 3.11 or newer as python3" "课程需要 Python 3.11 或更新的版本作为 python3" >&2; exit 2; }
  [ -x .venv/bin/python ] || python3 -m venv .venv
  local sum missing=() extra
  sum=$(cat pyproject.toml constraints.txt | sha256sum | cut -c1-12)
  for extra in "cuda$cuda" "$@"; do
    [ -f ".venv/.installed-$sum-$extra" ] || missing+=("$extra")
  done
  [ ${#missing[@]} -eq 0 ] && return
  say "setting up .venv (${missing[*]}; a minute or two the first time)..." \
    "正在准备 .venv（${missing[*]}；第一次需要一两分钟）……"
  .venv/bin/python -m pip install -q --upgrade pip
  # (setuptools' "Editable installation" warning box says nothing a student can act on)
  PYTHONWARNINGS="ignore:Editable installation" \
    .venv/bin/python -m pip install -q -c constraints.txt -e ".[$(IFS=,; echo "${missing[*]}")]"
  find .venv -maxdepth 1 -name '.installed-*' ! -name ".installed-$sum-*" -delete
  for extra in "${missing[@]}"; do touch ".venv/.installed-$sum-$extra"; done
}

# stage NAME ARGS...: one pytest run of `test`; exit status 5 (nothing selected, e.g. by -k) is said
# and is not a failure
results=()
stage() {
  local name=$1 rc=0
  shift
  echo "== $name"
  .venv/bin/python -m pytest "$@" || rc=$?
  case $rc in
    0) results+=("$name: passed") ;;
    5) results+=("$name: nothing selected"); echo "(no test of $name matches the arguments)" ;;
    *) results+=("$name: FAILED (pytest exit status $rc)") ;;
  esac
  return 0
}

case "${1:-}" in
  lab)
    shift
    lang=${COURSE_LANG:-en}
    if [ "${1:-}" = "--lang" ]; then lang=${2:-}; shift $(( $# > 1 ? 2 : 1 )); fi
    case "$lang" in
      en) extras=(ffi); locale=en; landing=notebooks ;;          # ffi: day 14's TVM-FFI exercise
      zh) extras=(zh ffi); locale=zh_CN; landing=notebooks/zh ;;
      *) say "--lang ${lang:-(none)}: expected en or zh" "--lang ${lang:-（无）}：应为 en 或 zh" >&2; exit 2 ;;
    esac
    setup ${extras[@]+"${extras[@]}"}
    .venv/bin/python -m grader show-config || true
    # the UI's language, and no "get notified about official Jupyter news?" prompt: settings defaults
    # in the course's own .venv (a choice made in the lab's Settings menu, kept in ~/.jupyter, still wins)
    settings=.venv/share/jupyter/lab/settings/overrides.d
    mkdir -p "$settings"
    printf '{"@jupyterlab/translation-extension:plugin": {"locale": "%s"},
 "@jupyterlab/apputils-extension:notification": {"fetchNews": "false"}}\n' "$locale" > "$settings/cuda-course.json"
    root=()
    [ "$(id -u)" = 0 ] && root=(--allow-root)  # containers and cloud notebooks run as root
    # lab/ holds the course's JupyterLab extension: .cu/.cuh files open in the editor as C++
    # the lab's terminals have the course's environment (pytest days/dayNN works there); its kernels
    # import this checkout's grader, even from a .venv another copy of the course installed
    export COURSE_LANG=$lang JUPYTER_PATH="$PWD/lab${JUPYTER_PATH:+:$JUPYTER_PATH}" \
      VIRTUAL_ENV="$PWD/.venv" PATH="$PWD/.venv/bin:$PATH" PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
    # a student's lab: without nbgrader's instructor menus and server extensions (lab/student/);
    # COURSE_INSTRUCTOR=1 keeps them (formgrader, Create Assignment)
    [ "${COURSE_INSTRUCTOR:-0}" = 1 ] ||
      export JUPYTER_CONFIG_PATH="$PWD/lab/student${JUPYTER_CONFIG_PATH:+:$JUPYTER_CONFIG_PATH}"
    # a workspace (open tabs, layout) per language: the Chinese lab never reopens the English tabs
    exec .venv/bin/jupyter lab --ServerApp.root_dir="$PWD" --FileContentsManager.preferred_dir="$landing" \
      --LabApp.workspaces_dir="${COURSE_LAB_STATE:-$PWD/.course/lab}/workspaces-$lang" ${root[@]+"${root[@]}"} "$@" ;;
  check)
    shift
    args=()  # --lang anywhere (as the lab takes it), the rest for pytest
    while [ $# -gt 0 ]; do
      if [ "$1" = "--lang" ]; then
        case "${2:-}" in
          en|zh) export COURSE_LANG=$2 ;;
          *) say "--lang ${2:-(none)}: expected en or zh" "--lang ${2:-（无）}：应为 en 或 zh" >&2; exit 2 ;;
        esac
        shift 2
      else
        args+=("$1")
        shift
      fi
    done
    set -- ${args[@]+"${args[@]}"}
    [ -n "${1:-}" ] || { say "usage: ./course.sh check dayNN [--lang en|zh] [pytest arguments]" \
      "用法：./course.sh check dayNN [--lang en|zh] [pytest 参数]" >&2; exit 2; }
    day=$1
    shift
    setup
    folder=$(.venv/bin/python -c 'import sys
from grader import paths
from grader.messages import said, say
try:
    print(paths.day_name(sys.argv[1]))
except ValueError as e:
    sys.exit(say("cli.error", message=said(e) or e))' "$day") || exit 2
    exec .venv/bin/python -m pytest "days/$folder" "$@" ;;
  student-edition)
    shift
    setup
    exec .venv/bin/python -m grader student-edition "$@" ;;
  test)
    [ -d tests ] || { say "./course.sh test is the maintainers' check of the course: a student edition has no tests/ \
(./course.sh check dayNN checks your kernels)" "./course.sh test 是维护者对课程的检查：学生版没有 tests/（./course.sh check dayNN \
检查你的核函数）" >&2; exit 2; }
    # the course's own tests, then every exercise test on this machine's kernels: on the GPU, or on
    # the PTX emulator where there is none (cases too large for a CPU and timed tests skip there)
    shift
    setup class zh ffi   # Ray for grade-class, the CJK font for the Chinese plots, TVM-FFI: all tested
    # without a GPU the course's tests are CPU-bound (the emulator): two pytest workers, one file each;
    # on a GPU machine one, so that timed tests have the GPU to themselves
    workers=2; command -v nvidia-smi > /dev/null && nvidia-smi -L > /dev/null 2>&1 && workers=0
    stage "the course's own tests (tests/)" tests -n "$workers" --dist loadfile "$@"
    stage "the solutions (every exercise test must pass)" days --solutions "$@"
    report=$(mktemp -d)/stubs.json
    echo "== the stubs (every exercise test must fail)"
    rc=0
    .venv/bin/python -m pytest days --course-report "$report" "$@" > "${report%.json}.log" 2>&1 || rc=$?
    tail -n 3 "${report%.json}.log"
    if [ $rc = 5 ]; then
      results+=("the stubs: nothing selected")
    elif .venv/bin/python -m grader.stubs_fail "$report"; then
      results+=("the stubs: every selected exercise test failed, as it must")
    else
      results+=("the stubs: FAILED (see above)")
    fi
    echo "== what ran"
    printf '  %s\n' "${results[@]}"
    if printf '%s\n' "${results[@]}" | grep -q FAILED; then exit 1; fi
    if ! printf '%s\n' "${results[@]}" | grep -qv "nothing selected"; then
      echo "no test matches the arguments: $*" >&2
      exit 5
    fi ;;
  *)
    say "usage: ./course.sh lab [--lang en|zh] | check dayNN [--lang en|zh] | test [pytest arguments] | student-edition DIR [...]" \
      "用法：./course.sh lab [--lang en|zh] | check dayNN [--lang en|zh] | test [pytest 参数] | student-edition DIR [...]" >&2
    exit 2 ;;
esac
