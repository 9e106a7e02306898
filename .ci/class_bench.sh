#!/usr/bin/env bash
# On the GPU machine, in one call: python -m grader.classbench (serial nbgrader against grade-class on
# 1, 2, ... GPUs, the same synthetic class; see its --help) with the Jupyter + nbgrader + Ray wheelhouse
# installed first where there is one (bash ../shared/device/wheelhouse.sh ray rich), as .ci/gpu_check.sh.
# Usage: bash .ci/class_bench.sh [--students 6] [--days day01 day06 day12] [--gpus 1 2]  (table; $OUT/classbench.json)
set -eu
out=${OUT:-/tmp/class-bench}
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH} MPLBACKEND=Agg
if [ -d .whl ]; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl &&
    export PYTHONPATH=$PYTHONPATH:/tmp/site PATH=/tmp/site/bin:$PATH JUPYTER_PATH=/tmp/site/share/jupyter &&
    python3 -m ipykernel install --user --name python3 >/dev/null
fi
py=${PYTHON:-python3}
$py -c 'import ray, rich' || { echo "class_bench: Ray and rich are needed (pip install -e '.[class]')" >&2; exit 2; }
work=$(mktemp -d /tmp/class-bench-XXXX)  # the course folders stay here: only the results go to $OUT
status=0; $py -m grader.classbench "$work/bench" "$@" || status=$?
mkdir -p "$out" && cp "$work/bench/classbench.json" "$out/" 2>/dev/null; exit $status
