"""Day 7: asynchronous copies (cp.async) by hand, zero-fill at the end of the data, a double buffer,
multi-stage pipelines, the pipeline with 2D tiles (q . K over the rows of K), and week 1's open design:
column sums at the speed of memory, the launch and tiles the student's own."""
from __future__ import annotations

import numpy as np

from grader import bench, checks, device
from grader.exercises import Exercise, open_design
from grader.messages import say
from grader.technique import Technique

BLOCK = 256   # threads per block: both day 7 files are written for exactly this many

# ---- async copy: 4, 8 and 16 bytes per cp.async -------------------------------------------------

COPY_BYTES = (4, 8, 16)


def copy_tile(copy_bytes: int) -> int:
    """Floats one block of async_copy_<copy_bytes>b stages: 256 threads, one copy each."""
    if copy_bytes not in COPY_BYTES:
        raise ValueError(say("day07.copy_bytes", copy_bytes=copy_bytes, sizes=COPY_BYTES))
    return BLOCK * copy_bytes // 4


def check_async_copy(module, seed: int, n: int, copy_bytes: int) -> None:
    """out is n rounded up to whole tiles and poisoned with NaN: out[:n] must equal in exactly (a copy
    does no arithmetic), and out[n:] must be exactly 0.0, the zero-fill of the copies past the end."""
    tile = copy_tile(copy_bytes)
    if n < 1:
        raise ValueError(say("day07.n", n=n))
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(n, dtype=np.float32)
    blocks = -(-n // tile)
    out = device.empty(blocks * tile)
    device.launch(module.get_function(f"async_copy_{copy_bytes}b"), (blocks,), (BLOCK,),
                  (device.asarray(x), out, np.int64(n)), what=f"async_copy_{copy_bytes}b")
    got = device.to_host(out)
    exact = checks.Tolerance(0.0, 0.0, False)
    checks.assert_close(got[:n], x.astype(np.float64), tol=exact, seed=seed,
                        name=f"async_copy_{copy_bytes}b out[:n] (n={n})")
    checks.assert_close(got[n:], np.zeros(got.size - n), tol=exact, seed=seed,
                        name=say("name.day07.tail", copy_bytes=copy_bytes, n=n))


# ---- double buffer ------------------------------------------------------------------------------

def check_double_buffer(module, seed: int, n: int, blocks: int) -> None:
    """alpha * in in float32 against float64, on `blocks` blocks, each walking many tiles."""
    _check_scaled(module, "double_buffer", seed, n, blocks)


# ---- N-stage pipeline ---------------------------------------------------------------------------

STAGES = (1, 2, 3, 4, 6, 8)
BENCH_N = 1 << 26         # 256 MiB read + 256 MiB written: far larger than L2
BENCH_BLOCKS_PER_SM = 1   # a persistent grid of 8 warps per SM: too few to hide latency without stages


def _pipe_launch(module, stages: int, x, out, alpha: float, n: int, blocks: int, sync=True):
    if stages not in STAGES:
        raise ValueError(say("day07.stages", stages=stages, known=STAGES))
    kernel = module.get_function(f"pipeline_s{stages}")
    args = (x, out, np.float32(alpha), np.int64(n))
    if sync:
        device.launch(kernel, (blocks,), (BLOCK,), args, what=f"pipeline_s{stages} ({blocks} blocks)")
    else:
        kernel((blocks,), (BLOCK,), args)


def _check_scaled(module, kernel: str, seed: int, n: int, blocks: int) -> None:
    """Launch `kernel`(in, out, alpha, n) on `blocks` blocks: alpha * in in float32 (one rounding)
    against float64; with `blocks` well under the number of tiles each block walks its buffers many
    times, wrapping around at odd tile counts."""
    if n < 1 or blocks < 1:
        raise ValueError(say("day07.n_blocks", n=n, blocks=blocks))
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(n, dtype=np.float32)
    alpha = float(rng.uniform(0.5, 2.0))
    out = device.empty(n + 1, guard=1)  # one extra element that must stay untouched
    device.launch(module.get_function(kernel), (blocks,), (BLOCK,),
                  (device.asarray(x), out, np.float32(alpha), np.int64(n)), what=f"{kernel} ({blocks} blocks)")
    got = device.to_host(out)
    where = f"(n={n}, blocks={blocks})"
    checks.assert_close(got[:n], np.float64(np.float32(alpha)) * x.astype(np.float64), seed=seed,
                        name=f"{kernel} out {where}")
    checks.assert_untouched(got[n:], np.ones(1, bool), seed=seed,
                            name=say("name.day07.past", what=f"{kernel} out", where=where))


def check_pipeline(module, seed: int, n: int, stages: int, blocks: int) -> None:
    """The same check as double_buffer's, for the kernel of `stages` stages."""
    if stages not in STAGES:
        raise ValueError(say("day07.stages", stages=stages, known=STAGES))
    _check_scaled(module, f"pipeline_s{stages}", seed, n, blocks)


def bench_pipeline(modules: dict, quick: bool = False) -> bench.Report:
    """Bandwidth (4 bytes read + 4 written per float) against the number of stages, on a persistent
    grid of one block per SM; the copy of the same bytes as the ceiling."""
    device.require_gpu()
    n = BENCH_N
    blocks = BENCH_BLOCKS_PER_SM * device.properties()["sms"]
    x = device.random(n)
    out = device.empty(n)
    report = bench.Report(f"pipelined alpha * x, {n >> 20} Mi floats, {blocks} blocks of {BLOCK}",
                          "pipeline stages", "GB/s")

    def make(module, stages: int):
        return lambda: _pipe_launch(module, stages, x, out, 1.5, n, blocks, sync=False)

    return bench.bandwidth_sweep(report, modules, make, STAGES, 8 * n, xs=STAGES)


PIPE_CASES = ({"n": 1, "stages": 1, "blocks": 1}, {"n": 31, "stages": 2, "blocks": 1},
              {"n": 33, "stages": 8, "blocks": 2}, {"n": 1023, "stages": 3, "blocks": 1},
              {"n": 1025, "stages": 4, "blocks": 3}, {"n": 100_003, "stages": 6, "blocks": 5},
              {"n": 100_003, "stages": 8, "blocks": 7}, {"n": 65_536, "stages": 1, "blocks": 3},
              {"n": 1_000_001, "stages": 2, "blocks": 64}, {"n": 1_000_001, "stages": 3, "blocks": 1},
              {"n": 1_000_001, "stages": 4, "blocks": 264}, {"n": 1_000_001, "stages": 6, "blocks": 977},
              {"n": (1 << 24) + 3, "stages": 8, "blocks": 264})

# ---- q . K over a long K, through the pipeline ---------------------------------------------------

QK_D = 64      # qk_scores.cu: floats per row of K
U32 = 2.0 ** -24


def check_qk_scores(module, seed: int, n: int, blocks: int) -> None:
    """scores[j] = q . K[j] in float32 against float64, within 2 * 64 * 2^-24 * sum_c |q_c K_jc| (a
    64-term float32 dot product in any order of additions); scores[n] is left alone."""
    if n < 1 or blocks < 1:
        raise ValueError(say("day07.n_blocks", n=n, blocks=blocks))
    rng = np.random.default_rng(seed)
    q = rng.standard_normal(QK_D, dtype=np.float32)
    k = rng.standard_normal((n, QK_D), dtype=np.float32)
    scores = device.empty(n + 1, guard=1)
    device.launch(module.get_function("qk_scores"), (blocks,), (BLOCK,),
                  (device.asarray(q), device.asarray(k), scores, np.int64(n)), what=f"qk_scores ({blocks} blocks)")
    got = device.to_host(scores)
    k64, q64 = k.astype(np.float64), q.astype(np.float64)
    bound = 2 * QK_D * U32 * float((np.abs(k64) @ np.abs(q64)).max())
    where = say("name.day07.qk_where", n=n, blocks=blocks)
    checks.assert_close(got[:n], k64 @ q64, tol=checks.Tolerance(0.0, bound, False), seed=seed,
                        name=say("name.day07.allowed", what=say("name.day07.qk", where=where), bound=bound))
    checks.assert_untouched(got[n:], np.ones(1, bool), seed=seed,
                            name=say("name.day07.past", what="qk_scores", where=where))


# ---- open design: column sums ------------------------------------------------------------------

# Each design shape: (the emulator's matrix, the GPU's matrix: 2^26 floats, far larger than L2). The
# self-check grades the first three; the last two are for hidden tests.
DESIGN_SHAPES = {"tall": ((4096, 32), (1 << 21, 32)), "square": ((384, 384), (8192, 8192)),
                 "wide": ((64, 2048), (64, 1 << 20)), "tall64": ((2048, 64), (1 << 20, 64)),
                 "wide16": ((16, 8192), (16, 1 << 22))}
SELF_CHECK_SHAPES = ("tall", "square", "wide")


def _colsum(module, x, m: int, n: int, sms: int, what: str):
    """The [n] sums of device matrix x, and the plan colsum_plan wrote (open_design.run)."""
    return open_design.run(module, "colsum", (x,), (np.int64(m), np.int32(n)), n, sms, what)


def _assert_sums(got, x: np.ndarray, seed: int, what: str) -> None:
    """Within M * 2^-24 * max_j sum_i |x[i, j]|: float32 additions in any order."""
    x64 = x.astype(np.float64)
    bound = x.shape[0] * U32 * float(np.abs(x64).sum(axis=0).max())
    checks.assert_close(got, x64.sum(axis=0), tol=checks.Tolerance(0.0, bound, False), seed=seed,
                        name=say("name.day07.allowed", what=f"colsum {what}", bound=bound))


def _small_integers(rng: np.random.Generator, m: int, n: int) -> np.ndarray:
    """+-(1..8) as float32: with M <= 2^21 every partial sum, in any order, is an integer of at most 2^24,
    exact in float32, so the column sums must match exactly (a lost or doubled element always shows)."""
    return (rng.integers(1, 9, (m, n)) * rng.choice(np.array([-1, 1]), (m, n))).astype(np.float32)


def _assert_exact(got, ints: np.ndarray, seed: int, what: str) -> None:
    checks.assert_close(got, ints.astype(np.float64).sum(axis=0), tol=checks.Tolerance(0.0, 0.0, False), seed=seed,
                        name=say("name.day07.exact", what=what))


def check_colsum(module, seed: int, m: int, n: int) -> None:
    """Two matrices: small integers (the sums must match exactly, whatever the order), then normal floats
    within M * 2^-24 * max_j sum_i |x[i, j]|."""
    if m < 1 or n < 1:
        raise ValueError(say("day07.m_n", m=m, n=n))
    rng = np.random.default_rng(seed)
    sms = device.properties()["sms"]
    ints = _small_integers(rng, m, n)
    got, _ = _colsum(module, device.asarray(ints), m, n, sms, f"(M={m}, N={n}, integers)")
    _assert_exact(got, ints, seed, f"(M={m}, N={n})")
    x = rng.standard_normal((m, n), dtype=np.float32)
    got, _ = _colsum(module, device.asarray(x), m, n, sms, f"(M={m}, N={n})")
    _assert_sums(got, x, seed, f"(M={m}, N={n})")


def check_colsum_design(module, seed: int, shape: str) -> None:
    """The design at one shape: on a GPU the full-size matrix, right and at 75% of the copy bandwidth or
    more; on the emulator a smaller one, right, with loads coalesced, wide and read once, shared memory
    free of bank conflicts, and the plan for the full size launching enough threads."""
    if shape not in DESIGN_SHAPES:
        raise ValueError(say("arg.one_of", what="shape", value=shape, known=", ".join(DESIGN_SHAPES)))
    small, full = DESIGN_SHAPES[shape]
    rng = np.random.default_rng(seed)
    timed = bench.timed()
    m, n = full if timed else small
    what = f"({shape}: M={m}, N={n})"
    x = _small_integers(rng, m, n)  # at 2^21 rows a float bound would pass sums never written
    xd = device.asarray(x)
    sms = device.properties()["sms"] if timed else open_design.GPU_SMS
    got, plan = _colsum(module, xd, m, n, sms, what)
    _assert_exact(got, x, seed, what)
    open_design.judge(module, "colsum", plan, (xd,), (np.int64(m), np.int32(n)), n, x.nbytes, what,
                      full_sizes=(np.int64(full[0]), np.int32(full[1])), full_what=f"({shape}: M={full[0]}, N={full[1]})")


def bench_colsum(modules: dict, quick: bool = False) -> bench.Report:
    """Bytes of x read per second at the three design shapes (2^26 floats each), the copy of the same
    bytes (read + written) as the ceiling."""
    device.require_gpu()
    sms = device.properties()["sms"]
    names = list(SELF_CHECK_SHAPES)
    report = bench.Report("column sums, 2^26 floats: tall (N = 32), square, wide (M = 64)",
                          "shape (0 tall, 1 square, 2 wide)", "GB/s")
    inputs = {name: device.random(DESIGN_SHAPES[name][1]) for name in names}
    out = device.empty(max(DESIGN_SHAPES[name][1][1] for name in names))

    def make(module, name: str):
        m, n = DESIGN_SHAPES[name][1]
        plan = open_design.read_plan(module, "colsum", (np.int64(m), np.int32(n), np.int32(sms)), name)
        return lambda: open_design.launch(module, "colsum", plan, (inputs[name], out, np.int64(m), np.int32(n)),
                                          name, sync=False)

    return bench.bandwidth_sweep(report, modules, make, names, 4 << 26, xs=list(range(len(names))))


COLSUM_CASES = ({"m": 1, "n": 1}, {"m": 1, "n": 33}, {"m": 31, "n": 1}, {"m": 33, "n": 31}, {"m": 2, "n": 4},
                {"m": 1000, "n": 4}, {"m": 257, "n": 129}, {"m": 4099, "n": 32}, {"m": 3, "n": 10_000},
                {"m": 20_000, "n": 33}, {"m": 640, "n": 1028})


# ---- what each exercise must compile to ---------------------------------------------------------

CP_ASYNC = r"LDGSTS"
ASYNC_COPY_TECHNIQUE = (Technique(
    why="cp.async written by hand: your own inline PTX copies, committed and waited for",
    require=(CP_ASYNC, r"LDGDEPBAR", r"DEPBAR"), forbid=(r"LDG\.",),
    source_require=((r"cp\.async\.c[ag]\.shared\.global", "inline PTX cp.async.ca/.cg.shared.global"),
                    (r"cp\.async\.commit_group", "inline PTX cp.async.commit_group"),
                    (r"cp\.async\.wait_group", "inline PTX cp.async.wait_group")),
    source_forbid=((r"course/cp_async\.cuh", "the course's finished cp.async header"),)),)


def _pipelined(why: str) -> tuple:
    return (Technique(why=why, require=(CP_ASYNC, r"LDGDEPBAR", r"DEPBAR"), forbid=(r"LDG\.",)),)


DOUBLE_BUFFER_CASES = ({"n": 1, "blocks": 1}, {"n": 31, "blocks": 1}, {"n": 1023, "blocks": 2},
                       {"n": 1025, "blocks": 1}, {"n": 4097, "blocks": 2}, {"n": 100_003, "blocks": 5},
                       {"n": 1_000_001, "blocks": 132}, {"n": (1 << 24) + 3, "blocks": 264})
QK_CASES = ({"n": 1, "blocks": 1}, {"n": 31, "blocks": 1}, {"n": 33, "blocks": 1}, {"n": 129, "blocks": 2},
            {"n": 1000, "blocks": 3}, {"n": 4097, "blocks": 5}, {"n": 100_003, "blocks": 132},
            {"n": 1_000_001, "blocks": 264})

EXERCISES = (
    Exercise("day07", "async_copy", "async_copy.cu", "cp.async by hand: 4, 8, 16 bytes and zero-fill",
             check_async_copy,
             tuple({"n": n, "copy_bytes": b} for b in COPY_BYTES
                   for n in (1, 31, 33, 255, 1000, 4097, (1 << 20) + 3)),
             technique=ASYNC_COPY_TECHNIQUE),
    Exercise("day07", "double_buffer", "double_buffer.cu", "a cp.async double buffer: load one tile, use the other",
             check_double_buffer, DOUBLE_BUFFER_CASES,
             technique=_pipelined("a double buffer filled with cp.async (LDGSTS), one tile in flight")),
    Exercise("day07", "pipeline", "pipeline.cu", "an N-stage cp.async pipeline through shared memory",
             check_pipeline, PIPE_CASES, bench=bench_pipeline, target=0.85,
             technique=_pipelined("an N-stage ring of shared-memory tiles filled with cp.async (LDGSTS)")
             + tuple(Technique(why=f"keeping {s - 1} tile{'s' * (s > 2)} in flight while tile k is used",
                               kernels=(f"pipeline_s{s}",),
                               require_lines=((rf"\bDEPBAR\.LE SB0, {s - 1:#x}\b",
                                               f"cp.async.wait_group {s - 1} (DEPBAR.LE SB0, {s - 1:#x})"),))
                     for s in STAGES if s > 1)),
    Exercise("day07", "qk_scores", "qk_scores.cu", "q . K over the rows of K, through a 4-stage pipeline of 2D tiles",
             check_qk_scores, QK_CASES,
             technique=(Technique(why="2D tiles of K pipelined with cp.async (LDGSTS), reduced with warp shuffles",
                                  require=(CP_ASYNC, r"LDGDEPBAR", r"DEPBAR", r"SHFL\.BFLY"),
                                  forbid=(r"LDG\.E\.128",), kernels=("qk_scores",)),)),
    Exercise("day07", "colsum", "colsum.cu", "open design: column sums, right for every shape",
             check_colsum, COLSUM_CASES, bench=bench_colsum, target=0.80),
    Exercise("day07", "colsum_design", "colsum.cu", "open design: column sums at the speed of memory",
             check_colsum_design, tuple({"shape": s} for s in SELF_CHECK_SHAPES),
             cost=lambda case: DESIGN_SHAPES[case["shape"]][0][0] * DESIGN_SHAPES[case["shape"]][0][1],
             statistics=True),
)
