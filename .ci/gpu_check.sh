#!/usr/bin/env bash
# On the GPU machine: the solutions pass, the stubs fail, the day's benchmarks show their ratios.
# Usage: bash .ci/gpu_check.sh [days...]   (writes logs under $OUT when set)
set -u
out=${OUT:-/tmp/course-out}; mkdir -p "$out"
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH}
days=${*:-day01 day02}
for d in $days; do targets+=" days/$d"; done
python3 -m pytest $targets --solutions -q -p no:cacheprovider -o addopts="" 2>&1 | tee "$out/solutions.log" | tail -25
python3 -m pytest $targets -q -p no:cacheprovider -o addopts="" 2>&1 | tee "$out/stubs.log" | tail -12
for d in $days; do python3 -m grader bench "$d" --out "$out" 2>&1 | tee -a "$out/bench.log"; done
echo "== summary =="
grep -E "passed|failed" "$out/solutions.log" | tail -1 | sed 's/^/solutions: /'
grep -E "passed|failed" "$out/stubs.log" | tail -1 | sed 's/^/stubs:     /'
grep -E "of the ceiling" "$out/bench.log"
