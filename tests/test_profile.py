"""`python -m grader profile`: the Nsight Compute side offline (the command line it runs, the parsing of
its CSV, the tables, what it says when ncu is missing or counters are forbidden), the emulator's
estimates (counts against hand-computed values, the occupancy calculator, the whole command on day 6's
RMSNorm), and, on a GPU with ncu, the profiles themselves against `grader bench`."""
import contextlib
import dataclasses
import json
import re
import shutil

import numpy as np
import pytest
from grader import cli, device, exercises, ncu, paths, profile, profile_estimates, runner, sass

# A hand-written sample of `ncu --import R --page raw --csv --print-units base`, made from the documented
# format (a header row, a row of units, one row per launch; ncu's ==PROF== lines and the program's output
# mixed in), with plausible H100 values for day 6's RMSNorm at rows 16384, d 8192: NOT a recording.
# Two profiled calls, each after its marker kernel (grid = call number); the first launch, before any
# marker, is not part of a call.
_COLUMNS = [
    ("dram__bytes.sum", "byte"), ("dram__throughput.avg.pct_of_peak_sustained_elapsed", "%"),
    ("gpu__time_duration.sum", "nsecond"), ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", ""),
    ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", ""),
    ("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "request"), ("l1tex__t_sector_hit_rate.pct", "%"),
    ("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "sector"), ("launch__block_size", ""),
    ("launch__grid_size", ""), ("launch__occupancy_limit_blocks", "block"),
    ("launch__occupancy_limit_registers", "block"), ("launch__occupancy_limit_shared_mem", "block"),
    ("launch__occupancy_limit_warps", "block"), ("launch__registers_per_thread", "register/thread"),
    ("launch__shared_mem_per_block_dynamic", "byte"), ("launch__shared_mem_per_block_static", "byte"),
    ("lts__t_sector_hit_rate.pct", "%"), ("sm__maximum_warps_per_active_cycle_pct", "%"),
    ("sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active", "%"),
    ("sm__throughput.avg.pct_of_peak_sustained_elapsed", "%"),
    ("sm__warps_active.avg.pct_of_peak_sustained_active", "%"),
    ("smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio", "inst"),
    ("smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio", "inst"),
    ("smsp__average_warps_issue_stalled_selected_per_issue_active.ratio", "inst"),
    ("smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio", "inst"),
    ("smsp__average_warps_issue_stalled_wait_per_issue_active.ratio", "inst"),
    ("smsp__inst_executed.sum", "inst"), ("smsp__thread_inst_executed_per_inst_executed.ratio", ""),
]
_IDENT = '"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC"'
RAW_CSV = "\n".join([
    "==PROF== Connected to process 4242 (/work/main/.venv/bin/python3.12)",
    _IDENT + "," + ",".join(f'"{m}"' for m, _ in _COLUMNS),
    ",".join(['""'] * 11) + "," + ",".join(f'"{u}"' for _, u in _COLUMNS),
    # launch 0: before any marker (the child's warm-up would never be in range; a stray launch is dropped)
    '"0","4242","python3.12","h100","rmsnorm_f16","1","7","(256, 1, 1)","(16384, 1, 1)","0","9.0",'
    '"536,903,680","90.12","183,552","0","0","262,144","0.00","4,194,304","256","16384","32","4","42","8","54",'
    '"0","1,024","3.10","50.00","0.00","21.30","47.90","1.02","28.40","1.00","0.40","2.10","4,521,984","31.20"',
    '"1","4242","python3.12","h100","course_profile_mark","1","7","(1, 1, 1)","(1, 1, 1)","0","9.0",'
    '"0","0.02","2,912","0","0","0","n/a","0","1","1","32","32","32","64","16",'
    '"0","0","n/a","100.00","0.00","0.01","0.10","0.00","0.00","1.00","0.00","0.00","3","1.00"',
    '"2","4242","python3.12","h100","rmsnorm_f16","1","7","(256, 1, 1)","(16384, 1, 1)","0","9.0",'
    '"536,903,680","90.82","181,344","12","4","262,144","0.00","4,194,304","256","16384","32","4","42","8","54",'
    '"0","1,024","3.20","50.00","0.00","21.70","48.10","1.05","28.90","1.00","0.41","2.20","4,521,984","31.20"',
    "program output: a line that is not CSV",
    '"3","4242","python3.12","h100","course_profile_mark","1","7","(1, 1, 1)","(2, 1, 1)","0","9.0",'
    '"0","0.02","2,880","0","0","0","n/a","0","1","2","32","32","32","64","16",'
    '"0","0","n/a","100.00","0.00","0.01","0.10","0.00","0.00","1.00","0.00","0.00","3","1.00"',
    '"4","4242","python3.12","h100","rmsnorm_f16","1","7","(256, 1, 1)","(16384, 1, 1)","0","9.0",'
    '"536,870,912","91.40","176,800","0","0","262,144","0.00","4,194,304","256","16384","32","4","42","8","54",'
    '"0","1,024","2.90","50.00","0.00","22.30","47.20","1.01","29.80","1.00","0.30","2.00","4,503,552","31.20"',
    "==PROF== Disconnected from process 4242",
])
NBYTES = 2 * (2 * 16384 * 8192 + 8192)  # day 6's count for rmsnorm at d 8192: x read, out written, weight
CALLS = [{"label": "yours float16", "size": NBYTES, "nbytes": NBYTES, "flops": 0.0},
         {"label": "solution float16", "size": NBYTES, "nbytes": NBYTES, "flops": 0.0}]


def test_raw_csv_is_parsed_launch_by_launch():
    launches = ncu.parse_csv(RAW_CSV)
    assert [r["kernel"] for r in launches] == ["rmsnorm_f16", "course_profile_mark", "rmsnorm_f16",
                                               "course_profile_mark", "rmsnorm_f16"]
    assert [r["grid"] for r in launches] == [16384, 1, 16384, 2, 16384]
    m = launches[2]["metrics"]
    assert m["gpu__time_duration.sum"] == pytest.approx(181.344e-6)       # nsecond -> seconds
    assert m["dram__bytes.sum"] == 536_903_680                          # thousands separators dropped
    assert m["launch__shared_mem_per_block_static"] == 1024
    assert launches[1]["metrics"]["l1tex__t_sector_hit_rate.pct"] == "n/a"  # text stays text


def test_details_page_long_form_is_parsed_too():
    long_form = "\n".join([
        '"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size",'
        '"Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"',
        '"0","7","python3.12","h100","course_profile_mark","1","7","(1, 1, 1)","(1, 1, 1)","0","9.0","Command line '
        'profiler metrics","gpu__time_duration.sum","usecond","2.91"',
        '"1","7","python3.12","h100","gemm_f16","1","7","(256, 1, 1)","(32, 64, 1)","0","9.0","Command line '
        'profiler metrics","gpu__time_duration.sum","msecond","1.25"',
        '"1","7","python3.12","h100","gemm_f16","1","7","(256, 1, 1)","(32, 64, 1)","0","9.0","Command line '
        'profiler metrics","sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active","%","61.50"',
    ])
    launches = ncu.parse_csv(long_form)
    assert [r["kernel"] for r in launches] == ["course_profile_mark", "gemm_f16"]
    assert launches[1]["metrics"]["gpu__time_duration.sum"] == pytest.approx(1.25e-3)
    assert ncu.split_calls(launches) == {1: [launches[1]]}
    rows = ncu.rows(launches[1]["metrics"], flops=2.0 * 4096 ** 3)
    assert rows["tensor"] == "61.5%" and rows["throughput"] == f"{2.0 * 4096 ** 3 / 1.25e-3 / 1e12:.1f} TFLOP/s"


def test_not_ncu_output_is_refused():
    with pytest.raises(ValueError, match="not an Nsight Compute CSV"):
        ncu.parse_csv("==ERROR== the application returned an error code (1)")


def test_calls_are_split_at_the_markers():
    calls = ncu.split_calls(ncu.parse_csv(RAW_CSV))
    assert sorted(calls) == [1, 2]
    assert [r["id"] for r in calls[1]] == ["2"] and [r["id"] for r in calls[2]] == ["4"]


def test_tables_from_the_sample():
    tables = profile.gpu_tables(ncu.parse_csv(RAW_CSV), CALLS, "bytes moved")
    assert [t["kernel"] for t in tables] == ["rmsnorm_f16"]
    yours, solution = tables[0]["columns"]["yours float16"], tables[0]["columns"]["solution float16"]
    assert yours["duration"] == "181.3 us" and solution["duration"] == "176.8 us"
    assert yours["throughput"] == f"{NBYTES / 181.344e-6 / 1e9:.0f} GB/s"
    assert yours["dram"] == "90.8%" and yours["sm"] == "21.7%" and yours["l2"] == "3.2%"
    assert yours["sectors"] == "16.00 (loads)"                    # 4,194,304 sectors / 262,144 requests
    assert yours["bank_conflicts"] == "16" and solution["bank_conflicts"] == "0"
    assert yours["theoretical"] == "50% (limiter: registers (4 blocks per SM))"
    assert yours["registers"] == "54" and yours["smem"] == "1.0 KiB" and yours["occupancy"] == "48.1%"
    assert yours["stalls"] == "long_scoreboard 28.9, wait 2.2, barrier 1.1"  # "selected" is not a stall
    assert yours["active_threads"] == "31.2 of 32" and yours["instructions"] == "4,521,984"
    sizes = profile.gpu_tables(ncu.parse_csv(RAW_CSV), CALLS, "bytes moved", all_sizes=True)
    assert list(sizes[0]["columns"]) == [f"yours float16, bytes moved {NBYTES}", f"solution float16, bytes moved {NBYTES}"]


def test_rendered_table_shows_every_row_and_the_stall_meanings():
    text = profile.render(profile.gpu_tables(ncu.parse_csv(RAW_CSV), CALLS), estimates=False)
    assert "rmsnorm_f16 (Nsight Compute)" in text and "ESTIMATES" not in text
    for _, title, _ in profile.rows():
        assert title in text
    assert f"long_scoreboard: {ncu.stall_meanings()['long_scoreboard']}" in text
    assert "n/a" in text  # the instruction mix is the emulator's


def test_the_ncu_command_line():
    child = ["python", "-m", "grader.profile", "{}"]
    cmd = ncu.profile_command("/opt/ncu", paths.STATE / "r.ncu-rep", child)
    assert cmd[0] == "/opt/ncu" and cmd[-4:] == child
    for option in (["--export", str(paths.STATE / "r.ncu-rep")], ["--profile-from-start", "off"],
                   ["--clock-control", "none"]):
        i = cmd.index(option[0])
        assert cmd[i:i + 2] == option
    metrics = cmd[cmd.index("--metrics") + 1].split(",")
    assert set(metrics) == set(ncu.METRICS.values()) | {ncu.stall_metric(r) for r in ncu.STALLS}
    assert "--set" not in cmd
    full = ncu.profile_command("/opt/ncu", paths.STATE / "r.ncu-rep", child, "full")
    assert full[full.index("--set") + 1] == "full" and full[-4:] == child
    with pytest.raises(ValueError, match="--metrics 'everything'"):
        ncu.profile_command("/opt/ncu", paths.STATE / "r.ncu-rep", child, "everything")
    assert ncu.import_command("/opt/ncu", paths.STATE / "r.ncu-rep") == [
        "/opt/ncu", "--import", str(paths.STATE / "r.ncu-rep"), "--page", "raw", "--csv", "--print-units", "base"]


def test_ncu_problems_in_one_line():
    forbidden = ("==PROF== Connected to process 1\n==ERROR== ERR_NVGPUCTRPERM - The user does not have permission "
                 "to access NVIDIA GPU Performance Counters on the target device 0.\n")
    assert "ERR_NVGPUCTRPERM" in ncu.problem(forbidden) and "\n" not in ncu.problem(forbidden)
    assert ncu.problem("==ERROR== Failed to find metric sm__nope\n") == "ncu: Failed to find metric sm__nope"
    assert ncu.problem("==PROF== Disconnected from process 1\n") is None


def _pretend_gpu(monkeypatch):
    monkeypatch.setenv(device.BACKEND_ENV, "cupy")  # a backend with hardware counters
    monkeypatch.setattr(device, "why_no_gpu", lambda: None)


def test_missing_ncu_is_one_line(monkeypatch, capsys):
    _pretend_gpu(monkeypatch)
    monkeypatch.setattr(ncu, "find_tool", lambda name, env, explicit=None: None)
    assert cli.main(["profile", "day06", "rmsnorm", "--solutions"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "Nsight Compute (ncu) is not installed" in err, err


def test_forbidden_counters_are_one_line(monkeypatch, tmp_path, capsys):
    """ncu that refuses the counters (a stand-in script printing what ncu prints) is reported in one line."""
    _pretend_gpu(monkeypatch)
    fake = tmp_path / "ncu"
    fake.write_text("#!/bin/sh\necho '==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access "
                    "NVIDIA GPU Performance Counters on the target device 0.'\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv(ncu.NCU_ENV, str(fake))
    monkeypatch.setattr(profile, "FOLDER", tmp_path)
    assert profile.profile("day06", "rmsnorm", solutions=True) == 1
    lines = [ln for ln in capsys.readouterr().out.splitlines() if "ERR_NVGPUCTRPERM" in ln]
    assert len(lines) == 1 and lines[0].startswith("day06/rmsnorm: the GPU does not let this user read")


def test_bad_requests_are_one_line(capsys):
    assert cli.main(["profile", "day06", "--timeline"]) == 2
    assert "--timeline is for the capstone" in capsys.readouterr().err
    assert cli.main(["profile", "day14", "append_kv"]) == 2
    assert "has no benchmark" in capsys.readouterr().err
    assert cli.main(["profile", "day14"]) == 2
    assert "--timeline profiles the capstone" in capsys.readouterr().err
    assert cli.main(["profile", "day06", "nope"]) == 2
    assert "has no exercise 'nope'" in capsys.readouterr().err


# ---- the emulator's estimates ------------------------------------------------------------------------

def test_occupancy_as_the_calculator_computes_it():
    assert profile_estimates.occupancy(256, 54, 1024) == (0.5, "registers", 4)       # 1792 regs a warp
    assert profile_estimates.occupancy(128, 32, 100 << 10) == (0.125, "shared memory", 2)
    assert profile_estimates.occupancy(1024, 32, 0) == (1.0, "registers and block size (warps per SM)", 2)
    assert profile_estimates.occupancy(32, 16, 0) == (0.5, "blocks per SM", 32)
    assert profile_estimates.occupancy(128, 255, 0) == (0.125, "registers", 2)      # 8192 regs a warp


STRIDED = r"""
extern "C" __global__ void strided(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = in[i * 8];                          // 8 floats apart: every lane its own 32-byte sector
  if (threadIdx.x % 2) v += in[i * 8 + 1];      // the odd lanes only: 16 threads of 32
  out[i] = v;
}
"""


def test_recording_counts_on_a_planted_kernel(monkeypatch):
    """64 threads (2 warps). Per warp: the strided load touches 32 sectors (ideal 4), the odd lanes'
    load 16 (ideal 2), the store 4 (ideal 4); fewer than 32 threads per warp instruction on average."""
    monkeypatch.setenv(device.BACKEND_ENV, "emulator")
    from grader import emulator

    kernel = emulator.load_source(STRIDED, "strided.cu").get_function("strided")
    x = emulator.DeviceArray.from_host(np.arange(64 * 8, dtype=np.float32))
    out = emulator.DeviceArray.empty(64, np.float32)
    with profile_estimates.recording() as records:
        kernel((1,), (64,), (x, out, np.int32(64)))
    i = np.arange(64)
    assert np.array_equal(out.get(), 8 * i + np.where(i % 2, 8 * i + 1, 0))
    (record,) = records
    g = profile_estimates.memory(record)["global"]
    assert (g["requests"], g["sectors"], g["ideal"], g["bytes"]) == (6, 2 * (32 + 16 + 4), 2 * (4 + 2 + 4),
                                                                     64 * 4 + 32 * 4 + 64 * 4)
    code = record.launch.program.code
    loads = [pc for pc, op in enumerate(code) if op.inst.opcode.startswith("ld.global")]
    assert [record.warps[pc] for pc in loads] == [2, 2]
    mix = profile_estimates.mix(record)
    assert mix["global memory"] == 6 and sum(mix.values()) == record.launch.instructions
    rows = profile_estimates.rows(record, {"registers": 16, "shared": 0})
    assert rows["sectors"] == f"{104 / 6:.2f} (ideal {20 / 6:.2f})"
    assert float(rows["active_threads"].split()[0]) < 32
    assert rows["theoretical"] == "100% (32 blocks of 64 threads; limiter: block size (warps per SM) and blocks per SM)"
    # the emulator is left as it was: a later launch is not recorded
    kernel((1,), (64,), (x, out, np.int32(64)))
    assert len(records) == 1


def test_the_ncu_child_profiles_each_call_once_after_a_warm_up(monkeypatch):
    """The child's side of the ncu run, on whatever backend is here: a small benchmark of RMSNorm; each
    call for the kernel runs once to warm up, then the marker (grid = call number) and the call between
    cudaProfilerStart and Stop; the ceiling is not run at all."""
    from grader import bench
    from grader.exercises import day06

    events = []

    @contextlib.contextmanager
    def profiler_range():
        events.append("start")
        yield
        events.append("stop")

    monkeypatch.setattr(profile, "_profiler_range", profiler_range)
    monkeypatch.setenv(paths.KERNELS_ENV, "solutions")
    launched = []
    real_launch = device.launch

    def small_bench(modules, quick=False):
        report = bench.Report("rmsnorm, small", "rows", "GB/s")
        for label, module in modules.items():
            report.series[label] = []
            for rows in (3, 5):
                x, out, w = (device.asarray(np.ones(s, np.float16)) for s in ((rows, 256), (rows, 256), 256))

                def run(rows=rows, x=x, out=out, w=w, module=module):
                    launched.append(("rmsnorm", rows, events.count("start")))
                    day06._norm_launch(module, "rmsnorm", "float16", out, x, w, rows, 256)

                report.series[label].append(bench.measure(label, run, size=rows, nbytes=4 * rows * 256))
        report.ceiling = [bench.measure("copy (ceiling)", lambda: launched.append(("ceiling",)), size=r,
                                        nbytes=4 * r * 256) for r in (3, 5)]
        return report

    def launch(kernel, grid, block, args, **kw):
        if getattr(kernel, "name", "") == ncu.MARK_KERNEL:
            launched.append(("mark", grid[0], events.count("start")))
        return real_launch(kernel, grid, block, args, **kw)

    monkeypatch.setattr(device, "launch", launch)
    ex = exercises.get("day06", "rmsnorm")
    small = dataclasses.replace(ex, bench=small_bench, cases=({"rows": 3, "d": 256, "dtype": "float16", "gemma": False},))
    found = profile._ncu_calls(small, compare=False)
    assert found["calls"] == [{"label": "solution", "size": 3, "nbytes": 3072, "flops": 0.0},
                              {"label": "solution", "size": 5, "nbytes": 5120, "flops": 0.0}]
    assert found["xlabel"] == "rows" and events == ["start", "stop"] * 2
    # warm-up outside the range, then the marker and the call inside it
    assert launched == [("rmsnorm", 3, 0), ("mark", 1, 1), ("rmsnorm", 3, 1),
                        ("rmsnorm", 5, 1), ("mark", 2, 2), ("rmsnorm", 5, 2)]


def test_instruction_kinds():
    kinds = {"ld.global.nc.v4.u32": "global memory", "st.shared.f32": "shared memory",
             "ldmatrix.sync.aligned.m8n8.x4.shared.b16": "shared memory", "cp.async.cg.shared.global": "global memory",
             "cp.async.wait_group": "barriers and waits", "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32":
             "tensor core (mma)", "ex2.approx.ftz.f32": "special functions (MUFU)", "fma.rn.f32": "floating point",
             "shfl.sync.bfly.b32": "warp shuffles and votes", "bar.sync": "barriers and waits",
             "add.s32": "integer and logic", "cvt.rn.f16.f32": "conversions and moves", "ld.param.u64":
             "other memory (param, local, generic)"}
    assert {k: profile_estimates.category(k) for k in kinds} == kinds


def test_emulator_table_for_rmsnorm(monkeypatch, capsys):
    """`profile day06 rmsnorm --solutions` without a GPU: the estimates table (CI runs this)."""
    monkeypatch.setenv(device.BACKEND_ENV, "emulator")
    assert cli.main(["profile", "day06", "rmsnorm", "--solutions"]) == 0
    text = capsys.readouterr().out
    assert "rmsnorm_f16 (ESTIMATES from the PTX emulator" in text and "solution (est.)" in text
    for _, title, _ in profile.rows():
        assert title in text
    assert "16.00 (ideal 16.00)" in text                       # 16-byte loads, perfectly coalesced
    registers = sass.load(paths.SOLUTIONS / "day06" / "rmsnorm.cu", "sm_90")[2]["rmsnorm_f16"]["registers"]
    frac, limiter, blocks = profile_estimates.occupancy(256, registers, 0)
    assert re.search(rf"{frac:.0%} \({blocks} blocks of 256 threads; limiter: {re.escape(limiter)}\)", text)
    assert "memory instructions furthest from their ideal" in text and "rmsnorm.cu:" in text
    assert all(meaning in text for _, _, meaning in profile.rows())  # the legend
    assert "largest case that runs here, rows=257-d=4096" in text


def test_emulator_timeline(monkeypatch, capsys):
    monkeypatch.setenv(device.BACKEND_ENV, "emulator")
    assert cli.main(["profile", "day14", "--timeline", "--solutions"]) == 0
    text = capsys.readouterr().out
    assert "per-stage counts, ESTIMATES" in text
    from grader.exercises import capstone

    for stage in capstone.STAGES:
        assert stage.name in text
    for kernel in ("rmsnorm_f16", "gemm_f16", "append_kv_f16", "silu_and_mul_f16"):
        assert kernel in text


# ---- on a GPU with Nsight Compute ----------------------------------------------------------------------

def _needs_ncu():
    if device.why_not_hardware():
        pytest.skip(f"profiling with Nsight Compute needs a CUDA GPU ({device.why_not_hardware()})")
    if ncu.find_tool("ncu", ncu.NCU_ENV) is None:
        pytest.skip(f"Nsight Compute (ncu) is not installed (PATH, {ncu.NCU_ENV})")


def _value(cell: str) -> float:
    return float(re.match(r"[\d,.]+", cell).group().replace(",", ""))


@pytest.mark.gpu
def test_rmsnorm_profile_is_near_dram_peak_and_agrees_with_bench(monkeypatch):
    _needs_ncu()
    monkeypatch.setenv(paths.KERNELS_ENV, "solutions")
    ex = exercises.get("day06", "rmsnorm")
    found = profile.collect(ex, solutions=True)
    table = next(t for t in found["tables"] if t["kernel"] == "rmsnorm_f16")
    rows = table["columns"]["solution float16"]
    assert _value(rows["dram"]) > 85, rows
    bench_gbps = runner.bench(ex, quick=True).series["solution float16"][-1].gbps
    profiled = _value(rows["throughput"])
    assert abs(profiled - bench_gbps) / bench_gbps < 0.10, (profiled, bench_gbps)
    assert found["report"].is_file()


@pytest.mark.gpu
def test_gemm_profile_shows_the_tensor_pipe():
    _needs_ncu()
    found = profile.collect(exercises.get("day10", "gemm"), solutions=True)
    rows = next(t for t in found["tables"] if t["kernel"].startswith("gemm"))["columns"]["solution"]
    assert _value(rows["tensor"]) > 10, rows
    assert "limiter" in rows["theoretical"] and rows["stalls"] != "n/a"


@pytest.mark.gpu
def test_compare_shows_both_versions(tmp_path):
    _needs_ncu()
    shutil.copy(paths.SOLUTIONS / "day06" / "rmsnorm.cu", tmp_path / "rmsnorm.cu")
    found = profile.collect(exercises.get("day06", "rmsnorm"), compare=True, source_dir=str(tmp_path))
    table = next(t for t in found["tables"] if t["kernel"] == "rmsnorm_f16")
    assert set(table["columns"]) == {"yours float16", "solution float16"}
    yours, solution = (_value(table["columns"][k]["duration"]) for k in ("yours float16", "solution float16"))
    assert abs(yours - solution) / solution < 0.15  # the same kernel twice
    assert json.loads((profile.FOLDER / "day06-rmsnorm-compare.json").read_text())["calls"]


@pytest.mark.gpu
@pytest.mark.parametrize("day, name, prefix", [("day15", "gemm_persistent", "gemm_persistent"),
                                               ("day16", "attention_wgmma", "attention_wgmma")])
def test_hopper_benchmarks_are_profiled(day, name, prefix):
    """Days 15-16 time their kernels in turns (bench.measure_interleaved): the profile child sees those
    launches too (ncu once profiled no kernel there)."""
    _needs_ncu()
    if device.properties()["sm"] != "sm_90":
        pytest.skip("wgmma and TMA need sm_90a (an H100 or H200)")
    found = profile.collect(exercises.get(day, name), solutions=True)
    table = next(t for t in found["tables"] if t["kernel"].startswith(prefix))
    rows = table["columns"]["solution"]
    assert _value(rows["tensor"]) > 30, rows
    assert _value(rows["duration"]) > 0
