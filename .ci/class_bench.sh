#!/usr/bin/env bash
# On the GPU machine, in one call: grade a synthetic class serially (nbgrader autograde) and on Ray
# (python -m grader grade-class), print student-days per hour for both and check that the scores agree.
# Needs Ray and rich besides the course's Python stack (the wheelhouse: bash ../shared/device/wheelhouse.sh
# ray rich). The defaults take about 7 minutes on one H100 (less on two GPUs: the same call).
# Usage: bash .ci/class_bench.sh [--students 6] [--serial 2] [--days day01 day06] [--gpus-per-task 1]
set -eu
out=${OUT:-/tmp/class-bench}; mkdir -p "$out"
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH} MPLBACKEND=Agg OUT=$out
if [ -d .whl ]; then  # the Jupyter + nbgrader (+ Ray) wheelhouse, as in .ci/gpu_check.sh
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl &&
    export PYTHONPATH=$PYTHONPATH:/tmp/site PATH=/tmp/site/bin:$PATH JUPYTER_PATH=/tmp/site/share/jupyter &&
    python3 -m ipykernel install --user --name python3 >/dev/null
fi
py=${PYTHON:-python3}
$py -c 'import ray, rich' || { echo "class_bench: Ray and rich are needed (pip install -e '.[class]')" >&2; exit 2; }
echo "GPUs: $($py -c 'import cupy; print(cupy.cuda.runtime.getDeviceCount())' 2>/dev/null || echo none)"
exec $py .ci/class_bench.py "$@"
