"""Day 14: a FlashInfer-style Python API over the course's kernels (yours, or the solutions with
COURSE_KERNELS=solutions), in the manner of `flashinfer.norm`, `flashinfer.activation`, `flashinfer.decode`.

    from grader.jit import ops
    y = ops.rmsnorm(x, weight)           # cupy in, cupy out
    y = ops.rmsnorm(x_t, weight_t)       # torch in, torch out: no copies (DLPack both ways)

Every function checks its arguments first (framework, device, dtype, shape, contiguity) and says
what is wrong; then it launches on the current stream: torch's (`torch.cuda.current_stream()`) when
an argument is a torch tensor, else cupy's (`with cupy.cuda.Stream(): ...`). Nothing synchronizes:
like torch and FlashInfer, results are ready when the stream gets there.

bfloat16 comes only from torch (cupy has no bfloat16 dtype): the kernels' bf16 versions then run on
the same memory, viewed as 16-bit integers.

A kernel's file is found through the exercise registry (`grader.exercises.get`), and the launch code
this API shares with the days is in `grader.launchers`: nothing here imports a day module (day 14's
imports this one; tests/test_layers.py checks the layers).
"""
from __future__ import annotations

import contextlib
import warnings
from dataclasses import dataclass

import numpy as np

from grader import device, exercises, runner
from grader.launchers import decode, gemm as gemm_launch, rope

SUFFIX = {"float16": "f16", "bfloat16": "bf16", "float32": "f32"}
HALF = ("float16", "bfloat16")


# ---- what an argument is -------------------------------------------------------------------------

@dataclass(frozen=True)
class Tensor:
    """What validation needs to know about one argument, whatever its framework."""
    name: str
    framework: str          # "cupy" or "torch"
    shape: tuple
    dtype: str              # "float16", "bfloat16", "int32", ...
    contiguous: bool
    device: int | None      # CUDA device index; None for a CPU torch tensor


def describe(name: str, x) -> Tensor:
    """The Tensor of a cupy array or torch tensor; TypeError for anything else (numpy included)."""
    kind = type(x).__module__.split(".")[0]
    if kind == "cupy" or (device.emulated() and type(x).__name__ == "DeviceArray"):  # the emulator's arrays
        return Tensor(name, "cupy", tuple(x.shape), str(x.dtype), bool(x.flags.c_contiguous), 0)
    if kind == "cupy":
        return Tensor(name, "cupy", tuple(x.shape), str(x.dtype), bool(x.flags.c_contiguous), x.device.id)
    if kind == "torch" and hasattr(x, "is_contiguous"):
        index = (x.device.index or 0) if x.device.type == "cuda" else None
        return Tensor(name, "torch", tuple(x.shape), str(x.dtype).removeprefix("torch."), x.is_contiguous(),
                      index)
    if kind == "numpy":
        raise TypeError(f"{name} is a numpy array, in host memory: pass a cupy array or a CUDA torch "
                        f"tensor (cupy.asarray({name}) copies it to the GPU)")
    raise TypeError(f"{name}: expected a cupy array or a torch tensor, got {type(x).__module__}.{type(x).__name__}")


def validate(specs: list[tuple[Tensor, tuple]], dtypes: tuple[str, ...], current_device: int | None = None
             ) -> dict[str, int]:
    """Check each (tensor, shape spec) pair; return the sizes the named dimensions took.

    A spec is a tuple of ints (exact sizes) and names: a name takes its size from the first tensor
    that has it, and every later tensor must agree. All tensors share the first one's dtype (one of
    `dtypes`) and device, which must be `current_device` when given."""
    sizes: dict[str, tuple[int, str]] = {}
    first = specs[0][0]
    runs_on = current_device if current_device is not None else first.device
    for t, spec in specs:
        if t.device is None:
            raise ValueError(f"{t.name} is a CPU tensor: move it to the GPU first ({t.name}.cuda())")
        if t.device != runs_on:
            raise ValueError(f"{t.name} is on cuda:{t.device}, but this call runs on cuda:{runs_on}: "
                             f"put every argument on the current device")
        if t.dtype not in dtypes:
            hint = " (cupy has no bfloat16: pass a torch bfloat16 tensor)" if t.dtype == "uint16" else ""
            raise TypeError(f"{t.name} has dtype {t.dtype}; expected {' or '.join(dtypes)}{hint}")
        if t.dtype != first.dtype:
            raise TypeError(f"{t.name} has dtype {t.dtype} but {first.name} has {first.dtype}: use one dtype")
        want = "[" + ", ".join(map(str, spec)) + "]"
        if len(t.shape) != len(spec):
            raise ValueError(f"{t.name} has shape {list(t.shape)}; expected {len(spec)} dims {want}")
        for size, dim in zip(t.shape, spec):
            if isinstance(dim, int):
                if size != dim:
                    raise ValueError(f"{t.name} has shape {list(t.shape)}; expected {want}")
            elif dim in sizes and sizes[dim][0] != size:
                value, owner = sizes[dim]
                raise ValueError(f"{t.name} has shape {list(t.shape)}; expected {want} with {dim} = {value} "
                                 f"(from {owner})")
            else:
                sizes.setdefault(dim, (size, t.name))
        if not t.contiguous:
            raise ValueError(f"{t.name} is not contiguous (a transposed or sliced view?): pass "
                             f"{t.name}.contiguous() (torch) or cupy.ascontiguousarray({t.name})")
        if 0 in t.shape:
            raise ValueError(f"{t.name} is empty (shape {list(t.shape)})")
    return {name: size for name, (size, _) in sizes.items()}


def _check(specs, dtypes) -> dict[str, int]:
    """`validate` against the current cupy device."""
    return validate(specs, dtypes, 0 if device.emulated() else device.require_gpu().cuda.Device().id)


# ---- zero-copy views and streams -----------------------------------------------------------------

def as_cupy(x):
    """A cupy view of a cupy array or CUDA torch tensor: the same memory, no copy (DLPack)."""
    cp = device.require_gpu()
    if type(x).__module__.split(".")[0] != "torch":
        return x
    import torch

    if x.dtype == torch.bfloat16:  # cupy has no bfloat16: the same bits as int16, read as uint16
        return cp.from_dlpack(x.view(torch.int16)).view(cp.uint16)
    return cp.from_dlpack(x)


def _like(out, t: Tensor):
    """`out` (cupy) in the framework of `t`: a torch tensor on the same memory for torch callers."""
    if t.framework != "torch":
        return out
    import torch

    if t.dtype == "bfloat16":
        return torch.from_dlpack(out.view(np.int16)).view(torch.bfloat16)
    return torch.from_dlpack(out)


@contextlib.contextmanager
def current_stream(*tensors: Tensor):
    """Launches inside go to torch's current stream when a torch tensor is involved, else to cupy's."""
    cp = device.require_gpu()
    if any(t.framework == "torch" for t in tensors):
        import torch

        stream = torch.cuda.current_stream()
        with warnings.catch_warnings():  # cupy 14 prefers Stream.from_external; this works on 13 and 14
            warnings.simplefilter("ignore", DeprecationWarning)
            external = cp.cuda.ExternalStream(stream.cuda_stream, stream.device_index)
        with external:
            yield
    else:
        yield


def _module(day: str, name: str):
    """The compiled kernel file of an exercise (the student's, or the solution's)."""
    return runner.load(exercises.get(day, name))


# ---- the operations ------------------------------------------------------------------------------

def rmsnorm(x, weight, eps: float = 1e-6):
    """x * rsqrt(mean(x^2) + eps) * weight over the last axis; x [rows, d], weight [d] (day 6)."""
    tx, tw = describe("x", x), describe("weight", weight)
    dims = _check([(tx, ("rows", "d")), (tw, ("d",))], HALF)
    with current_stream(tx, tw):
        xc = as_cupy(x)
        out = device.require_gpu().empty_like(xc)
        kernel = _module("day06", "rmsnorm").get_function(f"rmsnorm_{SUFFIX[tx.dtype]}")
        kernel((dims["rows"],), (256,), (out, xc, as_cupy(weight), np.int32(dims["d"]), np.float32(eps)))
    return _like(out, tx)


def fused_add_rmsnorm(x, residual, weight, eps: float = 1e-6) -> None:
    """In place: residual += x, then x = rmsnorm(residual) * weight (day 6). x, residual [rows, d]."""
    tx, tr, tw = describe("x", x), describe("residual", residual), describe("weight", weight)
    dims = _check([(tx, ("rows", "d")), (tr, ("rows", "d")), (tw, ("d",))], HALF)
    with current_stream(tx, tr, tw):
        kernel = _module("day06", "fused_add_rmsnorm").get_function(f"fused_add_rmsnorm_{SUFFIX[tx.dtype]}")
        kernel((dims["rows"],), (256,), (as_cupy(x), as_cupy(residual), as_cupy(weight),
                                         np.int32(dims["d"]), np.float32(eps)))


def silu_and_mul(x):
    """silu(x[:, :d]) * x[:, d:] for x [rows, 2d]; returns [rows, d] (day 2)."""
    tx = describe("x", x)
    dims = _check([(tx, ("rows", "two_d"))], ("float32", *HALF))
    if dims["two_d"] % 2:
        raise ValueError(f"x has shape {list(tx.shape)}: the last dimension (gate | up) must be even")
    rows, d = dims["rows"], dims["two_d"] // 2
    with current_stream(tx):
        xc = as_cupy(x)
        out = device.require_gpu().empty((rows, d), dtype=xc.dtype)
        vec = 16 // xc.dtype.itemsize
        kernel = _module("day02", "silu_and_mul").get_function(f"silu_and_mul_{SUFFIX[tx.dtype]}")
        kernel((rows,), (min(1024, max(32, -(-d // vec))),), (out, xc, np.int32(d)))
    return _like(out, tx)


def gemm(a, b):
    """a [M, K] @ b [K, N], fp16 in and out, fp32 accumulation (day 10's tensor-core GEMM)."""
    ta, tb = describe("a", a), describe("b", b)
    _check([(ta, ("M", "K")), (tb, ("K", "N"))], ("float16",))
    m, n, k = gemm_launch.validate_shapes(ta.shape, tb.shape)
    with current_stream(ta, tb):
        bc, ldb = gemm_launch.padded_b(as_cupy(b), n)
        c = device.require_gpu().empty((m, n), dtype=np.float16)
        gemm_launch.launch(_module("day10", "gemm"), as_cupy(a), bc, c, m, n, k, ldb, sync=False)
    return _like(c, ta)


_rope_kernels: dict[tuple, object] = {}


def apply_rope(x, pos, heads: int, head_dim: int = 128, theta: float = 1e4) -> None:
    """In place: rotate the first `heads` heads of each row of x [tokens, row] (q and k of a packed
    qkv row, say) by position pos[token] (day 13's kernel family, through the JIT)."""
    tx, tp = describe("x", x), describe("pos", pos)
    dims = _check([(tx, ("tokens", "row"))], HALF)
    validate([(tp, (dims["tokens"],))], ("int32",), tx.device)
    if heads < 1 or heads * head_dim > dims["row"]:
        raise ValueError(f"heads={heads} of {head_dim} do not fit rows of {dims['row']} elements")
    vec, per_block = 8, 4
    module = _module("day13", "rope")
    key = (module.code, tx.dtype, head_dim, vec, per_block)
    if key not in _rope_kernels:  # render and look up once per process, as FlashInfer caches its module getters
        _rope_kernels[key] = rope.rope_kernel(module, tx.dtype, head_dim, vec, per_block)
    kernel = _rope_kernels[key]
    with current_stream(tx, tp):
        rope.launch_rope(kernel, as_cupy(x), as_cupy(pos), dims["tokens"], heads, dims["row"], head_dim,
                          vec, per_block, theta, sync=False)


def append_kv(qkv, pos, k_cache, v_cache, qo_heads: int):
    """Split one new token per request, qkv [batch, (qo_heads + 2 kv_heads) * head_dim], into q
    (returned, [batch, qo_heads, head_dim]) and row pos[b] of k_cache, v_cache [batch, max_len,
    kv_heads, head_dim] (the day-14 exercise). pos[b] < max_len is the caller's promise."""
    tq, tp = describe("qkv", qkv), describe("pos", pos)
    tk, tv = describe("k_cache", k_cache), describe("v_cache", v_cache)
    dims = _check([(tk, ("batch", "max_len", "kv_heads", "head_dim")),
                      (tv, ("batch", "max_len", "kv_heads", "head_dim")), (tq, ("batch", "row"))], HALF)
    validate([(tp, (dims["batch"],))], ("int32",), tk.device)
    d, hkv = dims["head_dim"], dims["kv_heads"]
    if d % 8:
        raise ValueError(f"head_dim {d} is not a multiple of 8 (the kernel moves 16-byte vectors)")
    if qo_heads < 1 or dims["row"] != (qo_heads + 2 * hkv) * d:
        raise ValueError(f"qkv rows hold {dims['row']} elements; with qo_heads={qo_heads}, kv_heads={hkv} "
                         f"and head_dim={d} they must hold (qo_heads + 2 * kv_heads) * head_dim = "
                         f"{(qo_heads + 2 * hkv) * d}")
    with current_stream(tq, tp, tk, tv):
        q = device.require_gpu().empty((dims["batch"], qo_heads, d), dtype=as_cupy(qkv).dtype)
        kernel = _module("day14", "append_kv").get_function(f"append_kv_{SUFFIX[tq.dtype]}")
        kernel((dims["batch"],), (256,), (q, as_cupy(k_cache), as_cupy(v_cache), as_cupy(qkv), as_cupy(pos),
                                          np.int32(qo_heads), np.int32(hkv), np.int32(d),
                                          np.int32(dims["max_len"])))
    return _like(q, tq)


def decode_attention(q, k, v):
    """softmax(q k^T / sqrt(128)) v for one query token per request (day 11): q [batch, qo_heads, 128],
    k, v [batch, kv_len, kv_heads, 128] with qo_heads a multiple of kv_heads; returns o like q."""
    tq, tk, tv = describe("q", q), describe("k", k), describe("v", v)
    dims = _check([(tq, ("batch", "qo_heads", decode.HEAD_DIM)),
                      (tk, ("batch", "kv_len", "kv_heads", decode.HEAD_DIM)),
                      (tv, ("batch", "kv_len", "kv_heads", decode.HEAD_DIM))], ("float16",))
    if dims["qo_heads"] % dims["kv_heads"]:
        raise ValueError(f"qo_heads = {dims['qo_heads']} is not a multiple of kv_heads = {dims['kv_heads']}")
    with current_stream(tq, tk, tv):
        o = device.require_gpu().empty(tq.shape, dtype=np.float16)
        decode.launch_decode_attention(_module("day11", "decode_attention"), as_cupy(q), as_cupy(k),
                                      as_cupy(v), o, sync=False)
    return _like(o, tq)

