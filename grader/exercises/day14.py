"""Day 14: framework integration and the capstone.

The first exercise is the binding layer (binding.py): rmsnorm from Python, for cupy arrays and torch
tensors, zero-copy through DLPack, on the caller's current stream, refusing bad arguments in one line;
`grader.jit.ops` goes through it for every operation. Then the glue kernel of a decode step
(append_kv.cu), and RoPE fused into it (rope_append_kv.cu). The capstone is a transformer block
for one decode step, built from the course's kernels through the Python API of `grader.jit.ops`:

    RMSNorm (6) -> QKV GEMM (10) -> RoPE (13) -> append KV (14) -> decode attention (11) -> O GEMM (10)
    -> add + RMSNorm (6) -> gate/up GEMM (10) -> SiLU-and-mul (2) -> down GEMM (10) -> residual add

checked stage by stage (each stage's output against float64 numpy from that stage's actual inputs)
and end to end (the whole block in float64 numpy, rounded to fp16 where the GPU stores), and timed
per stage.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from grader import bench, checks, device
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


def _rmsnorm_close(got, x, w, dtype: str, seed: int, what: str) -> None:
    checks.assert_close(got, day06.rmsnorm_reference(x, w), dt=dtype, tol=day06.norm_tolerance(dtype),
                        seed=seed, name=f"binding.rmsnorm {what}")


def _on_busy_cupy_stream(module, x, w, seed: int, where: str) -> None:
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
    if not busy:
        raise AssertionError(f"binding.rmsnorm {where}: the stream was idle when rmsnorm returned: something "
                             f"synchronized (a binding never waits: the caller's stream orders the work)")
    _rmsnorm_close(cp.asnumpy(y), (x.astype(np.float32) + 1).astype(np.float16), w, "float16", seed,
                   f"on a busy cupy stream {where} (wrong: launched on another stream, before x += 1 ran)")


def _with_torch(module, torch, x, w, seed: int, where: str) -> None:
    """float16 and bfloat16 tensors: as_cupy shares memory, the result is a torch tensor (or `out` itself),
    computed on torch's current stream, busy as above."""
    for dt, name in ((torch.float16, "float16"), (torch.bfloat16, "bfloat16")):
        xt, wt = torch.from_numpy(x).cuda().to(dt), torch.from_numpy(w).cuda().to(dt)
        if module.as_cupy(xt).data.ptr != xt.data_ptr():
            raise AssertionError(f"binding.as_cupy copied a torch {name} tensor: it must share its memory "
                                 f"(cupy.from_dlpack)")
        out = torch.full_like(xt, float("nan"))
        if module.rmsnorm(xt, wt, out=out) is not out:
            raise AssertionError(f"binding.rmsnorm(..., out=out) with torch {name} tensors must return out")
        torch.cuda.synchronize()
        _rmsnorm_close(out.float().cpu().numpy(), xt.float().cpu().numpy(), wt.float().cpu().numpy(), name,
                       seed, f"into out=, torch {name} {where}")
        stream = torch.cuda.Stream()
        with torch.cuda.stream(stream):
            for cycles, add in ((0, 0), (BUSY_CYCLES, 1)):
                torch.cuda._sleep(cycles)
                xt += add
                yt = module.rmsnorm(xt, wt)
        stream.synchronize()
        if not (isinstance(yt, torch.Tensor) and yt.dtype == dt and yt.is_cuda):
            raise AssertionError(f"binding.rmsnorm of torch {name} tensors returned {type(yt).__name__} "
                                 f"{getattr(yt, 'dtype', '')}: expected a CUDA torch {name} tensor (to_caller)")
        _rmsnorm_close(yt.float().cpu().numpy(), xt.float().cpu().numpy(), wt.float().cpu().numpy(), name,
                       seed, f"on torch's busy current stream, torch {name} {where} (wrong: launched on "
                             f"another stream, before x += 1 ran)")


def check_binding(module, seed: int, rows: int, d: int) -> None:
    """The binding's rmsnorm against float64: into a NaN-poisoned `out`, and into a new array. On a GPU
    also on a busy cupy stream and, where torch is installed, with torch tensors (fp16 and bf16: zero
    copy, torch's current stream); the emulator has neither streams nor torch."""
    x, w = _binding_inputs(seed, rows, d)
    where = f"(rows={rows}, d={d})"
    x_dev, w_dev = device.asarray(x), device.asarray(w)
    out = device.empty((rows, d), "float16")
    if module.rmsnorm(x_dev, w_dev, out=out) is not out:
        raise AssertionError(f"binding.rmsnorm(x, weight, out=out) must return out {where}")
    device.synchronize("binding.rmsnorm")
    _rmsnorm_close(device.to_host(out), x, w, "float16", seed, f"into out= {where}")
    _rmsnorm_close(device.to_host(module.rmsnorm(x_dev, w_dev)), x, w, "float16", seed, f"new array {where}")
    if device.why_not_hardware():
        return
    _on_busy_cupy_stream(module, x, w, seed, where)
    torch = _torch()
    if torch is not None:
        _with_torch(module, torch, x, w, seed, where)


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


def check_binding_errors(module, seed: int, wrong: str, rows: int, d: int) -> None:
    """A bad call is refused before any launch (`out`, NaN-poisoned, stays so) with a one-line
    TypeError or ValueError that names the argument and what is wrong with it."""
    x, w = (device.asarray(a) for a in _binding_inputs(seed, rows, d))
    args, error, words = _bad_call(wrong, x, w)
    out = args[3] if len(args) > 3 else device.empty(x.shape, "float16")
    call = f"binding.rmsnorm with a bad {wrong.replace('_', ' ')}"
    try:
        module.rmsnorm(*args[:3], out=out)
    except (TypeError, ValueError) as e:
        message = str(e)
        if not isinstance(e, error) or "\n" in message or not all(word in message for word in words):
            raise AssertionError(f"{call}: expected a one-line {error.__name__} naming {', '.join(words)}; got "
                                 f"{type(e).__name__}: {message}") from None
    except Exception as e:  # noqa: BLE001 - what the binding raised instead is the message
        raise AssertionError(f"{call}: expected a one-line {error.__name__} naming {', '.join(words)}; got "
                             f"{type(e).__name__}: {e}") from None
    else:
        raise AssertionError(f"{call}: accepted without an error (it must be refused before any launch)")
    device.synchronize("binding.rmsnorm")
    checks.assert_untouched(device.to_host(out), np.ones(out.shape, bool), seed=seed,
                            name=f"{call}: out (written: a kernel was launched before the arguments were checked)")


BINDING_CASES = ({"rows": 1, "d": 8}, {"rows": 3, "d": 1000}, {"rows": 37, "d": 4100})
BINDING_ERRORS = tuple({"wrong": w, "rows": 5, "d": 64} for w in ("framework", "dtype", "weight_shape",
                                                                 "contiguity", "out_shape", "out_dtype"))


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
    def hidden(self) -> int:
        return self.qo_heads * self.head_dim

    @property
    def qkv_width(self) -> int:
        return (self.qo_heads + 2 * self.kv_heads) * self.head_dim


def block_inputs(cfg: BlockConfig, seed: int) -> dict[str, np.ndarray]:
    """Host fp16 inputs: the hidden state x, the weights (scaled by 1/sqrt(fan-in), so activations
    stay near 1), and caches whose first kv_len rows hold history and the last one NaN."""
    rng = np.random.default_rng(seed)
    f16 = np.float16

    def w(k, n):
        return (rng.standard_normal((k, n)) / np.sqrt(k)).astype(f16)

    h, i = cfg.hidden, cfg.intermediate
    cache_shape = (cfg.batch, cfg.kv_len + 1, cfg.kv_heads, cfg.head_dim)
    caches = [rng.standard_normal(cache_shape).astype(f16) for _ in range(2)]
    for c in caches:
        c[:, cfg.kv_len] = np.nan
    return {"x": rng.standard_normal((cfg.batch, h)).astype(f16),
            "w_attn_norm": (1 + 0.1 * rng.standard_normal(h)).astype(f16), "w_qkv": w(h, cfg.qkv_width),
            "w_o": w(h, h), "w_mlp_norm": (1 + 0.1 * rng.standard_normal(h)).astype(f16),
            "w_gate_up": w(h, 2 * i), "w_down": w(i, h), "k_cache": caches[0], "v_cache": caches[1],
            "pos": np.full(cfg.batch, cfg.kv_len, np.int32)}


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


def _add_rmsnorm_ref(s, cfg):
    residual = s["x"] + s["attn"]
    return {"x": residual, "attn": day06.rmsnorm_reference(residual.astype(np.float16), s["w_mlp_norm"])}


def _gemm_tol(k):
    return lambda cfg: day09.accumulate_tolerance(k(cfg), "float16")


STAGES = (
    Stage("attention RMSNorm", "day 6", ("x", "w_attn_norm"), ("h",),
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
    Stage("decode attention", "day 11", ("q", "k_cache", "v_cache"), ("o",),
          lambda s, c: {"o": ops.decode_attention(s["q"], s["k_cache"], s["v_cache"])},
          lambda s, c: {"o": day11.attention_reference(s["q"], s["k_cache"], s["v_cache"])[0]}),
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
            checks.assert_close(device.to_host(state[name]), value, dt="float16", tol=tol, seed=seed,
                                name=f"capstone stage '{stage.name}' ({stage.source}) output {name} "
                                     f"(from its actual inputs; {cfg})")
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


def time_block(cfg: BlockConfig = TIMING_CONFIG, repeat: int = 20) -> list[dict]:
    """Per-stage GPU time (median of CUDA-event timings, L2 flushed) of the block on random device
    data; each row: stage, source, ms, share of the block, GB/s and % of the copy ceiling."""
    cp = device.require_gpu()
    rng = cp.random.default_rng(0)
    h, i = cfg.hidden, cfg.intermediate
    shapes = {"x": (cfg.batch, h), "w_attn_norm": (h,), "w_qkv": (h, cfg.qkv_width), "w_o": (h, h),
              "w_mlp_norm": (h,), "w_gate_up": (h, 2 * i), "w_down": (i, h),
              "k_cache": (cfg.batch, cfg.kv_len + 1, cfg.kv_heads, cfg.head_dim)}
    shapes["v_cache"] = shapes["k_cache"]
    state = {k: (rng.standard_normal(s, dtype=np.float32) / (np.sqrt(s[0]) if len(s) == 2 and k != "x" else 1))
             .astype(np.float16) for k, s in shapes.items()}
    state["pos"] = cp.full(cfg.batch, cfg.kv_len, dtype=np.int32)
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
    return rows


def stage_table(rows: list[dict], cfg: BlockConfig = TIMING_CONFIG) -> str:
    lines = [f"decode step of one block: batch {cfg.batch}, hidden {cfg.hidden}, heads {cfg.qo_heads}/"
             f"{cfg.kv_heads}, intermediate {cfg.intermediate}, kv_len {cfg.kv_len + 1}",
             f"{'stage':<24} {'kernel from':<14} {'us':>9} {'share':>6} {'GB/s':>8} {'% of copy':>9}"]
    for r in rows:
        lines.append(f"{r['stage']:<24} {r['source']:<14} {r['ms'] * 1e3:9.1f} {r['share']:6.1%} "
                     f"{r['gbps']:8.0f} {r['of_copy']:9.0%}")
    lines.append(f"{'block':<24} {'':<14} {sum(r['ms'] for r in rows) * 1e3:9.1f}")
    return "\n".join(lines)


EXERCISES = (
    Exercise("day14", "binding", "binding.py", "rmsnorm from Python: DLPack, the current stream",
             check_binding, BINDING_CASES),
    Exercise("day14", "binding_errors", "binding.py", "bad arguments refused in one line, before any launch",
             check_binding_errors, BINDING_ERRORS),
    Exercise("day14", "append_kv", "append_kv.cu", "split qkv and append the new k, v to the cache",
             check_append_kv, APPEND_CASES, technique=(WIDE,)),
    Exercise("day14", "rope_append_kv", "rope_append_kv.cu", "RoPE and append KV fused: qkv read once",
             check_rope_append_kv, ROPE_APPEND_CASES, technique=(WIDE,)),
)
