"""Day 14: a FlashInfer-style Python API over the course's kernels (yours, or the solutions with
COURSE_KERNELS=solutions), in the manner of `flashinfer.norm`, `flashinfer.activation`, `flashinfer.decode`.

    from grader.jit import ops
    y = ops.rmsnorm(x, weight)           # cupy in, cupy out
    y = ops.rmsnorm(x_t, weight_t)       # torch in, torch out: no copies (DLPack both ways)

Every function checks its arguments first (framework, device, dtype, shape, contiguity) and says
what is wrong; then it launches on the current stream: torch's (`torch.cuda.current_stream()`) when
an argument is a torch tensor, else cupy's (`with cupy.cuda.Stream(): ...`). Nothing synchronizes:
like torch and FlashInfer, results are ready when the stream gets there.

The binding itself is day 14's first exercise (days/day14/binding.py, or solutions/ with
COURSE_KERNELS=solutions): its `as_cupy` and `to_caller` (DLPack both ways) and `current_stream` are
the only doors every operation here goes through, and its `rmsnorm` is `ops.rmsnorm`. This module
gives it what it uses: `describe`, `check` (one-line errors) and `kernel`.

bfloat16 comes only from torch (cupy has no bfloat16 dtype): the kernels' bf16 versions then run on
the same memory, viewed as 16-bit integers.

A kernel's file is found through the exercise registry (`grader.exercises.get`), and the launch code
this API shares with the days is in `grader.launchers`: nothing here imports a day module (day 14's
imports this one; tests/test_layers.py checks the layers).

A call re-derives nothing it did before: each file (binding.py, a kernel's .cu) is looked up and loaded
once and its kernels fetched once; a call then costs one stat per file, so an edited file counts on the
next call (tests/test_day14_api.py times a call against torch eager's on a GPU).

The compiled door (grader/jit/torch_door.py): when the binding in force is the course's (COURSE_KERNELS=
solutions, no submission being graded), `rmsnorm` (without `out`) and `silu_and_mul` called with torch
tensors launch through one TVM-FFI call in C++ instead: it checks what `check` checks, allocates the
output from torch's allocator and launches the kernel this module loaded (still one stat of its .cu per
call) on torch's current stream. A call it cannot serve (a bad argument, no door on this machine) runs
the Python path below, whose checks say what is wrong. A student's own binding.py always serves its own
calls: its doors are day 14's exercise.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import numpy as np

from grader import device, exercises, paths, runner
from grader.jit import torch_door
from grader.launchers import decode, gemm as gemm_launch, rope
from grader.messages import say

SUFFIX = {"float16": "f16", "bfloat16": "bf16", "float32": "f32"}
HALF = ("float16", "bfloat16")
FLOATS = ("float32", *HALF)


# ---- what an argument is -------------------------------------------------------------------------

class Tensor(NamedTuple):
    """What validation needs to know about one argument, whatever its framework."""
    name: str
    framework: str          # "cupy" or "torch"
    shape: tuple
    dtype: str              # "float16", "bfloat16", "int32", ...
    contiguous: bool
    device: int | None      # CUDA device index; None for a CPU torch tensor


_frameworks: dict[type, str] = {}


def framework(x) -> str:
    """The top-level package of an object's type: "cupy", "torch", "numpy", "builtins", ... (worked out
    once per type)."""
    kind = _frameworks.get(type(x))
    if kind is None:
        kind = _frameworks[type(x)] = type(x).__module__.split(".")[0]
    return kind


_dtype_names: dict = {}


def _dtype_name(dt) -> str:
    """"float16" for numpy's float16 or torch.float16 (worked out once per dtype)."""
    name = _dtype_names.get(dt)
    if name is None:
        name = _dtype_names[dt] = str(dt).removeprefix("torch.")
    return name


def describe(name: str, x) -> Tensor:
    """The Tensor of a cupy array or torch tensor; TypeError for anything else (numpy included)."""
    kind = framework(x)
    if kind == "cupy":
        return Tensor(name, "cupy", x.shape, _dtype_name(x.dtype), x.flags.c_contiguous, x.data.device_id)
    if kind == "torch" and hasattr(x, "is_contiguous"):
        return Tensor(name, "torch", tuple(x.shape), _dtype_name(x.dtype), x.is_contiguous(),
                      x.get_device() if x.is_cuda else None)
    if kind == "grader" and type(x).__name__ == "DeviceArray":  # the emulator's arrays
        return Tensor(name, "cupy", tuple(x.shape), _dtype_name(x.dtype), bool(x.flags.c_contiguous), 0)
    if kind == "numpy":
        raise TypeError(say("ops.numpy", name=name))
    raise TypeError(say("ops.framework", name=name, got=f"{type(x).__module__}.{type(x).__name__}"))


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
            raise ValueError(say("ops.cpu", name=t.name))
        if t.device != runs_on:
            raise ValueError(say("ops.device", name=t.name, device=t.device, runs_on=runs_on))
        if t.dtype not in dtypes:
            hint = say("ops.no_bf16") if t.dtype == "uint16" else ""
            raise TypeError(say("ops.dtype", name=t.name, dtype=t.dtype, expected=say("ops.or").join(dtypes),
                                hint=hint))
        if t.dtype != first.dtype:
            raise TypeError(say("ops.mixed", name=t.name, dtype=t.dtype, first=first.name, first_dtype=first.dtype))
        if len(t.shape) != len(spec):
            raise ValueError(say("ops.dims", name=t.name, shape=list(t.shape), count=len(spec), spec=_written(spec)))
        for size, dim in zip(t.shape, spec):
            if isinstance(dim, int):
                if size != dim:
                    raise ValueError(say("ops.shape", name=t.name, shape=list(t.shape), spec=_written(spec)))
            elif dim not in sizes:
                sizes[dim] = (size, t.name)
            elif sizes[dim][0] != size:
                value, owner = sizes[dim]
                raise ValueError(say("ops.shape_from", name=t.name, shape=list(t.shape), spec=_written(spec), dim=dim,
                                     value=value, owner=owner))
        if not t.contiguous:
            raise ValueError(say("ops.contiguous", name=t.name))
        if 0 in t.shape:
            raise ValueError(say("ops.empty", name=t.name, shape=list(t.shape)))
    return {name: size for name, (size, _) in sizes.items()}


def _written(spec: tuple) -> str:
    """A shape spec as an error message writes it: [rows, d]."""
    return "[" + ", ".join(map(str, spec)) + "]"


def check(specs: list[tuple[Tensor, tuple]], dtypes: tuple[str, ...]) -> dict[str, int]:
    """`validate` against the current device."""
    return validate(specs, dtypes, device.current_device())


# ---- the course's kernels, and the student's binding ---------------------------------------------

@dataclass(frozen=True)
class _Loaded:
    """An exercise file as loaded, what keeps it current and its kernels fetched so far."""
    module: object
    watched: tuple      # (path, its runner.version or None: absent) pairs, re-checked on each call
    kernels: dict       # function name -> kernel: each fetched from the module once


_loaded: dict[tuple, _Loaded] = {}


def _version(path: str) -> tuple | None:
    try:
        return runner.version(path)
    except OSError:
        return None


_environ = os.environ._data if os.name == "posix" and isinstance(getattr(os.environ, "_data", None), dict) else None
_SOURCE_DIR_KEY, _KERNELS_KEY = os.fsencode(paths.SOURCE_DIR_ENV), os.fsencode(paths.KERNELS_ENV)


def _env() -> tuple:
    """($COURSE_SOURCE_DIR, $COURSE_KERNELS) as keys of the caches below: on POSIX the bytes os.environ
    holds (read from its table: os.environ.get of an absent name raises and catches a KeyError, a
    microsecond a call), else the strings."""
    if _environ is not None:
        return _environ.get(_SOURCE_DIR_KEY), _environ.get(_KERNELS_KEY)
    return os.environ.get(paths.SOURCE_DIR_ENV), os.environ.get(paths.KERNELS_ENV)


def _current(day: str, name: str) -> _Loaded:
    """The loaded file of an exercise: the student's (days/, or the submission being graded), or the
    solution's with COURSE_KERNELS=solutions. A submission graded alone holds one day's files: another
    day's kernel then comes from the course (in a student edition, which has none, the student's days/).

    Which file is decided once per environment; after that a call costs one stat of it (two for a
    submission that lacks it): a file of another `runner.version` (an edit) is loaded again."""
    key = (day, name, *_env(), paths.DAYS, paths.SOLUTIONS)
    hit = _loaded.get(key)
    if hit is not None:
        for path, stamp in hit.watched:
            if _version(path) != stamp:
                break
        else:
            return hit
    ex = exercises.get(day, name)
    submission = os.environ.get(paths.SOURCE_DIR_ENV)
    theirs = Path(submission) / ex.source if submission else None
    if theirs is None or theirs.is_file():
        path, load, absent = runner.source_of(ex), lambda: runner.load(ex), ()
    elif paths.SOLUTIONS.is_dir():
        path, load = runner.source_of(ex, solutions=True), lambda: runner.load(ex, solutions=True)
        absent = ((str(theirs), None),)
    else:  # a student edition: the student's own kernel
        path = paths.DAYS / ex.day / ex.source
        load, absent = (lambda: device.load(path)), ((str(theirs), None),)
    watched = ((str(path), _version(path)),) + absent  # stamped before loading: an edit meanwhile reloads
    _loaded[key] = entry = _Loaded(load(), watched, {})
    return entry


def _module(day: str, name: str):
    """The loaded file of an exercise (see `_current`)."""
    return _current(day, name).module


def kernel(day: str, exercise: str, function: str):
    """One compiled kernel of an exercise's .cu file: kernel("day06", "rmsnorm", "rmsnorm_f16")."""
    entry = _current(day, exercise)
    fn = entry.kernels.get(function)
    if fn is None:
        fn = entry.kernels[function] = entry.module.get_function(function)
    return fn


def binding():
    """Day 14's binding module (binding.py): as_cupy, to_caller, current_stream, rmsnorm."""
    return _module("day14", "binding")


# ---- the compiled door, for torch tensors with the course's binding ------------------------------

_targets: dict[tuple, tuple | bool] = {}  # (op, dtype, environment, DAYS, SOLUTIONS) -> the door's target or False
_OPS = {"rmsnorm": ("day06", "rmsnorm"), "silu_and_mul": ("day02", "silu_and_mul")}


def _target(key: tuple):
    """(door function, CUfunction, its device, kernel file, its version) for key = (op, x's dtype,
    $COURSE_SOURCE_DIR, $COURSE_KERNELS, DAYS, SOLUTIONS), or False where the door does not serve such
    calls: a submission being graded or a student's binding.py in force (its own doors serve its calls),
    no door on this machine (`torch_door.why_not()`), a dtype the op has no kernel for (the Python path
    then says so), or a kernel that is no cupy CUfunction (the emulator). Worked out once per key; a call
    the door refuses drops it (`_targets`), so a kernel file edited since is loaded again first."""
    op, dtype, source_dir = key[:3]
    target = False
    # binding.py is solutions/day14's: paths.source_path's choice without a submission
    ours = not source_dir and paths.use_solutions() and paths.SOLUTIONS.is_dir()
    door = torch_door.get() if ours else None
    function = door.kernels[op].get(dtype) if door is not None else None
    if function is not None:
        day, exercise = _OPS[op]
        file = door.watch(_current(day, exercise).watched[0][0])
        version = door.version(file)
        fn = kernel(day, exercise, function)  # after `version`: from a file as new as the one it saw
        ptr = getattr(getattr(fn, "kernel", None), "ptr", None)  # cupy's CUfunction (for this device)
        if isinstance(ptr, int):
            target = (getattr(door, op), ptr, device.current_device(), file, version)
    _targets[key] = target
    return target


def _through_door(op: str, x, *args):
    """The compiled door's result of an all-torch call of `op` (see `_target`), or None: the Python path
    then serves the call (and words what is wrong with it)."""
    key = (op, getattr(x, "dtype", None), *_env(), paths.DAYS, paths.SOLUTIONS)
    t = _targets.get(key)
    if t is None:
        t = _target(key)
    if not t:
        return None
    try:
        y = t[0](t[1], t[2], t[3], t[4], x, *args)
    except Exception:  # noqa: BLE001 - say, an argument TVM-FFI cannot convert: the Python path words it
        y = None
    if y is None:
        _targets.pop(key, None)  # refused: a bad argument, or the kernel file changed (loaded again first)
    return y


# ---- the operations ------------------------------------------------------------------------------

def rmsnorm(x, weight, eps: float = 1e-6, out=None):
    """x * rsqrt(mean(x^2) + eps) * weight over the last axis; x [rows, d], weight [d] (day 6): the
    binding's own (day 14's exercise); with the course's binding, torch tensors and no `out`, the same
    through the compiled door."""
    if out is None and (_frameworks.get(type(x)) or framework(x)) == "torch" == (
            _frameworks.get(type(weight)) or framework(weight)):
        y = _through_door("rmsnorm", x, weight, eps)
        if y is not None:
            return y
    return binding().rmsnorm(x, weight, eps, out)


def fused_add_rmsnorm(x, residual, weight, eps: float = 1e-6) -> None:
    """In place: residual += x, then x = rmsnorm(residual) * weight (day 6). x, residual [rows, d]."""
    bind = binding()
    tx, tr, tw = describe("x", x), describe("residual", residual), describe("weight", weight)
    dims = check([(tx, ("rows", "d")), (tr, ("rows", "d")), (tw, ("d",))], HALF)
    with bind.current_stream(tx, tr, tw):
        fn = kernel("day06", "fused_add_rmsnorm", f"fused_add_rmsnorm_{SUFFIX[tx.dtype]}")
        fn((dims["rows"],), (256,), (bind.as_cupy(x), bind.as_cupy(residual), bind.as_cupy(weight),
                                     np.int32(dims["d"]), np.float32(eps)))


def silu_and_mul(x):
    """silu(x[:, :d]) * x[:, d:] for x [rows, 2d]; returns [rows, d] (day 2)."""
    if (_frameworks.get(type(x)) or framework(x)) == "torch":
        y = _through_door("silu_and_mul", x)
        if y is not None:
            return y
    bind = binding()
    tx = describe("x", x)
    dims = check([(tx, ("rows", "two_d"))], FLOATS)
    if dims["two_d"] % 2:
        raise ValueError(say("ops.gate_up", shape=list(tx.shape)))
    rows, d = dims["rows"], dims["two_d"] // 2
    fn = kernel("day02", "silu_and_mul", f"silu_and_mul_{SUFFIX[tx.dtype]}")
    with bind.current_stream(tx):
        xc = bind.as_cupy(x)
        out = device.require_gpu().empty((rows, d), dtype=xc.dtype)
        vec = 16 // xc.dtype.itemsize
        fn((rows,), (min(1024, max(32, -(-d // vec))),), (out, xc, np.int32(d)))
    return bind.to_caller(out, tx)


def gemm(a, b):
    """a [M, K] @ b [K, N], fp16 in and out, fp32 accumulation (day 10's tensor-core GEMM)."""
    bind = binding()
    ta, tb = describe("a", a), describe("b", b)
    check([(ta, ("M", "K")), (tb, ("K", "N"))], ("float16",))
    m, n, k = gemm_launch.validate_shapes(ta.shape, tb.shape)
    with bind.current_stream(ta, tb):
        bc, ldb = gemm_launch.padded_b(bind.as_cupy(b), n)
        c = device.require_gpu().empty((m, n), dtype=np.float16)
        gemm_launch.launch(gemm_launch.for_rows(_module("day10", "gemm"), m), bind.as_cupy(a), bc, c, m, n, k, ldb,
                           sync=False)
    return bind.to_caller(c, ta)


_rope_kernels: dict[tuple, object] = {}


def apply_rope(x, pos, heads: int, head_dim: int = 128, theta: float = 1e4) -> None:
    """In place: rotate the first `heads` heads of each row of x [tokens, row] (q and k of a packed
    qkv row, say) by position pos[token] (day 13's kernel family, through the JIT)."""
    bind = binding()
    tx, tp = describe("x", x), describe("pos", pos)
    dims = check([(tx, ("tokens", "row"))], HALF)
    validate([(tp, (dims["tokens"],))], ("int32",), tx.device)
    if heads < 1 or heads * head_dim > dims["row"]:
        raise ValueError(say("ops.heads_fit", heads=heads, head_dim=head_dim, row=dims["row"]))
    vec, per_block = 8, 4
    module = _module("day13", "rope")
    key = (module.code, tx.dtype, head_dim, vec, per_block)
    if key not in _rope_kernels:  # render and look up once per process, as FlashInfer caches its module getters
        _rope_kernels[key] = rope.rope_kernel(module, tx.dtype, head_dim, vec, per_block)
    with bind.current_stream(tx, tp):
        rope.launch_rope(_rope_kernels[key], bind.as_cupy(x), bind.as_cupy(pos), dims["tokens"], heads, dims["row"], head_dim,
                          vec, per_block, theta, sync=False)


def append_kv(qkv, pos, k_cache, v_cache, qo_heads: int):
    """Split one new token per request, qkv [batch, (qo_heads + 2 kv_heads) * head_dim], into q
    (returned, [batch, qo_heads, head_dim]) and row pos[b] of k_cache, v_cache [batch, max_len,
    kv_heads, head_dim] (the day-14 exercise). pos[b] < max_len is the caller's promise."""
    bind = binding()
    tq, tp = describe("qkv", qkv), describe("pos", pos)
    tk, tv = describe("k_cache", k_cache), describe("v_cache", v_cache)
    dims = check([(tk, ("batch", "max_len", "kv_heads", "head_dim")),
                     (tv, ("batch", "max_len", "kv_heads", "head_dim")), (tq, ("batch", "row"))], HALF)
    validate([(tp, (dims["batch"],))], ("int32",), tk.device)
    d, hkv = dims["head_dim"], dims["kv_heads"]
    if d % 8:
        raise ValueError(say("ops.head_dim", d=d))
    if qo_heads < 1 or dims["row"] != (qo_heads + 2 * hkv) * d:
        raise ValueError(say("ops.qkv_row", row=dims["row"], qo_heads=qo_heads, kv_heads=hkv, d=d,
                             need=(qo_heads + 2 * hkv) * d))
    with bind.current_stream(tq, tp, tk, tv):
        qkv_c = bind.as_cupy(qkv)
        q = device.require_gpu().empty((dims["batch"], qo_heads, d), dtype=qkv_c.dtype)
        fn = kernel("day14", "append_kv", f"append_kv_{SUFFIX[tq.dtype]}")
        fn((dims["batch"],), (256,), (q, bind.as_cupy(k_cache), bind.as_cupy(v_cache), qkv_c,
                                      bind.as_cupy(pos), np.int32(qo_heads), np.int32(hkv), np.int32(d),
                                      np.int32(dims["max_len"])))
    return bind.to_caller(q, tq)


def decode_attention(q, k, v):
    """softmax(q k^T / sqrt(128)) v for one query token per request (day 11): q [batch, qo_heads, 128],
    k, v [batch, kv_len, kv_heads, 128] with qo_heads a multiple of kv_heads; returns o like q."""
    bind = binding()
    tq, tk, tv = describe("q", q), describe("k", k), describe("v", v)
    dims = check([(tq, ("batch", "qo_heads", decode.HEAD_DIM)),
                     (tk, ("batch", "kv_len", "kv_heads", decode.HEAD_DIM)),
                     (tv, ("batch", "kv_len", "kv_heads", decode.HEAD_DIM))], ("float16",))
    if dims["qo_heads"] % dims["kv_heads"]:
        raise ValueError(say("ops.gqa", hq=dims["qo_heads"], hkv=dims["kv_heads"]))
    with bind.current_stream(tq, tk, tv):
        o = device.require_gpu().empty(tq.shape, dtype=np.float16)
        decode.launch_decode_attention(_module("day11", "decode_attention"), bind.as_cupy(q), bind.as_cupy(k),
                                      bind.as_cupy(v), o, sync=False)
    return bind.to_caller(o, tq)



def decode_attention_paged(q, k_pages, v_pages, kv_indptr, kv_indices, kv_last_page_len):
    """softmax(q k^T / sqrt(128)) v for one query token per request over a paged KV cache (day 11's
    decode_paged, one chunk per request): q [batch, qo_heads, 128]; k_pages, v_pages [num_pages,
    page_size, kv_heads, 128] (NHD); request b's pages are kv_indices[kv_indptr[b]:kv_indptr[b + 1]],
    in order, the last holding kv_last_page_len[b] tokens (int32 arrays). Returns o like q."""
    bind = binding()
    tq, tk, tv = describe("q", q), describe("k_pages", k_pages), describe("v_pages", v_pages)
    ti, tx, tl = (describe("kv_indptr", kv_indptr), describe("kv_indices", kv_indices),
                  describe("kv_last_page_len", kv_last_page_len))
    dims = check([(tq, ("batch", "qo_heads", decode.HEAD_DIM)),
                  (tk, ("pages", "page_size", "kv_heads", decode.HEAD_DIM)),
                  (tv, ("pages", "page_size", "kv_heads", decode.HEAD_DIM))], ("float16",))
    validate([(ti, (dims["batch"] + 1,)), (tx, ("used",)), (tl, (dims["batch"],))], ("int32",), tq.device)
    hq, hkv = dims["qo_heads"], dims["kv_heads"]
    if hq % hkv:
        raise ValueError(say("ops.gqa", hq=hq, hkv=hkv))
    with bind.current_stream(tq, tk, tv, ti, tx, tl):
        cp = device.require_gpu()
        o = cp.empty(tq.shape, dtype=np.float16)
        lse2 = cp.empty((dims["batch"], hq), dtype=np.float32)
        decode.launch_decode_paged(_module("day11", "decode_paged"), bind.as_cupy(q), bind.as_cupy(k_pages),
                                   bind.as_cupy(v_pages), bind.as_cupy(kv_indptr), bind.as_cupy(kv_indices),
                                   bind.as_cupy(kv_last_page_len), o, lse2, o, lse2, sync=False)  # one chunk
    return bind.to_caller(o, tq)
