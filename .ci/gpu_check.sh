#!/usr/bin/env bash
# On the GPU machine: the solutions pass, the stubs fail, every lesson notebook runs, nbgrader gives the
# solutions full marks and the stubs zero, the sanitizer finds day 4's planted bugs, and each benchmark
# meets its target. Correctness, notebooks and nbgrader run one process per day, in parallel; the timed
# tests run alone afterwards. A table per day comes last; every log is in $OUT/logs.tgz.
# Usage: bash .ci/gpu_check.sh [--parts correct,course,stress,timed] [days...]
#   correct: solutions pass, stubs fail;  course: notebooks, nbgrader, the grading cheats, sanitizer,
#   the course's GPU tests;
#   stress: the async pipelines (days 7, 11, 12, 15, 16: cp.async, TMA, mbarriers, wgmma) run again and
#   again with fresh seeds while a GEMM loop loads the GPU ($STRESS_REPEAT runs of days 15-16, default 20;
#   a quarter as many of days 7, 11, 12), then days 15-16 under compute-sanitizer (memcheck, racecheck,
#   synccheck, initcheck): a race shows as a rare failure;
#   timed: the performance tests.  Default: all four, for every day with solutions.
set -u
out=${OUT:-/tmp/course-out}; mkdir -p "$out"
logs=$(mktemp -d); export LOGS=$logs
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH} MPLBACKEND=Agg
if [ -d .whl ]; then  # the Jupyter + nbgrader wheelhouse (bash ../shared/device/wheelhouse.sh)
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl &&
    export PYTHONPATH=$PYTHONPATH:/tmp/site PATH=/tmp/site/bin:$PATH JUPYTER_PATH=/tmp/site/share/jupyter &&
    python3 -m ipykernel install --user --name python3 >/dev/null
fi
parts=correct,course,stress,timed
[ "${1:-}" = "--parts" ] && { parts=$2; shift 2; }
part() { [[ ",$parts," == *",$1,"* ]]; }
days=${*:-$(cd solutions && ls -d day[0-9][0-9])}
export PY="python3 -m pytest -p no:cacheprovider -o addopts= -q"
jobs=$(( $(nproc) / 2 )); [ "$jobs" -gt 8 ] && jobs=8   # per stream; two streams run at once
trap 'tar -czf "$out/logs.tgz" -C "$logs" .' EXIT
trap 'exit 143' TERM   # a `timeout` around this script still leaves the logs

each_day() {  # each_day NAME 'command using $d': one background process per day, $jobs at a time
  local name=$1 cmd=$2
  printf '%s\n' $days | xargs -P "$jobs" -I{} bash -c "d={}; $cmd > \$LOGS/$name.\$d.log 2>&1"
}
t0=$(date +%s)
if part correct; then
  each_day solutions '$PY days/$d --solutions -m "not perf"' &
  each_day stubs '$PY days/$d' &
  wait
fi
if part course; then
  nb_days=$(for d in $days; do [ -f notebooks/$d.ipynb ] && echo $d; done)
  days=$nb_days each_day notebook 'OUT=$LOGS $PY tests/test_notebooks_run.py -k $d' &
  days=$nb_days each_day nbgrader '$PY tests/test_nbgrader_e2e.py tests/test_nbgrader_e2e_zh.py -k $d -s' &
  { $PY tests -m gpu -k "not notebook_runs and not nbgrader" -rs > "$logs/course.log" 2>&1
    $PY tests/test_grading_cheats.py -rs -s > "$logs/cheats.log" 2>&1
    python3 -m grader sanitize day04 --solutions --cases 2 > "$logs/sanitize.log" 2>&1
    echo "exit status $?" >> "$logs/sanitize.log"; } &
  wait
fi
if part stress; then
  sdays=$(for d in $days; do case $d in day07|day11|day12|day15|day16) echo $d ;; esac; done)
  if [ -n "$sdays" ]; then
    python3 - > "$logs/stress-load.log" 2>&1 <<'EOF' &
import time
import cupy as cp
a = cp.random.rand(8192, 8192, dtype=cp.float32).astype(cp.float16)
end = time.time() + 1800
while time.time() < end:  # the load: fp16 GEMMs back to back, until the stress runs end
    for _ in range(10):
        a @ a
    cp.cuda.Device().synchronize()
EOF
    load=$!
    pids=()
    for d in $sdays; do  # days 15-16 in $STRESS_STREAMS processes at once (default 2), the others in one
      n=${STRESS_REPEAT:-20} streams=${STRESS_STREAMS:-2}
      case $d in day15|day16) ;; *) n=$(( (n + 3) / 4 )) streams=1 ;; esac
      for k in $(seq "$streams"); do
        for i in $(seq "$k" "$streams" "$n"); do
          $PY days/$d --solutions -m "not perf" > "$logs/stress.$d.$i.log" 2>&1; echo "$i $?"
        done > "$logs/stress.$d.$k.status" &
        pids+=($!)
      done
    done
    wait "${pids[@]}"
    kill "$load" 2>/dev/null; wait "$load" 2>/dev/null
    for d in $sdays; do
      case $d in day15|day16)
        python3 -m grader sanitize $d --solutions --no-demos --cases 2 --tool memcheck --tool racecheck \
          --tool synccheck --tool initcheck > "$logs/sanitize.$d.log" 2>&1
        echo "exit status $?" >> "$logs/sanitize.$d.log" ;;
      esac
    done
  fi
fi
t1=$(date +%s)
targets=""; for d in $days; do targets+=" days/$d"; done
part timed && $PY $targets --solutions -m perf > "$logs/perf.log" 2>&1   # alone on the GPU: timings
t2=$(date +%s)
python3 - "$logs" $days <<'EOF'
import pathlib, re, sys
logs, days = pathlib.Path(sys.argv[1]), sys.argv[2:]

def last(name):
    p = logs / f"{name}.log"
    if not p.exists():
        return "-"
    lines = [l for l in p.read_text().splitlines() if re.search(r"\d+ (passed|failed|error|skipped)", l)]
    return lines[-1].strip("= ") if lines else "no result (see log)"

per_day = any(p for k in ("solutions", "stubs", "notebook", "nbgrader") for p in logs.glob(f"{k}.day[0-9][0-9].log"))
if per_day:
    print(f"{'day':<6} {'solutions (not timed)':<34} {'stubs':<34} {'notebook':<22} nbgrader")
for d in days if per_day else []:
    nbg = re.findall(r"day\d\d: solution .*", (logs / f"nbgrader.{d}.log").read_text()) \
        if (logs / f"nbgrader.{d}.log").exists() else []
    print(f"{d:<6} {last('solutions.' + d)[:34]:<34} {last('stubs.' + d)[:34]:<34} "
          f"{last('notebook.' + d)[:22]:<22} {(nbg[-1] if nbg else last('nbgrader.' + d))}")
if (logs / "course.log").exists():
    print(f"\ncourse GPU tests: {last('course')}")
if (logs / "cheats.log").exists():
    print(f"grading cheats: {last('cheats')}")
    print("\n".join(l for l in (logs / "cheats.log").read_text().splitlines() if "students in" in l))
for d in sorted({p.name.split(".")[1] for p in logs.glob("stress.*.status")}):
    runs = [l.split() for p in logs.glob(f"stress.{d}.*.status") for l in p.read_text().splitlines()]
    bad = [r for r in runs if r[1] != "0"]
    print(f"stress {d}: {len(runs) - len(bad)} of {len(runs)} runs passed under load")
    for i, _ in bad:
        print("\n".join("  " + l for l in (logs / f"stress.{d}.{i}.log").read_text().splitlines()
                        if l.startswith("FAILED") or "seed" in l.lower())[:2000])
for s in sorted(logs.glob("sanitize.day1[56].log")):
    print(f"sanitize {s.stem.split('.')[1]}: " + " | ".join(s.read_text().strip().splitlines()[-3:]))
s = logs / "sanitize.log"
if s.exists():
    print("sanitize day04: " + " | ".join(s.read_text().strip().splitlines()[-3:]))
print("\ntimed (solutions alone on the GPU): " + last("perf"))
perf = (logs / "perf.log").read_text().splitlines() if (logs / "perf.log").exists() else []
start = next((i for i, l in enumerate(perf) if l.startswith("exercise ")), None)
if start is not None:
    print("\n".join(l for l in perf[start:] if l.strip() and not l.startswith(("=", "Skipped"))))
EOF
echo "wall: parallel and stress parts $((t1 - t0)) s, timed part $((t2 - t1)) s"
