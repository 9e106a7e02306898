"""Day 14: framework integration.

The first exercise is the binding layer (binding.py): rmsnorm from Python, for cupy arrays and torch
tensors, zero-copy through DLPack, on the caller's current stream, refusing bad arguments in one line;
`grader.jit.ops` goes through it for every operation. The second is the same kernel as a TVM-FFI
function with a PyTorch custom op over it (rmsnorm_ffi.py: C++ built by nvcc through
tvm_ffi.cpp.load_inline, `course::rmsnorm` under torch.compile(fullgraph=True)). Then the glue kernel
of a decode step (append_kv.cu), and RoPE fused into it (rope_append_kv.cu). The capstone, a
transformer block for one decode step built from the course's kernels, is in capstone.py.
"""
from __future__ import annotations

import importlib.util
import os
import re
import shutil
from pathlib import Path

import numpy as np

from grader import checks, device, runner
from grader.exercises import Exercise
from grader.messages import say
from grader.references.layers import EPS, norm_tolerance, rmsnorm_reference, rope_reference
from grader.references.torch_gpu import torch_on_gpu
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

def _binding_inputs(seed: int, rows: int, d: int):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((rows, d)).astype(np.float16), (1 + 0.5 * rng.standard_normal(d)).astype(np.float16)


def _as(a: np.ndarray, dtype: str) -> np.ndarray:
    """`a` rounded to float16 or bfloat16 (as torch's .to() does), as float32."""
    return a.astype(np.float32).astype(device.dtype(dtype)).astype(np.float32)


def _rmsnorm_close(got, x, w, dtype: str, seed: int, what: str) -> None:
    checks.assert_close(got, rmsnorm_reference(x, w), dt=dtype, tol=norm_tolerance(dtype),
                        seed=seed, name=what)


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
        torch = torch_on_gpu()
        if torch is not None:
            found["torch"] = _with_torch(module, torch, x, w)
    return found


def _check_torch(found: dict, x, w, seed: int, where: str) -> None:
    for name, got in found.items():
        if not got["shares"]:
            raise AssertionError(say("day14.shares", name=name))
        if not got["returned_out"]:
            raise AssertionError(say("day14.torch_out", name=name))
        xt, wt = _as(x, name), _as(w, name)
        _rmsnorm_close(got["out"], xt, wt, name, seed, say("name.day14.torch_out", name=name, where=where))
        if got["kind"] != "ok":
            raise AssertionError(say("day14.torch_kind", name=name, kind=got["kind"]))
        _rmsnorm_close(got["y"], _as(xt + 1, name), wt, name, seed,
                       say("name.day14.busy_torch", name=name, where=where, late=say("name.day14.late")))


@runner.harnessed(_run_binding)
def check_binding(found: dict, seed: int, rows: int, d: int) -> None:
    """The binding's rmsnorm against float64: into a NaN-poisoned `out`, and into a new array. On a GPU
    also on a busy cupy stream and, where torch is installed, with torch tensors (fp16 and bf16: zero
    copy, torch's current stream); the emulator has neither streams nor torch."""
    x, w = _binding_inputs(seed, rows, d)
    where = f"(rows={rows}, d={d})"
    if not found["returned_out"]:
        raise AssertionError(say("day14.return_out", where=where))
    _rmsnorm_close(found["out"], x, w, "float16", seed, say("name.day14.into_out", where=where))
    _rmsnorm_close(found["new"], x, w, "float16", seed, say("name.day14.new", where=where))
    if "busy_cupy" in found:
        if not found["busy_cupy"]["busy"]:
            raise AssertionError(say("day14.idle", where=where))
        _rmsnorm_close(found["busy_cupy"]["y"], (x.astype(np.float32) + 1).astype(np.float16), w, "float16", seed,
                       say("name.day14.busy_cupy", where=where, late=say("name.day14.late")))
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


# The words a refusal must hold; day14.word.* are the catalogue's, found in either language (the course's
# ops.describe / validate speak the lesson's, a binding's own messages may be English).
_ERRORS = {"framework": (TypeError, ("x", "numpy", "day14.word.host")), "dtype": (TypeError, ("x", "day14.word.float32")),
           "weight_shape": (ValueError, ("weight", "[{d1}]")), "contiguity": (ValueError, ("x", "day14.word.contiguous")),
           "out_shape": (ValueError, ("out", "[{rows}, {d1}]")), "out_dtype": (TypeError, ("out", "float32"))}


def _words(wrong: str, rows: int, d: int, lang: str | None = None) -> tuple[str, ...]:
    """The words a refusal of this kind of bad call must hold, in `lang` (default: the lessons')."""
    return tuple(say(w, lang) if w.startswith("day14.word.") else w.format(rows=rows, d1=d + 1)
                 for w in _ERRORS[wrong][1])


@runner.harnessed(_run_binding_errors)
def check_binding_errors(found: dict, seed: int, wrong: str, rows: int, d: int) -> None:
    """A bad call is refused before any launch (`out`, NaN-poisoned, stays so) with a one-line
    TypeError or ValueError that names the argument and what is wrong with it."""
    error = _ERRORS[wrong][0]
    call = say("day14.bad_call", wrong=wrong)
    expected = say("day14.expected", error=error.__name__, words=", ".join(_words(wrong, rows, d)))
    if found["raised"] is None:
        raise AssertionError(say("day14.accepted", call=call))
    message = found["message"]
    right_type = found["type_error"] if error is TypeError else found["value_error"]
    named = any(all(word in message for word in _words(wrong, rows, d, lang)) for lang in ("en", "zh"))
    if not right_type or "\n" in message or not named:
        raise AssertionError(say("day14.wrong_error", call=call, expected=expected, raised=found["raised"], message=message))
    out = found["out"]
    checks.assert_untouched(out, np.ones(out.shape, bool), seed=seed,
                            name=say("day14.launched_first", call=call))


BINDING_CASES = ({"rows": 1, "d": 8}, {"rows": 3, "d": 1000}, {"rows": 37, "d": 4100})
BINDING_ERRORS = tuple({"wrong": w, "rows": 5, "d": 64} for w in ("framework", "dtype", "weight_shape",
                                                                 "contiguity", "out_shape", "out_dtype"))


# ---- exercise 2: a TVM-FFI function and a PyTorch custom op (rmsnorm_ffi.py) ---------------------------

#: What a grade without a GPU says of rmsnorm_ffi: its refusals pass, the rest is not graded here (in the
#: lessons' language; nbgrader_course and days/day14's test look for it with `not_graded_here`).
NOT_GRADED_WITHOUT_GPU = say("day14.no_gpu", "en")


def not_graded_here(text: str) -> bool:
    """Whether `text` says, in either language, that rmsnorm_ffi's points wait for a GPU."""
    return any(say("day14.no_gpu", lang) in text for lang in ("en", "zh"))


def why_no_ffi() -> str | None:
    """Why rmsnorm_ffi.py cannot be built here, in one line (apache-tvm-ffi, nvcc or ninja missing);
    None when it can."""
    if importlib.util.find_spec("tvm_ffi") is None:
        return say("day14.needs_tvm")
    homes = [os.environ.get(v) for v in ("CUDA_HOME", "CUDA_PATH")] + ["/usr/local/cuda"]
    if not (shutil.which("nvcc") or any(h and Path(h, "bin", "nvcc").is_file() for h in homes)):
        return say("day14.needs_nvcc")
    if not shutil.which("ninja"):
        return say("day14.needs_ninja")
    return None


def _ffi_bad_calls(rows: int, d: int):
    """(label, x, weight, out, the message expected) for arguments the function must refuse; numpy
    arrays (DLPack, in host memory), so that they are refused without a GPU too."""
    f16 = np.float16
    z = np.zeros
    return ((say("day14.label.weight"), z((rows, d), f16), z(d + 1, f16), z((rows, d), f16),
             rf"weight has shape \[{d + 1}\]; expected \[d\] with d = {d} \(from x\)"),
            (say("day14.label.out"), z((rows, d), f16), z(d, f16), z((rows, d + 1), f16),
             rf"out has shape \[{rows}, {d + 1}\]; expected x's \[{rows}, {d}\]"),
            (say("day14.label.3d"), z((rows, d, 1), f16), z(d, f16), z((rows, d), f16),
             rf"x has shape \[{rows}, {d}, 1\]; expected 2 dims \[rows, d\]"),
            ("float32", z((rows, d), np.float32), z(d, np.float32), z((rows, d), np.float32),
             r"x has a dtype other than float16 or bfloat16"),
            (say("day14.label.host"), z((rows, d), f16), z(d, f16), z((rows, d), f16),
             r"x must be on a CUDA device"))


def _refused(found: dict, label: str, pattern: str) -> None:
    """`found` (what a call raised) must be a one-line ValueError matching `pattern` in full."""
    what = say("day14.ffi_with", label=label)
    if found["raised"] is None:
        raise AssertionError(say("day14.ffi_accepted", what=what))
    if not found["value_error"]:
        raise AssertionError(say("day14.ffi_not_value_error", what=what, raised=found["raised"], message=found["message"]))
    if not re.fullmatch(pattern, found["message"]):
        raise AssertionError(say("day14.ffi_not_matching", what=what, pattern=pattern, message=found["message"]))


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
        y = torch.ops.course.rmsnorm(x * 0.5, w, EPS)
        return y, y.float().abs().amax()
    return torch.compile(block, fullgraph=True)


def _ffi_with_torch(module, lib, torch, seed: int, rows: int, d: int, dtype: str) -> dict:
    """Into NaN-poisoned out; a refused CUDA call (out after it); torch's busy current stream; the
    custom op eager and under torch.compile(fullgraph=True)."""
    dt = getattr(torch, dtype)
    x32, w32 = _ffi_inputs(seed, rows, d, dtype)
    x, w = torch.from_numpy(x32).cuda().to(dt), torch.from_numpy(w32).cuda().to(dt)
    out = torch.full_like(x, float("nan"))
    lib.rmsnorm(x, w, out, EPS)
    torch.cuda.synchronize()
    found = {"out": _torch_host(out)}
    out.fill_(float("nan"))
    found["refused_cuda"] = _raised(lambda: lib.rmsnorm(x, w[:-1], out, EPS))
    torch.cuda.synchronize()
    found["out_after_refusal"] = _torch_host(out)
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        for cycles, add in ((0, 0), (BUSY_CYCLES, 1)):
            torch.cuda._sleep(cycles)
            x += add
            lib.rmsnorm(x, w, out, EPS)
        found["busy"] = not stream.query()
    stream.synchronize()
    found["on_stream"] = _torch_host(out)
    found["eager"] = _torch_host(module.op()(x, w, EPS))
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
    found = {"refusals": [_raised(lambda: lib.rmsnorm(x, w, out, EPS))
                          for _, x, w, out, _ in _ffi_bad_calls(rows, d)]}
    if device.why_not_hardware():
        found["no_gpu"] = device.why_not_hardware()
        return found
    torch = torch_on_gpu()
    if torch is not None:
        found["torch"] = _ffi_with_torch(module, lib, torch, seed, rows, d, dtype)
    elif dtype == "float16":
        x, w = _binding_inputs(seed, rows, d)
        out = device.empty((rows, d), "float16")
        lib.rmsnorm(device.asarray(x), device.asarray(w), out, EPS)
        device.synchronize("rmsnorm_ffi")
        found["cupy"] = device.to_host(out)
    return found


def _ffi_close(got, x, w, dtype: str, seed: int, what: str) -> None:
    """got against float64, within day 6's tolerance."""
    checks.assert_close(got, rmsnorm_reference(x, w), dt=dtype, tol=norm_tolerance(dtype), seed=seed,
                        name=say("name.day14.against", what=what))


def _check_ffi_torch(found: dict, seed: int, rows: int, d: int, dtype: str, where: str) -> None:
    x, w = _ffi_inputs(seed, rows, d, dtype)
    _ffi_close(found["out"], x, w, dtype, seed, say("name.day14.ffi_out", where=where))
    _refused(found["refused_cuda"], say("day14.label.cuda_weight"),
             rf"weight has shape \[{d - 1}\]; expected \[d\] with d = {d} \(from x\)")
    after = found["out_after_refusal"]
    checks.assert_untouched(after, np.ones(after.shape, bool), seed=seed,
                            name=say("day14.ffi_refused_untouched", where=where))
    if not found["busy"]:
        raise AssertionError(say("day14.ffi_idle", where=where))
    x1 = _as(x + 1, dtype)
    _ffi_close(found["on_stream"], x1, w, dtype, seed, say("name.day14.ffi_busy", where=where, late=say("name.day14.late")))
    _ffi_close(found["eager"], x1, w, dtype, seed, say("name.day14.eager", where=where))
    if "compile_error" in found:
        raise AssertionError(say("day14.compile_error", where=where, error=found["compile_error"]))
    _ffi_close(found["compiled"], _as(x1 * 0.5, dtype), w, dtype, seed,
               say("name.day14.compiled", where=where))
    if not found["peak_agrees"]:
        raise AssertionError(say("day14.peak", where=where))


@runner.harnessed(_run_rmsnorm_ffi)
def check_rmsnorm_ffi(found: dict, seed: int, rows: int, d: int, dtype: str) -> None:
    """Build rmsnorm_ffi.py (nvcc, through tvm_ffi.cpp.load_inline); bad arguments (numpy arrays, through
    DLPack) get one-line ValueErrors naming the argument, host memory included. On a GPU with torch:
    values into NaN-poisoned out against float64, torch's busy current stream, the custom op eager and
    under torch.compile(fullgraph=True); on a GPU without torch, float16 values through cupy arrays
    (DLPack). Without a GPU nothing is launched, so the exercise is not graded there (it fails, saying
    so, once the refusals pass): a function that never launches cannot earn its points."""
    if dtype not in SUFFIX:
        raise ValueError(say("arg.one_of", what="dtype", value=dtype, known=", ".join(SUFFIX)))
    if "no_ffi" in found:
        raise AssertionError(say("day14.no_ffi", why=found["no_ffi"]))
    if "build_error" in found:
        raise AssertionError(say("day14.no_build", log=found["build_error"]))
    for raised, (label, *_, pattern) in zip(found["refusals"], _ffi_bad_calls(rows, d), strict=True):
        _refused(raised, label, pattern)
    where = f"({dtype}, rows={rows}, d={d})"
    if "no_gpu" in found:
        raise AssertionError(say("day14.not_graded", where=where, marker=say("day14.no_gpu"), why=found["no_gpu"]))
    if "torch" in found:
        _check_ffi_torch(found["torch"], seed, rows, d, dtype, where)
    elif dtype == "float16":
        x, w = _binding_inputs(seed, rows, d)
        _rmsnorm_close(found["cupy"], x, w, "float16", seed, say("name.day14.ffi_cupy", where=where))


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
        raise ValueError(say("arg.one_of", what="dtype", value=dtype, known=", ".join(SUFFIX)))
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
        new = rope_reference(new, pos, qo_heads + kv_heads, ROPE_THETA)
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
                            name=say("name.day14.history", kernel=kernel, name=name, where=where))
        heads = slice(qo_heads + part * kv_heads, qo_heads + (part + 1) * kv_heads)
        checks.assert_close(got[rows, pos], new[:, heads], dt=dtype, tol=rotated if part == 0 else exact,
                            seed=seed, name=say("name.day14.new_row", prefix=what if part == 0 else kernel + " ",
                                                name=name, where=where))
        checks.assert_untouched(got[later], np.ones(got[later].shape, bool), seed=seed,
                                name=say("name.day14.after", kernel=kernel, name=name, where=where))


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
