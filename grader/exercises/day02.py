"""Day 2: memory coalescing and vectorised access."""
from __future__ import annotations

import numpy as np

from grader import bench, checks, device
from grader.exercises import Exercise

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
    out = device.empty(n_out + 1, "float32")  # one extra element that must stay untouched
    _gather_launch(module, device.asarray(src), out, n_out, stride)
    got = device.to_host(out)
    checks.assert_close(got[:n_out], src[::stride][:n_out].astype(np.float64),
                        name=f"strided_gather out (n_out={n_out}, stride={stride})", seed=seed)
    checks.assert_untouched(got[n_out:], np.ones(1, bool), name="strided_gather out past n_out",
                            seed=seed)


def bench_strided_gather(modules: dict, quick: bool = False) -> bench.Report:
    """Useful bandwidth (4 bytes read + 4 written per element) against the read stride."""
    cp = device.require_gpu()
    n_out = (1 << 22) if quick else (1 << 24)
    strides = (1, 2, 4, 8, 16, 32) if quick else (1, 2, 3, 4, 6, 8, 12, 16, 24, 32)
    src = device.random(n_out * strides[-1])
    out = cp.empty(n_out, dtype=np.float32)
    report = bench.Report(f"strided_gather, {n_out} floats out", "read stride (floats)", "GB/s")
    for label, module in modules.items():
        report.series[label] = [
            bench.measure(label, lambda s=s: _gather_launch(module, src, out, n_out, s, sync=False),
                          size=s, nbytes=8 * n_out) for s in strides]
    ceiling = bench.copy_ceiling(8 * n_out)
    report.ceiling = [bench.Measurement("copy (ceiling)", s, ceiling.ms, ceiling.nbytes) for s in strides]
    return report


# ---- SiLU and multiply --------------------------------------------------------------------------

def silu_and_mul_reference(x: np.ndarray) -> np.ndarray:
    """float64 silu(x[:, :d]) * x[:, d:] from the (rounded) inputs."""
    x = x.astype(np.float64)
    d = x.shape[-1] // 2
    a, b = x[..., :d], x[..., d:]
    return a / (1.0 + np.exp(-a)) * b


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
        raise ValueError(f"dtype {dtype!r}: expected one of {', '.join(SUFFIX)}")
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
    for label, module in modules.items():
        for dtype in dtypes:
            series = []
            for nbytes in sizes:
                rows = nbytes // (3 * d * device.dtype(dtype).itemsize)
                inp = device.random((rows, 2 * d), dtype)
                out = cp.empty((rows, d), dtype=inp.dtype)
                series.append(bench.measure(
                    f"{label} {dtype}", lambda: _silu_launch(module, dtype, inp, out, rows, d, sync=False),
                    size=nbytes, nbytes=nbytes))
                del inp, out
            report.series[f"{label} {dtype}"] = series
    report.ceiling = [bench.copy_ceiling(n) for n in sizes]
    return report


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
)
