"""Day 16 (Hopper, sm_90a): FlashAttention-3-style prefill: TMA, wgmma for S = Q K^T and O += P V (P from
registers, V MN-major), built as a ladder of three rungs in one file, each a family of kernels: the online
softmax between the GEMMs (serial), overlapped with them inside a warpgroup, then across two (ping-pong).
Each rung's benchmark draws the rung below it beside it.

The kernels compile for sm_90a only: on another GPU the checks skip with that reason, and without a GPU
the emulator runs them (wgmma, TMA, mbarrier, bar.arrive). References and FLOP counts are day 12's.
"""
from __future__ import annotations

import math

import numpy as np

from grader import bench, checks, device, tensor_map
from grader.exercises import Exercise
from grader.messages import phrased, say
from grader.launchers.prepared import prepared_launch
from grader.references.prefill_attention import (BENCH_DIM, DTYPE, HEADS, attention_flops, attention_keys,
                                                attention_queries, attention_reference, bench_shapes, sdpa_ceiling)
from grader.technique import Technique

BM, BN, STAGES, THREADS = 128, 128, 3, 384  # attention_wgmma.cu's query tile, key tile, stages, threads
HEAD_DIMS = (64, 128)
#: The rungs, in order: (kernel name prefix, what it adds) in attention_wgmma.cu.
RUNGS = (("attention_wgmma_serial", "serial"), ("attention_wgmma_overlap", "overlap in a warpgroup"),
         ("attention_wgmma", "ping-pong"))


def shared_bytes(head_dim: int) -> int:
    """Q tile, STAGES K and V tiles, barriers, 1024 bytes of alignment slack."""
    return BM * head_dim * 2 + STAGES * 2 * BN * head_dim * 2 + 8 * (1 + 2 * STAGES) + 1024


def prepare(module, q, k, v, out, heads: int, seq: int, head_dim: int, causal: bool,
            prefix: str = "attention_wgmma"):
    """The launch of a rung's kernel (`prefix`, one of RUNGS) on device arrays q, k, v, out [heads, seq,
    head_dim] (fp16), its tensor maps built once: `run()` enqueues it, `run(sync=True)` waits and names a fault."""
    if head_dim not in HEAD_DIMS:
        raise ValueError(say("day16.head_dim", head_dim=head_dim, dims=HEAD_DIMS))
    if seq < 1 or heads < 1:
        raise ValueError(say("day16.sizes", heads=heads, seq=seq))
    name = f"{prefix}_d{head_dim}{'_causal' if causal else ''}"
    maps = [tensor_map.tensor_map(x.reshape(heads * seq, head_dim), (BM, 64), 128) for x in (q, k, v)]
    args = (*maps, out, np.int32(seq), np.float32(math.log2(math.e) / math.sqrt(head_dim)))
    return prepared_launch(module, name, (-(-seq // BM), heads), THREADS, args, shared_bytes(head_dim),
                           f"{name} (heads={heads}, seq={seq})", (q, k, v, out))


def check_rung(prefix: str, module, seed: int, heads: int, seq: int, head_dim: int, causal: bool,
               logits: str = "normal") -> None:
    """o of one rung's kernel against day 12's float64 reference, fp16 tolerance; large logits growing
    along the keys ("rising", "falling") catch a softmax without its running maximum."""
    rng = np.random.default_rng(seed)
    dt = device.dtype(DTYPE)
    q = attention_queries(rng, (heads, seq, head_dim), logits).astype(dt)
    k = attention_keys(rng, heads, seq, head_dim, logits).astype(dt)
    v = rng.standard_normal((heads, seq, head_dim)).astype(dt)
    out = device.empty((heads, seq, head_dim), DTYPE)
    prepare(module, *(device.asarray(x) for x in (q, k, v)), out, heads, seq, head_dim, causal, prefix)(sync=True)
    mask = "causal" if causal else "no mask"
    checks.assert_close(device.to_host(out), attention_reference(q, k, v, causal), dt=DTYPE, seed=seed,
                        name=f"{prefix}_d{head_dim} out (heads={heads}, seq={seq}, {mask})")


def check_serial(module, seed: int, heads: int, seq: int, head_dim: int, causal: bool,
                 logits: str = "normal") -> None:
    check_rung("attention_wgmma_serial", module, seed, heads, seq, head_dim, causal, logits)


def check_overlap(module, seed: int, heads: int, seq: int, head_dim: int, causal: bool,
                  logits: str = "normal") -> None:
    check_rung("attention_wgmma_overlap", module, seed, heads, seq, head_dim, causal, logits)


def check_attention(module, seed: int, heads: int, seq: int, head_dim: int, causal: bool,
                    logits: str = "normal") -> None:
    check_rung("attention_wgmma", module, seed, heads, seq, head_dim, causal, logits)


def _sdpa_backends(q, k, v, batch: int, seq: int, causal: bool) -> dict:
    """{label: launch} of torch's SDPA on the same arrays (DLPack, no copy): its default choice and each
    backend this torch has (flash, cuDNN, memory-efficient); {} without torch."""
    try:
        import torch
        from torch.nn.attention import SDPBackend, sdpa_kernel
    except ImportError:
        return {}
    tq, tk, tv = (torch.from_dlpack(x).view(batch, HEADS, seq, BENCH_DIM) for x in (q, k, v))
    f = torch.nn.functional.scaled_dot_product_attention
    runs = {"torch SDPA default": lambda: f(tq, tk, tv, is_causal=causal)}
    for label, backend in (("flash", SDPBackend.FLASH_ATTENTION), ("cuDNN", SDPBackend.CUDNN_ATTENTION),
                           ("efficient", SDPBackend.EFFICIENT_ATTENTION)):
        def run(backend=backend):
            with sdpa_kernel(backend):
                f(tq, tk, tv, is_causal=causal)
        try:
            run()
        except RuntimeError:  # not built for this GPU or these shapes
            continue
        runs[f"torch SDPA {label}"] = run
    return runs


def _earlier(modules: dict, rung: int, causal: bool) -> tuple[dict, list[str]]:
    """({label: module} of the rung below `rung` in each module, checked on one mid-sized case first (a
    wrong kernel's speed means nothing), notes for those left out); ({}, []) for the first rung."""
    if rung == 0:
        return {}, []
    prefix, what = RUNGS[rung - 1]
    found, notes = {}, []
    for label, module in modules.items():
        name = f"previous rung, {what} ({label})"
        try:
            check_rung(prefix, module, 16, heads=2, seq=300, head_dim=BENCH_DIM, causal=causal)
        except (AssertionError, device.KernelFault) as e:
            notes.append(say("day16.not_timed", name=phrased(name), error=str(e).splitlines()[0]))
            continue
        found[name] = module
    return found, notes


def _bench(modules: dict, rung: int, causal: bool, quick: bool) -> bench.Report:
    """TFLOP/s of a rung (RUNGS[rung]) and of the rung below it, from the same modules, against the best of
    torch's SDPA backends (each named in the notes), same inputs, timed in turns with the kernels; without
    torch, day 12's flash anchor. The rung below is drawn for comparison, not held to the target."""
    device.require_gpu()
    prefix, what = RUNGS[rung]
    mask = "causal" if causal else "non-causal"
    report = bench.Report(f"{prefix} ({what}), fp16 {mask}, {HEADS} heads, d {BENCH_DIM}, batch x seq = 16384",
                          "sequence length (q_len = kv_len)", "TFLOP/s")
    earlier, report.notes = _earlier(modules, rung, causal)
    report.earlier = tuple(earlier)
    for batch, seq in bench_shapes(quick):
        heads = batch * HEADS
        q, k, v = (device.random((heads, seq, BENCH_DIM), DTYPE, seed=i) for i in range(3))
        out = device.empty((heads, seq, BENCH_DIM), DTYPE)
        flops = attention_flops(heads, seq, seq, BENCH_DIM, causal)
        runs = {label: prepare(m, q, k, v, out, heads, seq, BENCH_DIM, causal, prefix) for label, m in modules.items()}
        runs |= {label: prepare(m, q, k, v, out, heads, seq, BENCH_DIM, causal, RUNGS[rung - 1][0])
                 for label, m in earlier.items()}
        for run in runs.values():
            run(sync=True)
        torch_runs = _sdpa_backends(q, k, v, batch, seq, causal)
        found = bench.measure_interleaved({**runs, **torch_runs}, size=seq, flops=flops)
        for label in runs:
            report.series.setdefault(label, []).append(found[label])
        if torch_runs:
            best = max(torch_runs, key=lambda label: found[label].tflops)
            report.ceiling.append(found[best])
            if found[best].timed:  # untimed under the profiler: no figures to name
                report.notes.append(say("day16.sdpa", seq=seq, best=best, rates=", ".join(
                    f"{label} {found[label].tflops:.0f}" for label in torch_runs)))
        else:
            report.ceiling.append(sdpa_ceiling(q, k, v, batch, HEADS, seq, BENCH_DIM, causal, flops))
        del q, k, v, out
    report.ceiling_name = "the best torch SDPA backend"
    return report


def bench_serial(modules: dict, quick: bool = False) -> bench.Report:
    return _bench(modules, 0, False, quick)


def bench_overlap(modules: dict, quick: bool = False) -> bench.Report:
    return _bench(modules, 1, False, quick)


def bench_attention(modules: dict, quick: bool = False) -> bench.Report:
    return _bench(modules, 2, False, quick)


def bench_attention_causal(modules: dict, quick: bool = False) -> bench.Report:
    return _bench(modules, 2, True, quick)


_SERIAL_WHY = ("wgmma for both products (HGMMA, P from registers), TMA loads (UTMALDG) on mbarriers (SYNCS) and the "
               "softmax on the SFU (MUFU.EX2)")
_OVERLAP_LINE = (r"WARPGROUP\.DEPBAR\.LE\s+gsb0,\s*0x1", "wgmma_wait<1>: P V left in flight during the softmax")
# The overlap itself: a tile's exponentials between wgmma_wait<1> and wgmma_wait<0> (the course's kernels have
# 66 there, 33 in one window of two at d 128 causal); a wait<0> straight after the wait<1> leaves none.
_OVERLAP_WINDOW = (r"WARPGROUP\.DEPBAR\.LE\s+gsb0,\s*0x1", r"WARPGROUP\.DEPBAR\.LE\s+gsb0,\s*0x0", r"MUFU\.EX2", 16,
                   "softmax (MUFU.EX2) between wgmma_wait<1> and wgmma_wait<0>, while P V runs")


def _technique(rung: int, kernels: tuple[str, ...]) -> Technique:
    """What a rung's kernels must show: rung 0 the serial technique, rung 1 adds one wgmma group in flight
    during the softmax (WARPGROUP.DEPBAR.LE gsb0, 0x1: the serial schedule has only 0x0), rung 2 adds the
    warpgroups' turns (BAR.ARV)."""
    why = _SERIAL_WHY
    if rung:
        why += ", one wgmma group left in flight while it runs (WARPGROUP.DEPBAR.LE gsb0, 0x1)"
    if rung == 2:
        why += ", and warpgroups taking turns (BAR.ARV)"
    require = (r"HGMMA", r"UTMALDG", r"SYNCS", r"MUFU\.EX2") + ((r"BAR\.ARV",) if rung == 2 else ())
    return Technique(why=why, require=require, forbid=(r"LDG", r"HMMA"), no_spills=True, kernels=kernels,
                     require_lines=(_OVERLAP_LINE,) if rung else (), require_between=(_OVERLAP_WINDOW,) if rung else ())


def _kernels(prefix: str, causal: tuple[bool, ...]) -> tuple[str, ...]:
    return tuple(f"{prefix}_d{d}{'_causal' if c else ''}" for c in causal for d in HEAD_DIMS)


def emulator_cost(case: dict) -> int:
    """The work of a case: every query meets every key (half of them, causal), d multiply-adds each."""
    return case["heads"] * case["seq"] ** 2 * case["head_dim"] // (2 if case["causal"] else 1)


def _cases(causal: bool) -> tuple[dict, ...]:
    rows = ((1, 1, 64), (3, 200, 64), (2, 129, 128), (1, 520, 128), (2, 1000, 64), (1, 200, 128, "rising"),
            (1, 150, 64, "falling"), (2, 4096, 128))
    return tuple({"heads": h, "seq": s, "head_dim": d, "causal": causal, **({"logits": r[0]} if r else {})}
                 for h, s, d, *r in rows)


# The hints of a rung: the softmax's (region 0) and its own schedule's (regions 1-3, in the file's order).
# Rungs 1 and 2, causal and not in one exercise each: one tile, s past one and several tiles, both head
# dims, a causal diagonal inside a tile; large logits growing along the keys (a softmax without the running
# maximum overflows); one large case last (the benchmark checks it first).
RUNG_CASES = tuple({"heads": h, "seq": s, "head_dim": d, "causal": c, **({"logits": r[0]} if r else {})}
                   for h, s, d, c, *r in ((1, 1, 64, False), (3, 200, 64, True), (2, 129, 128, False),
                                          (1, 520, 128, True), (2, 1000, 64, False), (1, 200, 128, False, "rising"),
                                          (1, 150, 64, True, "falling"), (2, 4096, 128, False)))

EXERCISES = (
    Exercise("day16", "attention_wgmma_serial", "attention_wgmma.cu",
             "rung 1: wgmma and TMA, the online softmax between S = Q K^T and O += P V, one tile at a time",
             check_serial, RUNG_CASES, bench=bench_serial, cost=emulator_cost, hint_parts=(0, 1),
             technique=(_technique(0, _kernels("attention_wgmma_serial", (False, True))),)),
    Exercise("day16", "attention_wgmma_overlap", "attention_wgmma.cu",
             "rung 2: the softmax of S_{j+1} overlapped with P_j V_j inside a warpgroup (wgmma_wait<1>)",
             check_overlap, RUNG_CASES, bench=bench_overlap, cost=emulator_cost, hint_parts=(0, 2),
             technique=(_technique(1, _kernels("attention_wgmma_overlap", (False, True))),)),
    Exercise("day16", "attention_wgmma", "attention_wgmma.cu",
             "rung 3, FlashAttention-3-style prefill: the overlap of rung 2 and ping-pong between two warpgroups",
             check_attention, _cases(False), bench=bench_attention, target=1.0,
             cost=emulator_cost, hint_parts=(0, 3),
             technique=(_technique(2, _kernels("attention_wgmma", (False,))),)),
    Exercise("day16", "attention_wgmma_causal", "attention_wgmma.cu",
             "rung 3, causal: tiles past the diagonal skipped, the diagonal tile masked",
             check_attention, _cases(True), bench=bench_attention_causal, target=1.0,
             cost=emulator_cost, hint_parts=(0, 3),
             technique=(_technique(2, _kernels("attention_wgmma", (True,))),)),
)
