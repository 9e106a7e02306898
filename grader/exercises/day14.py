"""Day 14: framework integration and the capstone.

The first exercise is the binding layer (binding.py): rmsnorm from Python, for cupy arrays and torch
tensors, zero-copy through DLPack, on the caller's current stream, refusing bad arguments in one line;
`grader.jit.ops` goes through it for every operation. The second is the same kernel as a TVM-FFI
function with a PyTorch custom op over it (rmsnorm_ffi.py: C++ built by nvcc through
tvm_ffi.cpp.load_inline, `course::rmsnorm` under torch.compile(fullgraph=True)). Then the glue kernel
of a decode step (append_kv.cu), and RoPE fused into it (rope_append_kv.cu). The capstone is a
transformer block for one decode step, built from the course's kernels through the Python API of
`grader.jit.ops`, every launch through the student's binding:

    RMSNorm (6) -> QKV GEMM (10) -> RoPE (13) -> append KV (14) -> paged decode attention (11)
    -> O GEMM (10) -> add + RMSNorm (6) -> gate/up GEMM (10) -> SiLU-and-mul (2) -> down GEMM (10) -> add

checked stage by stage (each stage's output against float64 numpy from that stage's actual inputs)
and end to end (the whole block in float64 numpy, rounded to fp16 where the GPU stores), timed per
stage, and timed whole against the same block in torch eager on the same arrays.
"""
from __future__ import annotations

import importlib.util
import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from grader import bench, checks, device, runner
from grader.exercises import Exercise, day02, day06, day09, day11, day13
from grader.jit import ops
from grader.technique import Technique

SUFFIX = {"float16": "f16", "bfloat16": "bf16"}
BLOCK = 256  # threads per request: append_kv.cu and rope_append_kv.cu are launched with this many
ROPE_THETA = 1e4  # rope_append_kv's theta, as the capstone's
SPIN = r'''extern "C" __global__ void spin(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {}
}'''
BUSY_CYCLES = 200_000_000  # about 0.1 s: the stream is still busy when a correct binding returns


# ---- exercise 1: the binding (binding.py) ------------------------------------------------------------
#
# Student Python is checked in two halves (grader.runner.harnessed): a harness (`_run_*`) calls the
# student's functions in the student's sandboxed process and returns plain data: arrays read back,
# what was raised, what was returned; the check (`check_*`) verifies that data in the grader, from
# inputs it makes again from the seed it chose. Facts only the student's process can see (the same
# memory, a busy stream) come back as flags; every value is recomputed here.

def _torch():
    """torch, where it is installed and sees a CUDA GPU; else None."""
    try:
        import torch
    except ImportError:
        return None
    return torch if torch.cuda.is_available() else None


def _binding_inputs(seed: int, rows: int, d: int):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((rows, d)).astype(np.float16), (1 + 0.5 * rng.standard_normal(d)).astype(np.float16)


def _as(a: np.ndarray, dtype: str) -> np.ndarray:
    """`a` rounded to float16 or bfloat16 (as torch's .to() does), as float32."""
    return a.astype(np.float32).astype(device.dtype(dtype)).astype(np.float32)


def _rmsnorm_close(got, x, w, dtype: str, seed: int, what: str) -> None:
    checks.assert_close(got, day06.rmsnorm_reference(x, w), dt=dtype, tol=day06.norm_tolerance(dtype),
                        seed=seed, name=f"binding.rmsnorm {what}")


def _on_busy_cupy_stream(module, x, w) -> dict:
    """spin, x += 1, rmsnorm on a non-blocking cupy stream: only a launch on that stream sees x + 1. A
    first round (no spin) loads the kernels and fills the memory pool, so nothing later synchronizes."""
    cp = device.require_gpu()
    spin = device.load_source(SPIN, "spin.cu").get_function("spin")
    x_dev, w_dev = cp.asarray(x), cp.asarray(w)
    stream = cp.cuda.Stream(non_blocking=True)
    for cycles, add in ((0, 0), (BUSY_CYCLES, 1)):
        with stream:
            spin((1,), (1,), (np.int64(cycles),))
            x_dev += add
            y = module.rmsnorm(x_dev, w_dev)
            busy = not stream.done
        stream.synchronize()
    return {"busy": busy, "y": cp.asnumpy(y)}


def _torch_host(t) -> np.ndarray:
    return t.float().cpu().numpy()


def _with_torch(module, torch, x, w) -> dict:
    """float16 and bfloat16 tensors: whether as_cupy shares memory, the result into `out` (and whether
    `out` itself came back), then on torch's busy current stream (what came back, and its values)."""
    found = {}
    for dt, name in ((torch.float16, "float16"), (torch.bfloat16, "bfloat16")):
        xt, wt = torch.from_numpy(x).cuda().to(dt), torch.from_numpy(w).cuda().to(dt)
        got = {"shares": bool(module.as_cupy(xt).data.ptr == xt.data_ptr())}
        out = torch.full_like(xt, float("nan"))
        got["returned_out"] = module.rmsnorm(xt, wt, out=out) is out
        torch.cuda.synchronize()
        got["out"] = _torch_host(out)
        stream = torch.cuda.Stream()
        with torch.cuda.stream(stream):
            for cycles, add in ((0, 0), (BUSY_CYCLES, 1)):
                torch.cuda._sleep(cycles)
                xt += add
                yt = module.rmsnorm(xt, wt)
        stream.synchronize()
        got["kind"] = (f"{type(yt).__name__} {getattr(yt, 'dtype', '')}"
                       if not (isinstance(yt, torch.Tensor) and yt.dtype == dt and yt.is_cuda) else "ok")
        got["y"] = _torch_host(yt) if got["kind"] == "ok" else None
        found[name] = got
    return found


def _run_binding(module, seed: int, rows: int, d: int) -> dict:
    x, w = _binding_inputs(seed, rows, d)
    x_dev, w_dev = device.asarray(x), device.asarray(w)
    out = device.empty((rows, d), "float16")
    found = {"returned_out": module.rmsnorm(x_dev, w_dev, out=out) is out}
    device.synchronize("binding.rmsnorm")
    found["out"] = device.to_host(out)
    found["new"] = np.asarray(device.to_host(module.rmsnorm(x_dev, w_dev)), dtype=np.float16)
    if not device.why_not_hardware():
        found["busy_cupy"] = _on_busy_cupy_stream(module, x, w)
        torch = _torch()
        if torch is not None:
            found["torch"] = _with_torch(module, torch, x, w)
    return found


def _check_torch(found: dict, x, w, seed: int, where: str) -> None:
    for name, got in found.items():
        if not got["shares"]:
            raise AssertionError(f"binding.as_cupy copied a torch {name} tensor: it must share its memory "
                                 f"(cupy.from_dlpack)")
        if not got["returned_out"]:
            raise AssertionError(f"binding.rmsnorm(..., out=out) with torch {name} tensors must return out")
        xt, wt = _as(x, name), _as(w, name)
        _rmsnorm_close(got["out"], xt, wt, name, seed, f"into out=, torch {name} {where}")
        if got["kind"] != "ok":
            raise AssertionError(f"binding.rmsnorm of torch {name} tensors returned {got['kind']}: expected a "
                                 f"CUDA torch {name} tensor (to_caller)")
        _rmsnorm_close(got["y"], _as(xt + 1, name), wt, name, seed,
                       f"on torch's busy current stream, torch {name} {where} (wrong: launched on another "
                       f"stream, before x += 1 ran)")


@runner.harnessed(_run_binding)
def check_binding(found: dict, seed: int, rows: int, d: int) -> None:
    """The binding's rmsnorm against float64: into a NaN-poisoned `out`, and into a new array. On a GPU
    also on a busy cupy stream and, where torch is installed, with torch tensors (fp16 and bf16: zero
    copy, torch's current stream); the emulator has neither streams nor torch."""
    x, w = _binding_inputs(seed, rows, d)
    where = f"(rows={rows}, d={d})"
    if not found["returned_out"]:
        raise AssertionError(f"binding.rmsnorm(x, weight, out=out) must return out {where}")
    _rmsnorm_close(found["out"], x, w, "float16", seed, f"into out= {where}")
    _rmsnorm_close(found["new"], x, w, "float16", seed, f"new array {where}")
    if "busy_cupy" in found:
        if not found["busy_cupy"]["busy"]:
            raise AssertionError(f"binding.rmsnorm {where}: the stream was idle when rmsnorm returned: something "
                                 f"synchronized (a binding never waits: the caller's stream orders the work)")
        _rmsnorm_close(found["busy_cupy"]["y"], (x.astype(np.float32) + 1).astype(np.float16), w, "float16", seed,
                       f"on a busy cupy stream {where} (wrong: launched on another stream, before x += 1 ran)")
    if "torch" in found:
        _check_torch(found["torch"], x, w, seed, where)


def _bad_call(wrong: str, x, w):
    """(arguments, the error type, words the message must hold) for one kind of bad call."""
    rows, d = x.shape
    return {
        "framework": ((device.to_host(x), w), TypeError, ("x", "numpy", "host memory")),
        "dtype": ((x.astype(np.float32), w), TypeError, ("x", "dtype float32")),
        "weight_shape": ((x, device.asarray(np.ones(d + 1, np.float16))), ValueError, ("weight", f"[{d + 1}]")),
        "contiguity": ((x[:, ::2], w[::2]), ValueError, ("x", "not contiguous")),
        "out_shape": ((x, w, 1e-6, device.empty((rows, d + 1), "float16")), ValueError, ("out", f"[{rows}, {d + 1}]")),
        "out_dtype": ((x, w, 1e-6, device.empty((rows, d), "float32")), TypeError, ("out", "float32")),
    }[wrong]


def _raised(call) -> dict:
    """What `call()` raised: its type's name, whether a TypeError or ValueError, its message."""
    try:
        call()
    except Exception as e:  # noqa: BLE001 - what was raised is the data
        return {"raised": type(e).__name__, "type_error": isinstance(e, TypeError),
                "value_error": isinstance(e, ValueError), "message": str(e)[:2000]}
    return {"raised": None}


def _run_binding_errors(module, seed: int, wrong: str, rows: int, d: int) -> dict:
    x, w = (device.asarray(a) for a in _binding_inputs(seed, rows, d))
    args, _, _ = _bad_call(wrong, x, w)
    out = args[3] if len(args) > 3 else device.empty(x.shape, "float16")
    found = _raised(lambda: module.rmsnorm(*args[:3], out=out))
    device.synchronize("binding.rmsnorm")
    found["out"] = device.to_host(out)
    return found


_ERRORS = {"framework": (TypeError, ("x", "numpy", "host memory")), "dtype": (TypeError, ("x", "dtype float32")),
           "weight_shape": (ValueError, ("weight", "[{d1}]")), "contiguity": (ValueError, ("x", "not contiguous")),
           "out_shape": (ValueError, ("out", "[{rows}, {d1}]")), "out_dtype": (TypeError, ("out", "float32"))}


@runner.harnessed(_run_binding_errors)
def check_binding_errors(found: dict, seed: int, wrong: str, rows: int, d: int) -> None:
    """A bad call is refused before any launch (`out`, NaN-poisoned, stays so) with a one-line
    TypeError or ValueError that names the argument and what is wrong with it."""
    error, words = _ERRORS[wrong]
    words = tuple(w.format(rows=rows, d1=d + 1) for w in words)
    call = f"binding.rmsnorm with a bad {wrong.replace('_', ' ')}"
    expected = f"expected a one-line {error.__name__} naming {', '.join(words)}"
    if found["raised"] is None:
        raise AssertionError(f"{call}: accepted without an error (it must be refused before any launch)")
    message = found["message"]
    right_type = found["type_error"] if error is TypeError else found["value_error"]
    if not right_type or "\n" in message or not all(word in message for word in words):
        raise AssertionError(f"{call}: {expected}; got {found['raised']}: {message}")
    out = found["out"]
    checks.assert_untouched(out, np.ones(out.shape, bool), seed=seed,
                            name=f"{call}: out (written: a kernel was launched before the arguments were checked)")


BINDING_CASES = ({"rows": 1, "d": 8}, {"rows": 3, "d": 1000}, {"rows": 37, "d": 4100})
BINDING_ERRORS = tuple({"wrong": w, "rows": 5, "d": 64} for w in ("framework", "dtype", "weight_shape",
                                                                 "contiguity", "out_shape", "out_dtype"))


# ---- exercise 2: a TVM-FFI function and a PyTorch custom op (rmsnorm_ffi.py) ---------------------------

#: What a grade without a GPU says of rmsnorm_ffi: its refusals pass, the rest is not graded here.
NOT_GRADED_WITHOUT_GPU = "not graded without a CUDA GPU"


def why_no_ffi() -> str | None:
    """Why rmsnorm_ffi.py cannot be built here, in one line (apache-tvm-ffi, nvcc or ninja missing);
    None when it can."""
    if importlib.util.find_spec("tvm_ffi") is None:
        return "needs apache-tvm-ffi (pip install apache-tvm-ffi) to build rmsnorm_ffi.py"
    homes = [os.environ.get(v) for v in ("CUDA_HOME", "CUDA_PATH")] + ["/usr/local/cuda"]
    if not (shutil.which("nvcc") or any(h and Path(h, "bin", "nvcc").is_file() for h in homes)):
        return "needs nvcc (a CUDA toolkit): tvm_ffi.cpp.load_inline compiles rmsnorm_ffi.py's SOURCE with it"
    if not shutil.which("ninja"):
        return "needs ninja (pip install ninja): tvm_ffi.cpp.load_inline builds with it"
    return None


def _ffi_bad_calls(rows: int, d: int):
    """(label, x, weight, out, the message expected) for arguments the function must refuse; numpy
    arrays (DLPack, in host memory), so that they are refused without a GPU too."""
    f16 = np.float16
    z = np.zeros
    return (("a weight of the wrong size", z((rows, d), f16), z(d + 1, f16), z((rows, d), f16),
             rf"weight has shape \[{d + 1}\]; expected \[d\] with d = {d} \(from x\)"),
            ("an out of the wrong shape", z((rows, d), f16), z(d, f16), z((rows, d + 1), f16),
             rf"out has shape \[{rows}, {d + 1}\]; expected x's \[{rows}, {d}\]"),
            ("a 3-D x", z((rows, d, 1), f16), z(d, f16), z((rows, d), f16),
             rf"x has shape \[{rows}, {d}, 1\]; expected 2 dims \[rows, d\]"),
            ("float32", z((rows, d), np.float32), z(d, np.float32), z((rows, d), np.float32),
             r"x has a dtype other than float16 or bfloat16"),
            ("host memory (numpy)", z((rows, d), f16), z(d, f16), z((rows, d), f16),
             r"x must be on a CUDA device"))


def _refused(found: dict, label: str, pattern: str) -> None:
    """`found` (what a call raised) must be a one-line ValueError matching `pattern` in full."""
    what = f"rmsnorm_ffi rmsnorm with {label}"
    if found["raised"] is None:
        raise AssertionError(f"{what}: accepted (it must be refused before any launch)")
    if not found["value_error"]:
        raise AssertionError(f"{what}: expected a one-line ValueError; got {found['raised']}: {found['message']}")
    if not re.fullmatch(pattern, found["message"]):
        raise AssertionError(f"{what}: expected the one-line ValueError '{pattern}' (a regex); got: "
                             f"{found['message']}")


def _ffi_inputs(seed: int, rows: int, d: int, dtype: str):
    """x and weight as the harness makes them (float32, rounded to `dtype`)."""
    rng = np.random.default_rng(seed)
    x = 2 * rng.standard_normal((rows, d)).astype(np.float32)
    w = (1 + 0.5 * rng.standard_normal(d)).astype(np.float32)
    return _as(x, dtype), _as(w, dtype)


def _compiled_block(torch):
    """torch work on both sides of the registered op course::rmsnorm, compiled with fullgraph=True (a
    graph break raises)."""
    def block(x, w):
        y = torch.ops.course.rmsnorm(x * 0.5, w, day06.EPS)
        return y, y.float().abs().amax()
    return torch.compile(block, fullgraph=True)


def _ffi_with_torch(module, lib, torch, seed: int, rows: int, d: int, dtype: str) -> dict:
    """Into NaN-poisoned out; a refused CUDA call (out after it); torch's busy current stream; the
    custom op eager and under torch.compile(fullgraph=True)."""
    dt = getattr(torch, dtype)
    x32, w32 = _ffi_inputs(seed, rows, d, dtype)
    x, w = torch.from_numpy(x32).cuda().to(dt), torch.from_numpy(w32).cuda().to(dt)
    out = torch.full_like(x, float("nan"))
    lib.rmsnorm(x, w, out, day06.EPS)
    torch.cuda.synchronize()
    found = {"out": _torch_host(out)}
    out.fill_(float("nan"))
    found["refused_cuda"] = _raised(lambda: lib.rmsnorm(x, w[:-1], out, day06.EPS))
    torch.cuda.synchronize()
    found["out_after_refusal"] = _torch_host(out)
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        for cycles, add in ((0, 0), (BUSY_CYCLES, 1)):
            torch.cuda._sleep(cycles)
            x += add
            lib.rmsnorm(x, w, out, day06.EPS)
        found["busy"] = not stream.query()
    stream.synchronize()
    found["on_stream"] = _torch_host(out)
    found["eager"] = _torch_host(module.op()(x, w, day06.EPS))
    try:
        got, peak = _compiled_block(torch)(x, w)
        torch.cuda.synchronize()
        found["compiled"], found["peak_agrees"] = _torch_host(got), float(peak) == float(got.float().abs().amax())
    except Exception as e:  # noqa: BLE001 - torch's reason is the message
        found["compile_error"] = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
    return found


def _run_rmsnorm_ffi(module, seed: int, rows: int, d: int, dtype: str) -> dict:
    reason = why_no_ffi()
    if reason:
        return {"no_ffi": reason}
    try:
        lib = module.build()
    except RuntimeError as e:  # ninja's output: nvcc's errors name rmsnorm_ffi.py's lines
        lines = str(e).splitlines()
        errors = [line for line in lines if "error" in line and not line.startswith("[")] or lines[-20:]
        return {"build_error": "\n".join(errors[:20])}
    found = {"refusals": [_raised(lambda: lib.rmsnorm(x, w, out, day06.EPS))
                          for _, x, w, out, _ in _ffi_bad_calls(rows, d)]}
    if device.why_not_hardware():
        found["no_gpu"] = device.why_not_hardware()
        return found
    torch = _torch()
    if torch is not None:
        found["torch"] = _ffi_with_torch(module, lib, torch, seed, rows, d, dtype)
    elif dtype == "float16":
        x, w = _binding_inputs(seed, rows, d)
        out = device.empty((rows, d), "float16")
        lib.rmsnorm(device.asarray(x), device.asarray(w), out, day06.EPS)
        device.synchronize("rmsnorm_ffi")
        found["cupy"] = device.to_host(out)
    return found


def _ffi_close(got, x, w, dtype: str, seed: int, what: str) -> None:
    """got against float64, within day 6's tolerance."""
    checks.assert_close(got, day06.rmsnorm_reference(x, w), dt=dtype, tol=day06.norm_tolerance(dtype), seed=seed,
                        name=f"{what} against float64")


def _check_ffi_torch(found: dict, seed: int, rows: int, d: int, dtype: str, where: str) -> None:
    x, w = _ffi_inputs(seed, rows, d, dtype)
    _ffi_close(found["out"], x, w, dtype, seed, f"rmsnorm_ffi rmsnorm into out {where}")
    _refused(found["refused_cuda"], "CUDA tensors and a weight of the wrong size",
             rf"weight has shape \[{d - 1}\]; expected \[d\] with d = {d} \(from x\)")
    after = found["out_after_refusal"]
    checks.assert_untouched(after, np.ones(after.shape, bool), seed=seed,
                            name=f"rmsnorm_ffi: out after a refused call {where} (a launch before the checks?)")
    if not found["busy"]:
        raise AssertionError(f"rmsnorm_ffi rmsnorm {where}: the stream was idle when it returned: something "
                             f"synchronized")
    x1 = _as(x + 1, dtype)
    _ffi_close(found["on_stream"], x1, w, dtype, seed, f"rmsnorm_ffi rmsnorm on torch's busy current stream {where} "
                                                        f"(wrong: launched on another stream, before x += 1 ran)")
    _ffi_close(found["eager"], x1, w, dtype, seed, f"course::rmsnorm eager {where}")
    if "compile_error" in found:
        raise AssertionError(f"course::rmsnorm under torch.compile(fullgraph=True) {where}: {found['compile_error']}")
    _ffi_close(found["compiled"], _as(x1 * 0.5, dtype), w, dtype, seed,
               f"course::rmsnorm under torch.compile(fullgraph=True) {where}")
    if not found["peak_agrees"]:
        raise AssertionError(f"course::rmsnorm under torch.compile {where}: the work after the op saw "
                             f"another tensor than the op returned")


@runner.harnessed(_run_rmsnorm_ffi)
def check_rmsnorm_ffi(found: dict, seed: int, rows: int, d: int, dtype: str) -> None:
    """Build rmsnorm_ffi.py (nvcc, through tvm_ffi.cpp.load_inline); bad arguments (numpy arrays, through
    DLPack) get one-line ValueErrors naming the argument, host memory included. On a GPU with torch:
    values into NaN-poisoned out against float64, torch's busy current stream, the custom op eager and
    under torch.compile(fullgraph=True); on a GPU without torch, float16 values through cupy arrays
    (DLPack). Without a GPU nothing is launched, so the exercise is not graded there (it fails, saying
    so, once the refusals pass): a function that never launches cannot earn its points."""
    if dtype not in SUFFIX:
        raise ValueError(f"dtype {dtype!r}: expected one of {', '.join(SUFFIX)}")
    if "no_ffi" in found:
        raise AssertionError(f"rmsnorm_ffi not checked: {found['no_ffi']}")
    if "build_error" in found:
        raise AssertionError("rmsnorm_ffi.py did not build:\n" + found["build_error"])
    for raised, (label, *_, pattern) in zip(found["refusals"], _ffi_bad_calls(rows, d), strict=True):
        _refused(raised, label, pattern)
    where = f"({dtype}, rows={rows}, d={d})"
    if "no_gpu" in found:
        raise AssertionError(f"rmsnorm_ffi {where}: its refusals pass; {NOT_GRADED_WITHOUT_GPU} ({found['no_gpu']}): "
                             f"its values, torch's stream and torch.compile need a launch, so these points wait "
                             f"for a GPU (python -m grader check day14 there)")
    if "torch" in found:
        _check_ffi_torch(found["torch"], seed, rows, d, dtype, where)
    elif dtype == "float16":
        x, w = _binding_inputs(seed, rows, d)
        _rmsnorm_close(found["cupy"], x, w, "float16", seed, f"rmsnorm_ffi, cupy arrays {where}")


FFI_CASES = ({"rows": 1, "d": 1000, "dtype": "float16"}, {"rows": 33, "d": 4100, "dtype": "bfloat16"},
             {"rows": 33, "d": 1000, "dtype": "bfloat16"}, {"rows": 1, "d": 4100, "dtype": "float16"})


# ---- the exercises: append the new token's k and v to the cache (append_kv.cu), and the same with
# ---- RoPE fused in (rope_append_kv.cu) ---------------------------------------------------------------

def _launch(module, kernel: str, dtype: str, q, k_cache, v_cache, qkv, pos, batch: int, qo_heads: int,
            kv_heads: int, head_dim: int, max_len: int, *extra) -> None:
    kernel = module.get_function(f"{kernel}_{SUFFIX[dtype]}")
    device.launch(kernel, (batch,), (BLOCK,),
                  (q, k_cache, v_cache, qkv, pos, np.int32(qo_heads), np.int32(kv_heads), np.int32(head_dim),
                   np.int32(max_len), *extra), what=kernel.name)


def _check_append(module, seed: int, batch: int, max_len: int, qo_heads: int, kv_heads: int, head_dim: int,
                  dtype: str, rope: bool) -> None:
    """q is NaN-poisoned; each cache holds random history up to pos[b] and NaN after it: the row at
    pos[b] must be the new k (v), the history must be unchanged and the NaN after it untouched.
    A copy is exact: every copied element is compared for equality; with `rope`, q and the new k row
    are rotated (day 13's rotate half, theta 1e4) and compared with float64 at the dtype's tolerance."""
    if dtype not in SUFFIX:
        raise ValueError(f"dtype {dtype!r}: expected one of {', '.join(SUFFIX)}")
    rng = np.random.default_rng(seed)
    dt = device.dtype(dtype)
    qkv = rng.standard_normal((batch, (qo_heads + 2 * kv_heads) * head_dim)).astype(dt)
    pos = rng.integers(0, max_len, batch).astype(np.int32)
    shape = (batch, max_len, kv_heads, head_dim)
    later = np.arange(max_len)[None, :] > pos[:, None]                # [batch, max_len]: after the new row
    caches = []
    for _ in range(2):
        cache = rng.standard_normal(shape).astype(dt)
        cache[later] = np.nan
        caches.append(cache)
    q_dev = device.empty((batch, qo_heads, head_dim), dtype)
    k_dev, v_dev = (device.asarray(c) for c in caches)
    kernel, extra = ("rope_append_kv", (np.float32(np.log2(ROPE_THETA)),)) if rope else ("append_kv", ())
    _launch(module, kernel, dtype, q_dev, k_dev, v_dev, device.asarray(qkv), device.asarray(pos), batch,
            qo_heads, kv_heads, head_dim, max_len, *extra)
    new = qkv.astype(np.float64).reshape(batch, qo_heads + 2 * kv_heads, head_dim)
    if rope:
        new = day13.rope_reference(new, pos, qo_heads + kv_heads, ROPE_THETA)
    exact = checks.Tolerance(0.0, 0.0, False)
    rotated = None if rope else exact          # None: the dtype's tolerance
    where = f"({dtype}, batch={batch}, max_len={max_len}, heads {qo_heads}/{kv_heads}, d={head_dim})"
    what = f"{kernel} {'rotated ' if rope else ''}"
    checks.assert_close(device.to_host(q_dev, dtype), new[:, :qo_heads], dt=dtype, tol=rotated,
                        name=f"{what}q {where}", seed=seed)
    history = np.arange(max_len)[None, :] < pos[:, None]
    rows = np.arange(batch)
    for part, (cache, got_dev) in enumerate(zip(caches, (k_dev, v_dev))):
        name = "kv"[part]
        got = device.to_host(got_dev, dtype)
        checks.assert_close(got[history], cache[history].astype(np.float64), dt=dtype, tol=exact, seed=seed,
                            name=f"{kernel} {name}_cache rows before pos[b] (the history) {where}")
        heads = slice(qo_heads + part * kv_heads, qo_heads + (part + 1) * kv_heads)
        checks.assert_close(got[rows, pos], new[:, heads], dt=dtype, tol=rotated if part == 0 else exact,
                            seed=seed, name=f"{what if part == 0 else kernel + ' '}{name}_cache row pos[b] "
                                            f"(the new {name}) {where}")
        checks.assert_untouched(got[later], np.ones(got[later].shape, bool), seed=seed,
                                name=f"{kernel} {name}_cache rows after pos[b] {where}")


def check_append_kv(module, seed: int, batch: int, max_len: int, qo_heads: int, kv_heads: int,
                    head_dim: int, dtype: str) -> None:
    _check_append(module, seed, batch, max_len, qo_heads, kv_heads, head_dim, dtype, rope=False)


def check_rope_append_kv(module, seed: int, batch: int, max_len: int, qo_heads: int, kv_heads: int,
                         head_dim: int, dtype: str) -> None:
    _check_append(module, seed, batch, max_len, qo_heads, kv_heads, head_dim, dtype, rope=True)


APPEND_CASES = tuple({**c, "dtype": dt} for dt in SUFFIX for c in (
    {"batch": 1, "max_len": 1, "qo_heads": 1, "kv_heads": 1, "head_dim": 8},
    {"batch": 3, "max_len": 33, "qo_heads": 4, "kv_heads": 2, "head_dim": 64},
    {"batch": 31, "max_len": 17, "qo_heads": 32, "kv_heads": 8, "head_dim": 128},
    {"batch": 64, "max_len": 257, "qo_heads": 7, "kv_heads": 1, "head_dim": 136},
))
# head_dim a multiple of 16 (each half whole vectors); positions up to 4095 so every angle shows
ROPE_APPEND_CASES = tuple({**c, "dtype": dt} for dt in SUFFIX for c in (
    {"batch": 1, "max_len": 2, "qo_heads": 1, "kv_heads": 1, "head_dim": 16},
    {"batch": 3, "max_len": 33, "qo_heads": 4, "kv_heads": 2, "head_dim": 64},
    {"batch": 31, "max_len": 17, "qo_heads": 32, "kv_heads": 8, "head_dim": 128},
    {"batch": 5, "max_len": 4096, "qo_heads": 7, "kv_heads": 1, "head_dim": 144},
))
WIDE = Technique("16-byte vector loads and stores (course::vec_t<T, 8>: LDG.E.128 / STG.E.128)",
                 require=(r"LDG\.E\.128", r"STG\.E\.128"))


# ---- the capstone ---------------------------------------------------------------------------------

PAGE_SIZE = 16               # tokens per page of the capstone's paged KV cache
PAGE_TABLE = ("kv_indptr", "kv_indices", "kv_last_page_len")


@dataclass(frozen=True)
class BlockConfig:
    batch: int
    qo_heads: int
    kv_heads: int
    intermediate: int
    kv_len: int                  # tokens already in the cache; the new one goes at position kv_len
    head_dim: int = 128
    theta: float = 1e4

    @property
    def max_len(self) -> int:
        """Rows of each request's cache: kv_len + 1, rounded up to whole pages."""
        return -(-(self.kv_len + 1) // PAGE_SIZE) * PAGE_SIZE

    @property
    def hidden(self) -> int:
        return self.qo_heads * self.head_dim

    @property
    def qkv_width(self) -> int:
        return (self.qo_heads + 2 * self.kv_heads) * self.head_dim


def page_table(cfg: BlockConfig) -> dict[str, np.ndarray]:
    """The paged view of the caches [batch, max_len, kv_heads, head_dim]: pages of PAGE_SIZE rows,
    request b's kv_len + 1 tokens in its own pages, which happen to be in order (b * max_len /
    PAGE_SIZE, + 1, ...), so that append_kv's row pos[b] is the token the table gives at that place."""
    used = -(-(cfg.kv_len + 1) // PAGE_SIZE)
    per_request = cfg.max_len // PAGE_SIZE
    return {"kv_indptr": (np.arange(cfg.batch + 1) * used).astype(np.int32),
            "kv_indices": (np.arange(cfg.batch)[:, None] * per_request + np.arange(used)).ravel().astype(np.int32),
            "kv_last_page_len": np.full(cfg.batch, cfg.kv_len + 1 - (used - 1) * PAGE_SIZE, np.int32)}


def pages(cache, cfg: BlockConfig):
    """A cache [batch, max_len, kv_heads, head_dim] seen as pages [batch * max_len / PAGE_SIZE, PAGE_SIZE,
    kv_heads, head_dim]: the same memory."""
    return cache.reshape(-1, PAGE_SIZE, cfg.kv_heads, cfg.head_dim)


def block_inputs(cfg: BlockConfig, seed: int) -> dict[str, np.ndarray]:
    """Host inputs: the hidden state x, the weights (scaled by 1/sqrt(fan-in), so activations stay
    near 1), caches whose first kv_len rows hold history and the rest NaN (the new row and the
    padding of the last page), all fp16; the positions and the page table (int32)."""
    rng = np.random.default_rng(seed)
    f16 = np.float16

    def w(k, n):
        return (rng.standard_normal((k, n)) / np.sqrt(k)).astype(f16)

    h, i = cfg.hidden, cfg.intermediate
    cache_shape = (cfg.batch, cfg.max_len, cfg.kv_heads, cfg.head_dim)
    caches = [rng.standard_normal(cache_shape).astype(f16) for _ in range(2)]
    for c in caches:
        c[:, cfg.kv_len:] = np.nan
    return {"x": rng.standard_normal((cfg.batch, h)).astype(f16),
            "w_attn_norm": (1 + 0.1 * rng.standard_normal(h)).astype(f16), "w_qkv": w(h, cfg.qkv_width),
            "w_o": w(h, h), "w_mlp_norm": (1 + 0.1 * rng.standard_normal(h)).astype(f16),
            "w_gate_up": w(h, 2 * i), "w_down": w(i, h), "k_cache": caches[0], "v_cache": caches[1],
            "pos": np.full(cfg.batch, cfg.kv_len, np.int32), **page_table(cfg)}


@dataclass(frozen=True)
class Stage:
    name: str
    source: str                  # where its kernel comes from
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]     # names it writes (in place when also an input)
    run: object                  # (state of device arrays, cfg) -> dict of new device arrays (or {})
    reference: object            # (host float64 inputs, cfg) -> dict of float64 outputs
    tol: object = None           # Tolerance, or (cfg) -> Tolerance; None: fp16's


def _rope_ref(s, cfg):
    qkv = s["qkv"].reshape(cfg.batch, -1, cfg.head_dim)
    out = day13.rope_reference(qkv, s["pos"], cfg.qo_heads + cfg.kv_heads, cfg.theta)
    return {"qkv": out.reshape(cfg.batch, -1)}


def _append_ref(s, cfg):
    q_size, kv_size = cfg.hidden, cfg.kv_heads * cfg.head_dim
    new = {"q": s["qkv"][:, :q_size].reshape(cfg.batch, cfg.qo_heads, cfg.head_dim)}
    for j, name in enumerate(("k_cache", "v_cache")):
        cache = s[name].copy()
        start = q_size + j * kv_size
        cache[np.arange(cfg.batch), s["pos"]] = s["qkv"][:, start:start + kv_size].reshape(
            cfg.batch, cfg.kv_heads, cfg.head_dim)
        new[name] = cache
    return new


def _paged_attention_ref(s, cfg):
    """Decode attention in float64 over the tokens the page table gives each request."""
    indptr, indices, last = s["kv_indptr"], s["kv_indices"], s["kv_last_page_len"]
    lengths = [(indptr[b + 1] - indptr[b] - 1) * PAGE_SIZE + last[b] for b in range(cfg.batch)]

    def tokens(name):
        paged = pages(s[name], cfg)
        return np.stack([paged[indices[indptr[b]:indptr[b + 1]]].reshape(-1, cfg.kv_heads, cfg.head_dim)
                         for b in range(cfg.batch)])

    return {"o": day11.attention_reference(s["q"], tokens("k_cache"), tokens("v_cache"), lengths)[0]}


def _add_rmsnorm_ref(s, cfg):
    residual = s["x"] + s["attn"]
    return {"x": residual, "attn": day06.rmsnorm_reference(residual.astype(np.float16), s["w_mlp_norm"])}


def _gemm_tol(k):
    return lambda cfg: day09.accumulate_tolerance(k(cfg), "float16")


STAGES = (
    Stage("attention RMSNorm", "day 6 (binding.py)", ("x", "w_attn_norm"), ("h",),
          lambda s, c: {"h": ops.rmsnorm(s["x"], s["w_attn_norm"])},
          lambda s, c: {"h": day06.rmsnorm_reference(s["x"], s["w_attn_norm"])}),
    Stage("QKV GEMM", "day 10", ("h", "w_qkv"), ("qkv",),
          lambda s, c: {"qkv": ops.gemm(s["h"], s["w_qkv"])},
          lambda s, c: {"qkv": s["h"] @ s["w_qkv"]}, _gemm_tol(lambda c: c.hidden)),
    Stage("RoPE on q and k", "day 13 (JIT)", ("qkv", "pos"), ("qkv",),
          lambda s, c: ops.apply_rope(s["qkv"], s["pos"], c.qo_heads + c.kv_heads, c.head_dim, c.theta) or {},
          _rope_ref),
    Stage("append KV", "day 14", ("qkv", "pos", "k_cache", "v_cache"), ("q", "k_cache", "v_cache"),
          lambda s, c: {"q": ops.append_kv(s["qkv"], s["pos"], s["k_cache"], s["v_cache"], c.qo_heads)},
          _append_ref),
    Stage("decode attention", "day 11 (paged)", ("q", "k_cache", "v_cache", *PAGE_TABLE), ("o",),
          lambda s, c: {"o": ops.decode_attention_paged(s["q"], pages(s["k_cache"], c), pages(s["v_cache"], c),
                                                        *(s[k] for k in PAGE_TABLE))},
          _paged_attention_ref),
    Stage("O GEMM", "day 10", ("o", "w_o"), ("attn",),
          lambda s, c: {"attn": ops.gemm(s["o"].reshape(c.batch, c.hidden), s["w_o"])},
          lambda s, c: {"attn": s["o"].reshape(c.batch, c.hidden) @ s["w_o"]}, _gemm_tol(lambda c: c.hidden)),
    Stage("residual add + RMSNorm", "day 6", ("attn", "x", "w_mlp_norm"), ("attn", "x"),
          lambda s, c: ops.fused_add_rmsnorm(s["attn"], s["x"], s["w_mlp_norm"]) or {},
          _add_rmsnorm_ref),
    Stage("gate/up GEMM", "day 10", ("attn", "w_gate_up"), ("gate_up",),
          lambda s, c: {"gate_up": ops.gemm(s["attn"], s["w_gate_up"])},
          lambda s, c: {"gate_up": s["attn"] @ s["w_gate_up"]}, _gemm_tol(lambda c: c.hidden)),
    Stage("SiLU and mul", "day 2", ("gate_up",), ("act",),
          lambda s, c: {"act": ops.silu_and_mul(s["gate_up"])},
          lambda s, c: {"act": day02.silu_and_mul_reference(s["gate_up"])}),
    Stage("down GEMM", "day 10", ("act", "w_down"), ("mlp",),
          lambda s, c: {"mlp": ops.gemm(s["act"], s["w_down"])},
          lambda s, c: {"mlp": s["act"] @ s["w_down"]}, _gemm_tol(lambda c: c.intermediate)),
    Stage("residual add", "cupy", ("x", "mlp"), ("out",),
          lambda s, c: {"out": s["x"] + s["mlp"]},
          lambda s, c: {"out": s["x"] + s["mlp"]}),
)
END_TO_END_TOL = checks.Tolerance(3e-3, 0.0, True)


def reference_block(host: dict, cfg: BlockConfig) -> dict:
    """The whole block in float64 numpy from the fp16 inputs, each stage's outputs rounded to fp16
    (what the GPU stores between stages)."""
    state = dict(host)
    for stage in STAGES:
        inputs = {k: state[k].astype(np.float64) if state[k].dtype != np.int32 else state[k] for k in stage.inputs}
        for name, value in stage.reference(inputs, cfg).items():
            state[name] = value.astype(np.float16)
    return state


def _host(x):
    return x.copy() if isinstance(x, np.ndarray) else device.to_host(x)


def check_capstone(seed: int, batch: int, qo_heads: int, kv_heads: int, intermediate: int, kv_len: int) -> float:
    """Run the block on the GPU stage by stage; compare every stage's outputs with float64 numpy applied
    to that stage's actual inputs (naming the first wrong stage), then the block's output with the
    float64 reference of the whole block. Returns that last relative error (norm)."""
    cfg = BlockConfig(batch, qo_heads, kv_heads, intermediate, kv_len)
    host = block_inputs(cfg, seed)
    state = {k: device.asarray(v) for k, v in host.items()}
    for stage in STAGES:
        inputs = {k: _host(state[k]) for k in stage.inputs}
        state.update(stage.run(state, cfg))
        device.synchronize(stage.name)
        expected = stage.reference({k: v.astype(np.float64) if v.dtype != np.int32 else v
                                    for k, v in inputs.items()}, cfg)
        tol = stage.tol(cfg) if callable(stage.tol) else stage.tol
        for name, value in expected.items():
            got, what = device.to_host(state[name]), f"capstone stage '{stage.name}' ({stage.source}) output {name}"
            poison = np.isnan(value)  # a cache's rows after the new one (its last page's padding)
            if poison.any():
                checks.assert_untouched(got[poison], np.ones(int(poison.sum()), bool), seed=seed,
                                        name=f"{what}: the rows after the new token ({cfg})")
                got, value = got[~poison], value[~poison]
            checks.assert_close(got, value, dt="float16", tol=tol, seed=seed,
                                name=f"{what} (from its actual inputs; {cfg})")
    got, expected = device.to_host(state["out"]).astype(np.float64), reference_block(host, cfg)["out"].astype(np.float64)
    checks.assert_close(got, expected, dt="float16", tol=END_TO_END_TOL, seed=seed,
                        name=f"capstone block output, end to end against float64 numpy ({cfg})")
    return float(np.linalg.norm(got - expected) / np.linalg.norm(expected))


CAPSTONE_CASES = ({"batch": 1, "qo_heads": 2, "kv_heads": 1, "intermediate": 344, "kv_len": 1},
                  {"batch": 3, "qo_heads": 4, "kv_heads": 2, "intermediate": 704, "kv_len": 37},
                  {"batch": 33, "qo_heads": 16, "kv_heads": 4, "intermediate": 5504, "kv_len": 1000})
TIMING_CONFIG = BlockConfig(batch=64, qo_heads=32, kv_heads=8, intermediate=11008, kv_len=4095)


def stage_bytes(stage: Stage, state: dict) -> int:
    """Bytes a stage must move at least: its inputs read, its outputs written (appending to a cache
    writes one row of it and reads none)."""
    def size(name, written):
        x = state[name]
        if stage.name == "append KV" and name in ("k_cache", "v_cache"):
            return x.nbytes // x.shape[1] if written else 0
        return x.nbytes

    return sum(size(n, False) for n in stage.inputs) + sum(size(n, True) for n in stage.outputs)


def torch_block(torch, t: dict, cfg: BlockConfig) -> dict:
    """The same block in torch eager, the capstone's baseline: `t` holds torch views of the block's
    arrays (DLPack, no copy). F.rms_norm, matmuls (cuBLAS), RoPE (rotate half, in float), the new k, v
    rows written into t's caches at pos, F.scaled_dot_product_attention with enable_gqa over every
    request's kv_len + 1 tokens, SiLU * up. Returns {"out": the block's output}."""
    F = torch.nn.functional
    b, hq, hkv, d = cfg.batch, cfg.qo_heads, cfg.kv_heads, cfg.head_dim
    x, pos = t["x"], t["pos"].long()
    h = F.rms_norm(x, (cfg.hidden,), t["w_attn_norm"], eps=day06.EPS)
    q, k, v = (h @ t["w_qkv"]).split((cfg.hidden, hkv * d, hkv * d), dim=-1)
    half = d // 2
    freq = cfg.theta ** (-2.0 * torch.arange(half, device=x.device, dtype=torch.float32) / d)
    angle = pos.float()[:, None, None] * freq                              # [batch, 1, half]
    cos, sin = angle.cos(), angle.sin()

    def rope(y, heads):
        y = y.reshape(b, heads, d).float()
        y1, y2 = y[..., :half], y[..., half:]
        return torch.cat((y1 * cos - y2 * sin, y2 * cos + y1 * sin), dim=-1).to(x.dtype)

    rows = torch.arange(b, device=x.device)
    t["k_cache"][rows, pos] = rope(k, hkv)
    t["v_cache"][rows, pos] = v.reshape(b, hkv, d)
    n = cfg.kv_len + 1                                                     # every request's tokens
    o = F.scaled_dot_product_attention(rope(q, hq)[:, :, None], t["k_cache"][:, :n].transpose(1, 2),
                                       t["v_cache"][:, :n].transpose(1, 2), enable_gqa=True)
    x = x + o.reshape(b, cfg.hidden) @ t["w_o"]
    gate, up = (F.rms_norm(x, (cfg.hidden,), t["w_mlp_norm"], eps=day06.EPS) @ t["w_gate_up"]).chunk(2, dim=-1)
    return {"out": x + (F.silu(gate) * up) @ t["w_down"]}


def run_block(state: dict, cfg: BlockConfig) -> dict:
    """The course's block, every stage in turn on `state` (device arrays, updated in place)."""
    for stage in STAGES:
        state.update(stage.run(state, cfg))
    return state


def _torch_views(state: dict, torch) -> dict:
    return {k: torch.from_dlpack(v) for k, v in state.items()}


def check_torch_block(seed: int, batch: int, qo_heads: int, kv_heads: int, intermediate: int, kv_len: int) -> float:
    """The torch eager block and the course's on the same inputs (each on its own device copy): the
    outputs and the new cache rows must agree (relative error norm 3e-3). Returns the outputs'
    relative error (norm). Needs a GPU and torch."""
    torch = _torch()
    if torch is None or device.why_not_hardware():
        raise RuntimeError("the torch eager block needs torch and a CUDA GPU")
    cfg = BlockConfig(batch, qo_heads, kv_heads, intermediate, kv_len)
    host = block_inputs(cfg, seed)
    ours = run_block({k: device.asarray(v) for k, v in host.items()}, cfg)
    theirs = {k: device.asarray(v) for k, v in host.items()}
    out = torch_block(torch, _torch_views(theirs, torch), cfg)["out"]
    device.synchronize("the torch eager block")
    got, expected = out.double().cpu().numpy(), device.to_host(ours["out"]).astype(np.float64)
    name = f"torch eager block against the course's ({cfg})"
    checks.assert_close(got, expected, dt="float16", tol=END_TO_END_TOL, seed=seed, name=f"{name}: out")
    for cache in ("k_cache", "v_cache"):
        rows = device.to_host(theirs[cache])[:, cfg.kv_len].astype(np.float64)
        checks.assert_close(rows, device.to_host(ours[cache])[:, cfg.kv_len].astype(np.float64), dt="float16",
                            tol=END_TO_END_TOL, seed=seed, name=f"{name}: {cache} row kv_len (the new token)")
    return float(np.linalg.norm(got - expected) / np.linalg.norm(expected))


def timing_state(cfg: BlockConfig = TIMING_CONFIG) -> dict:
    """Random device inputs of the block at `cfg` (weights scaled by 1/sqrt(fan-in)), the page table."""
    cp = device.require_gpu()
    rng = cp.random.default_rng(0)
    h, i = cfg.hidden, cfg.intermediate
    shapes = {"x": (cfg.batch, h), "w_attn_norm": (h,), "w_qkv": (h, cfg.qkv_width), "w_o": (h, h),
              "w_mlp_norm": (h,), "w_gate_up": (h, 2 * i), "w_down": (i, h),
              "k_cache": (cfg.batch, cfg.max_len, cfg.kv_heads, cfg.head_dim)}
    shapes["v_cache"] = shapes["k_cache"]
    state = {k: (rng.standard_normal(s, dtype=np.float32) / (np.sqrt(s[0]) if len(s) == 2 and k != "x" else 1))
             .astype(np.float16) for k, s in shapes.items()}
    state["pos"] = cp.full(cfg.batch, cfg.kv_len, dtype=np.int32)
    state.update({k: cp.asarray(v) for k, v in page_table(cfg).items()})
    return state


def capture_block(state: dict, cfg: BlockConfig):
    """The course's block recorded once as a CUDA graph; returns a function that replays it on the
    current stream. A decode step's kernels take microseconds, and so does the Python around each
    launch (the binding's checks, DLPack, the launch itself): replayed, the launches cost nothing, as
    in the serving engines that call FlashInfer (vLLM, SGLang). Its arrays come from a memory pool of
    its own, kept alive with the graph, so that nothing else ever gets the memory the graph writes."""
    cp = device.require_gpu()
    stream, pool = cp.cuda.Stream(non_blocking=True), cp.cuda.MemoryPool()
    with stream, cp.cuda.using_allocator(pool.malloc):
        run_block(state, cfg)  # compiles what is not compiled yet, and fills the pool
        stream.synchronize()
        stream.begin_capture()
        run_block(state, cfg)
        graph = stream.end_capture()

    def replay():
        graph.launch(cp.cuda.get_current_stream())

    replay.pool = pool
    return replay


def time_block(cfg: BlockConfig = TIMING_CONFIG, repeat: int = 20) -> dict:
    """GPU times (medians of CUDA-event timings, L2 flushed before each) on random device data:
    "stages", each stage alone (stage, source, ms, share of their sum, GB/s, % of the copy ceiling);
    the whole blocks timed in turns: "block_ms", the course's replayed as a CUDA graph, "eager_ms", the
    same launched from Python, "torch_ms", the torch eager block on the same arrays (None without
    torch); "ratio", torch_ms / block_ms (> 1: the course's is faster), "eager_ratio" likewise."""
    state = timing_state(cfg)
    rows = []
    for stage in STAGES:
        state.update(stage.run(state, cfg))  # the outputs the next stage reads
        nbytes = stage_bytes(stage, state)
        m = bench.measure(stage.name, lambda: stage.run(state, cfg), size=nbytes, nbytes=nbytes, repeat=repeat)
        rows.append({"stage": stage.name, "source": stage.source, "ms": m.ms, "bytes": nbytes, "gbps": m.gbps})
    total = sum(r["ms"] for r in rows)
    ceiling = bench.copy_ceiling(1 << 28).gbps
    for r in rows:
        r["share"], r["of_copy"] = r["ms"] / total, r["gbps"] / ceiling
    blocks = {"course": capture_block(state, cfg), "eager": lambda: run_block(state, cfg)}
    torch = _torch()
    if torch is not None:
        views = _torch_views(state, torch)
        blocks["torch"] = lambda: torch_block(torch, views, cfg)
    times = {k: m.ms for k, m in bench.measure_interleaved(blocks, size=cfg.batch, repeat=max(1, repeat // 5)).items()}
    torch_ms = times.get("torch")
    return {"stages": rows, "block_ms": times["course"], "eager_ms": times["eager"], "torch_ms": torch_ms,
            "ratio": torch_ms / times["course"] if torch_ms else None,
            "eager_ratio": torch_ms / times["eager"] if torch_ms else None}


def stage_table(times: dict, cfg: BlockConfig = TIMING_CONFIG) -> str:
    """time_block's result as a table, the whole blocks and their ratio below it."""
    lines = [f"decode step of one block: batch {cfg.batch}, hidden {cfg.hidden}, heads {cfg.qo_heads}/"
             f"{cfg.kv_heads}, intermediate {cfg.intermediate}, kv_len {cfg.kv_len + 1} (paged, {PAGE_SIZE} "
             f"tokens a page); every stage goes through binding.py's as_cupy / current_stream / to_caller",
             f"{'stage':<24} {'kernel from':<20} {'us':>9} {'share':>6} {'GB/s':>8} {'% of copy':>9}"]
    for r in times["stages"]:
        lines.append(f"{r['stage']:<24} {r['source']:<20} {r['ms'] * 1e3:9.1f} {r['share']:6.1%} "
                     f"{r['gbps']:8.0f} {r['of_copy']:9.0%}")
    lines.append(f"{'sum of the stages':<45} {sum(r['ms'] for r in times['stages']) * 1e3:9.1f}")
    lines.append(f"{'course block, end to end (CUDA graph)':<45} {times['block_ms'] * 1e3:9.1f}")
    lines.append(f"{'course block, launched from Python':<45} {times['eager_ms'] * 1e3:9.1f}")
    if times["torch_ms"] is None:
        lines.append("torch eager block: not timed (torch is not installed, or sees no GPU)")
    else:
        lines.append(f"{'torch eager block, end to end':<45} {times['torch_ms'] * 1e3:9.1f}")
        lines.append(f"course block: {times['ratio']:.2f}x the speed of torch eager "
                     f"({'faster' if times['ratio'] > 1 else 'slower'}); launched from Python "
                     f"{times['eager_ratio']:.2f}x")
    return "\n".join(lines)


EXERCISES = (
    Exercise("day14", "binding", "binding.py", "rmsnorm from Python: DLPack, the current stream",
             check_binding, BINDING_CASES),
    Exercise("day14", "binding_errors", "binding.py", "bad arguments refused in one line, before any launch",
             check_binding_errors, BINDING_ERRORS),
    Exercise("day14", "rmsnorm_ffi", "rmsnorm_ffi.py", "a TVM-FFI function and a torch custom op (torch.compile)",
             check_rmsnorm_ffi, FFI_CASES),
    Exercise("day14", "append_kv", "append_kv.cu", "split qkv and append the new k, v to the cache",
             check_append_kv, APPEND_CASES, technique=(WIDE,)),
    Exercise("day14", "rope_append_kv", "rope_append_kv.cu", "RoPE and append KV fused: qkv read once",
             check_rope_append_kv, ROPE_APPEND_CASES, technique=(WIDE,)),
)
