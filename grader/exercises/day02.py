"""Day 2: memory coalescing and vectorised access."""
from __future__ import annotations

import numpy as np

from grader import bench, checks, device
from grader.exercises import Exercise
from grader.messages import say
from grader.references.layers import silu_and_mul_reference
from grader.technique import Technique

SUFFIX = {"float32": "f32", "float16": "f16", "bfloat16": "bf16"}


# ---- strided gather -----------------------------------------------------------------------------

def _gather_launch(module, src, out, n_out: int, stride: int, sync=True):
    grid, block = (max(1, -(-n_out // 256)),), (256,)
    args = (src, out, np.int64(n_out), np.int64(stride))
    if sync:
        device.launch(module.get_function("strided_gather"), grid, block, args, what="strided_gather")
    else:
        module.get_function("strided_gather")(grid, block, args)


def check_strided_gather(module, seed: int, n_out: int, stride: int) -> None:
    rng = np.random.default_rng(seed)
    src = rng.standard_normal(max(1, (n_out - 1) * stride + 1), dtype=np.float32)
    out = device.empty(n_out + 1, "float32", guard=1)  # one extra element that must stay untouched
    _gather_launch(module, device.asarray(src), out, n_out, stride)
    got = device.to_host(out)
    # past n first: a kernel writing one element off also leaves element 0 unwritten
    checks.assert_untouched(got, np.arange(n_out + 1) == n_out, name=say("name.day02.past"), seed=seed)
    checks.assert_close(got[:n_out], src[::stride][:n_out].astype(np.float64),
                        name=f"strided_gather out (n_out={n_out}, stride={stride})", seed=seed)


def bench_strided_gather(modules: dict, quick: bool = False) -> bench.Report:
    """Useful bandwidth (4 bytes read + 4 written per element) against the read stride."""
    cp = device.require_gpu()
    n_out = (1 << 22) if quick else (1 << 24)
    strides = (1, 2, 4, 8, 16, 32) if quick else (1, 2, 3, 4, 6, 8, 12, 16, 24, 32)
    src = device.random(n_out * strides[-1])
    out = cp.empty(n_out, dtype=np.float32)
    report = bench.Report(f"strided_gather, {n_out} floats out", "read stride (floats)", "GB/s")

    def make(module, stride: int):
        return lambda: _gather_launch(module, src, out, n_out, stride, sync=False)

    return bench.bandwidth_sweep(report, modules, make, strides, 8 * n_out, xs=strides)


# ---- SiLU and multiply --------------------------------------------------------------------------

def _silu_launch(module, dtype: str, inp, out, rows: int, d: int, sync=True):
    vec = 16 // device.dtype(dtype).itemsize
    block = (min(1024, max(32, -(-d // vec))),)
    kernel = module.get_function(f"silu_and_mul_{SUFFIX[dtype]}")
    args = (out, inp, np.int32(d))
    if sync:
        device.launch(kernel, (rows,), block, args, what=f"silu_and_mul_{SUFFIX[dtype]}")
    else:
        kernel((rows,), block, args)


def check_silu_and_mul(module, seed: int, rows: int, d: int, dtype: str) -> None:
    if dtype not in SUFFIX:
        raise ValueError(say("arg.one_of", what="dtype", value=dtype, known=", ".join(SUFFIX)))
    rng = np.random.default_rng(seed)
    x = (3 * rng.standard_normal((rows, 2 * d))).astype(device.dtype(dtype))
    out = device.empty((rows, d), dtype)
    _silu_launch(module, dtype, device.asarray(x), out, rows, d)
    checks.assert_close(device.to_host(out, dtype), silu_and_mul_reference(x), dt=dtype,
                        name=f"silu_and_mul out ({dtype}, rows={rows}, d={d})", seed=seed)


def bench_silu_and_mul(modules: dict, quick: bool = False, dtypes=("float32", "float16", "bfloat16")):
    """Bandwidth (bytes read + written) against bytes moved, hidden d = 8192, for each dtype.

    Each dtype gets the same byte counts (fp16 and bf16 take twice the rows), so one copy ceiling
    per size serves every series.
    """
    cp = device.require_gpu()
    d = 8192
    fp32_rows = (256, 1024, 4096) if quick else (64, 256, 1024, 4096, 16384)
    sizes = [3 * rows * d * 4 for rows in fp32_rows]
    report = bench.Report(f"silu_and_mul, d={d}", "bytes moved (read + written)", "GB/s")

    def make(what, nbytes: int):
        module, dtype = what
        rows = nbytes // (3 * d * device.dtype(dtype).itemsize)
        inp = device.random((rows, 2 * d), dtype)
        out = cp.empty((rows, d), dtype=inp.dtype)
        return lambda: _silu_launch(module, dtype, inp, out, rows, d, sync=False)

    series = {f"{label} {dtype}": (module, dtype) for label, module in modules.items() for dtype in dtypes}
    return bench.bandwidth_sweep(report, series, make, sizes, sizes)


# ---- int8 quantisation --------------------------------------------------------------------------

QUANT_BLOCK = 128


def quant_int8_input(rng: np.random.Generator, rows: int, d: int) -> np.ndarray:
    """fp16 rows of different magnitudes; row 0 all zeros, row 1 with its largest |x| (negative) at the
    last element, where a scan that stops early or starts from the wrong end misses it."""
    x = rng.standard_normal((rows, d)) * np.exp(rng.uniform(np.log(1e-2), np.log(1e2), (rows, 1)))
    x[0] = 0.0
    if rows > 1:
        x[1, -1] = -2.0 * np.abs(x[1]).max() - 1.0
    return x.astype(np.float16)


def quant_int8_reference(x: np.ndarray):
    """(scales, q, ambiguous): scale = max|x| / 127 in float32 (the division correctly rounded);
    q = x / scale rounded to nearest, ties to even, saturated to [-127, 127] (0 for a row of zeros);
    `ambiguous` marks the elements within float32 rounding of a tie (x / scale = k + 0.5), where a
    kernel that multiplies by 127 / max|x| may land on either side."""
    amax = np.abs(x.astype(np.float32)).max(axis=1)
    scales = amax / np.float32(127)
    s = scales.astype(np.float64)[:, None]
    v = np.divide(x.astype(np.float64), s, out=np.zeros(x.shape), where=s > 0)
    q = np.clip(np.rint(v), -127, 127)
    ambiguous = np.abs(np.abs(v - np.floor(v)) - 0.5) <= 2.0**-18 * np.maximum(np.abs(v), 1.0)
    return scales, q, ambiguous


def _quant_diagnosis(got: np.ndarray, v: np.ndarray, expected: np.ndarray) -> str:
    """What the wrong values of quantize_int8 have in common, the most specific story first: each is
    x / scale truncated (or clamped to +-128), or each is -1, the poison 0xFF, where -1 is far off. A
    kernel's x * (1 / scale) in float32 may land on the other side of an integer than x / scale: either
    side's truncation counts."""
    e = 2.0**-20 * np.maximum(np.abs(v), 1.0)
    if np.all((got == np.clip(np.trunc(v - e), -127, 127)) | (got == np.clip(np.trunc(v + e), -127, 127))):
        return say("day02.truncated")
    if np.all(got == np.trunc(np.clip(v, -128, 127))) or np.all(got == np.clip(np.rint(v), -128, 127)):
        return say("day02.clamp")
    if np.all(got == -1) and np.all(np.abs(expected + 1) > 1):
        return say("day02.poison")
    return ""


def check_quant_int8(module, seed: int, rows: int, d: int) -> None:
    rng = np.random.default_rng(seed)
    x = quant_int8_input(rng, rows, d)
    scales_ref, q_ref, ambiguous = quant_int8_reference(x)
    # int8 travels as its bytes (uint8: the device module's dtypes); the poison 0xFF reads as -1.
    q, scales = device.empty((rows, d), "uint8"), device.empty(rows, "float32")
    device.launch(module.get_function("quantize_int8"), (rows,), (QUANT_BLOCK,),
                  (q, scales, device.asarray(x), np.int32(d)), what="quantize_int8")
    got_scales = device.to_host(scales)
    # 127 / max|x| then a product may differ from max|x| / 127 by an ulp or two.
    checks.assert_close(got_scales, scales_ref, tol=checks.Tolerance(2.0**-22, 0.0, False), seed=seed,
                        name=say("name.day02.scales", rows=rows, d=d))
    got = device.to_host(q).view(np.int8).astype(np.float64)
    v = x.astype(np.float64) / np.where(scales_ref > 0, scales_ref, 1)[:, None]
    ok = (got == q_ref) | (ambiguous & (np.abs(got - v) <= 0.5 + 2.0**-18 * np.maximum(np.abs(v), 1)))
    if not ok.all():
        bad = np.argwhere(~ok)
        r, c = (int(k) for k in bad[0])
        why = _quant_diagnosis(got[~ok], v[~ok], q_ref[~ok])
        raise AssertionError(say(
            "day02.quant_wrong", rows=rows, d=d, wrong=len(bad), size=got.size, r=r, c=c, x=float(x[r, c]),
            scale=scales_ref[r], v=v[r, c], expected=int(q_ref[r, c]), got=int(got[r, c]), why=why,
            replay=checks.replay(seed)))
    # Dequantize the reference's q with the reference's scales: fp16 of q * scale.
    out = device.empty((rows, d), "float16")
    device.launch(module.get_function("dequantize_int8"), (rows,), (QUANT_BLOCK,),
                  (out, device.asarray(q_ref.astype(np.int8).view(np.uint8)), device.asarray(scales_ref), np.int32(d)),
                  what="dequantize_int8")
    checks.assert_close(device.to_host(out, "float16"), q_ref * scales_ref.astype(np.float64)[:, None],
                        tol=checks.Tolerance(2.0**-11, 2.0**-25, False), seed=seed,
                        name=say("name.day02.dequant", rows=rows, d=d))


SILU_SHAPES = ({"rows": 1, "d": 1}, {"rows": 3, "d": 31}, {"rows": 5, "d": 33}, {"rows": 7, "d": 8},
               {"rows": 64, "d": 4096}, {"rows": 129, "d": 11008}, {"rows": 4096, "d": 1000})

EXERCISES = (
    Exercise("day02", "strided_gather", "strided_gather.cu", "strided reads: the cost of uncoalesced access",
             check_strided_gather,
             tuple({"n_out": n, "stride": s} for n, s in
                   ((1, 1), (33, 1), (1000, 3), (4097, 32), ((1 << 20) + 1, 7))),
             bench=bench_strided_gather),
    Exercise("day02", "silu_and_mul", "silu_and_mul.cu", "vectorised SiLU-and-mul for fp32, fp16, bf16",
             check_silu_and_mul,
             tuple({**shape, "dtype": dt} for dt in SUFFIX for shape in SILU_SHAPES),
             bench=bench_silu_and_mul, target=0.90),
    Exercise("day02", "quant_int8", "quant_int8.cu", "per-row int8 quantize / dequantize with vec_t<int8_t, 16>",
             check_quant_int8,
             tuple({"rows": r, "d": d} for r, d in ((2, 1), (3, 16), (4, 31), (3, 48), (5, 33), (9, 2064),
                                                    (64, 4096), (1024, 5000), (4096, 8192))),
             technique=tuple(Technique(f"16-byte accesses (vec_t) in {k}", require=(r"LDG\.E\.128", r"STG\.E\.128"),
                                       kernels=(k,)) for k in ("quantize_int8", "dequantize_int8"))),
)
