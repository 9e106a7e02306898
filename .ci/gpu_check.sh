#!/usr/bin/env bash
# On the GPU machine: the solutions pass, the stubs fail, the course's own GPU tests (notebooks,
# nbgrader end to end) pass, and the benchmarks show their ratios. Logs go under $OUT when set.
# Usage: bash .ci/gpu_check.sh [--no-course-tests] [days...]
set -u
out=${OUT:-/tmp/course-out}; mkdir -p "$out"
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH} MPLBACKEND=Agg
if [ -d .whl ]; then  # the Jupyter + nbgrader wheelhouse (bash ../shared/device/wheelhouse.sh)
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl &&
    export PYTHONPATH=$PYTHONPATH:/tmp/site PATH=/tmp/site/bin:$PATH &&
    python3 -m ipykernel install --user --name python3 >/dev/null
fi
course_tests=1
[ "${1:-}" = "--no-course-tests" ] && { course_tests=0; shift; }
days=${*:-$(ls -d solutions/day[0-9][0-9] | xargs -n1 basename | tr "\n" " ")}
targets=""; for d in $days; do targets+=" days/$d"; done
py="python3 -m pytest -p no:cacheprovider -o addopts="
$py $targets --solutions -q 2>&1 | tee "$out/solutions.log" | tail -25
$py $targets -q 2>&1 | tee "$out/stubs.log" | tail -12
[ $course_tests = 1 ] && $py tests -q -rs -k "notebook or nbgrader or isolation" 2>&1 | tee "$out/course.log" | tail -15
for d in $days; do python3 -m grader bench "$d" --quick --out "$out" 2>&1 | tee -a "$out/bench.log"; done
echo "== summary =="
tail -1 "$out/solutions.log" | sed 's/^/solutions: /'
tail -1 "$out/stubs.log" | sed 's/^/stubs:     /'
[ $course_tests = 1 ] && tail -1 "$out/course.log" | sed 's/^/course:    /'
grep -E "of the ceiling" "$out/bench.log"
