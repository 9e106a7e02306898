"""The capstone of day 14: a transformer block for one decode step, built from the course's kernels
through the Python API of `grader.jit.ops`, every launch through the student's binding (day 14's
binding.py):

    RMSNorm (6) -> QKV GEMM (10) -> RoPE (13) -> append KV (14) -> paged decode attention (11)
    -> O GEMM (10) -> add + RMSNorm (6) -> gate/up GEMM (10) -> SiLU-and-mul (2) -> down GEMM (10) -> add

checked stage by stage (each stage's output against float64 numpy from that stage's actual inputs)
and end to end (the whole block in float64 numpy, rounded to fp16 where the GPU stores), timed per
stage, and timed whole against the same block in torch eager on the same arrays. Not an `Exercise`:
days/day14/test_day14.py and the lesson call `check_capstone`, `check_torch_block` and `time_block`.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from grader import bench, checks, device, tables
from grader.jit import ops
from grader.messages import say, word
from grader.references.decode_attention import attention_reference
from grader.references.layers import EPS, rmsnorm_reference, rope_reference, silu_and_mul_reference
from grader.references.tolerances import accumulate_tolerance
from grader.references.torch_gpu import torch_on_gpu

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
    out = rope_reference(qkv, s["pos"], cfg.qo_heads + cfg.kv_heads, cfg.theta)
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

    return {"o": attention_reference(s["q"], tokens("k_cache"), tokens("v_cache"), lengths)[0]}


def _add_rmsnorm_ref(s, cfg):
    residual = s["x"] + s["attn"]
    return {"x": residual, "attn": rmsnorm_reference(residual.astype(np.float16), s["w_mlp_norm"])}


def _gemm_tol(k):
    return lambda cfg: accumulate_tolerance(k(cfg), "float16")


STAGES = (
    Stage("attention RMSNorm", "day 6 (binding.py)", ("x", "w_attn_norm"), ("h",),
          lambda s, c: {"h": ops.rmsnorm(s["x"], s["w_attn_norm"])},
          lambda s, c: {"h": rmsnorm_reference(s["x"], s["w_attn_norm"])}),
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
          lambda s, c: {"act": silu_and_mul_reference(s["gate_up"])}),
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
            shown, source = stage_label(stage.name, stage.source)
            got, what = device.to_host(state[name]), say("name.capstone.stage", stage=shown, source=source, output=name)
            poison = np.isnan(value)  # a cache's rows after the new one (its last page's padding)
            if poison.any():
                checks.assert_untouched(got[poison], np.ones(int(poison.sum()), bool), seed=seed,
                                        name=say("name.capstone.after", what=what, cfg=cfg))
                got, value = got[~poison], value[~poison]
            checks.assert_close(got, value, dt="float16", tol=tol, seed=seed,
                                name=say("name.capstone.actual", what=what, cfg=cfg))
    got, expected = device.to_host(state["out"]).astype(np.float64), reference_block(host, cfg)["out"].astype(np.float64)
    checks.assert_close(got, expected, dt="float16", tol=END_TO_END_TOL, seed=seed,
                        name=say("name.capstone.block", cfg=cfg))
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
    h = F.rms_norm(x, (cfg.hidden,), t["w_attn_norm"], eps=EPS)
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
    gate, up = (F.rms_norm(x, (cfg.hidden,), t["w_mlp_norm"], eps=EPS) @ t["w_gate_up"]).chunk(2, dim=-1)
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
    torch = torch_on_gpu()
    if torch is None or device.why_not_hardware():
        raise RuntimeError(say("capstone.needs_torch"))
    cfg = BlockConfig(batch, qo_heads, kv_heads, intermediate, kv_len)
    host = block_inputs(cfg, seed)
    ours = run_block({k: device.asarray(v) for k, v in host.items()}, cfg)
    theirs = {k: device.asarray(v) for k, v in host.items()}
    out = torch_block(torch, _torch_views(theirs, torch), cfg)["out"]
    device.synchronize(say("name.capstone.torch_block"))
    got, expected = out.double().cpu().numpy(), device.to_host(ours["out"]).astype(np.float64)
    name = say("name.capstone.torch", cfg=cfg)
    checks.assert_close(got, expected, dt="float16", tol=END_TO_END_TOL, seed=seed,
                        name=say("name.capstone.torch_out", name=name))
    for cache in ("k_cache", "v_cache"):
        rows = device.to_host(theirs[cache])[:, cfg.kv_len].astype(np.float64)
        checks.assert_close(rows, device.to_host(ours[cache])[:, cfg.kv_len].astype(np.float64), dt="float16",
                            tol=END_TO_END_TOL, seed=seed, name=say("name.capstone.new_row", name=name, cache=cache))
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
    torch = torch_on_gpu()
    if torch is not None:
        views = _torch_views(state, torch)
        blocks["torch"] = lambda: torch_block(torch, views, cfg)
    times = {k: m.ms for k, m in bench.measure_interleaved(blocks, size=cfg.batch, repeat=max(1, repeat // 5)).items()}
    torch_ms = times.get("torch")
    return {"stages": rows, "block_ms": times["course"], "eager_ms": times["eager"], "torch_ms": torch_ms,
            "ratio": torch_ms / times["course"] if torch_ms else None,
            "eager_ratio": torch_ms / times["eager"] if torch_ms else None}


def behind_torch(times: dict) -> str | None:
    """What time_block's result says against torch eager: None when the course's block is faster both
    replayed as a CUDA graph and launched from Python, else the line naming the slower one."""
    for how, ms in (("capstone.graph", times["block_ms"]), ("capstone.eager", times["eager_ms"])):
        if ms >= times["torch_ms"]:
            return say("capstone.behind", how=say(how), ours=f"{ms * 1e3:.0f}", torch=f"{times['torch_ms'] * 1e3:.0f}")
    return None


def stage_label(stage: str, source: str) -> tuple[str, str]:
    """A stage's name and where its kernel comes from, as the student reads them."""
    return word("stage", stage), word("stagefrom", source)


def stage_table(times: dict, cfg: BlockConfig = TIMING_CONFIG) -> str:
    """time_block's result as a table, the whole layers and their ratio below it."""
    headers = [say("profile.stage"), say("profile.kernel_from"), "us", say("profile.share"), "GB/s",
               say("capstone.of_copy")]
    rows = [[*stage_label(r["stage"], r["source"]), f"{r['ms'] * 1e3:.1f}", f"{r['share']:.1%}", f"{r['gbps']:.0f}",
             f"{r['of_copy']:.0%}"] for r in times["stages"]]
    blocks = [("capstone.sum", sum(r["ms"] for r in times["stages"])), ("capstone.graph", times["block_ms"]),
              ("capstone.eager", times["eager_ms"])]
    if times["torch_ms"] is not None:
        blocks.append(("capstone.torch", times["torch_ms"]))
    rows += [[say(key), "", f"{ms * 1e3:.1f}", "", "", ""] for key, ms in blocks]
    if times["torch_ms"] is None:
        below = say("capstone.no_torch")
    else:
        below = say("capstone.ratio", ratio=f"{times['ratio']:.2f}", eager=f"{times['eager_ratio']:.2f}",
                    than=say("capstone.faster" if times["ratio"] > 1 else "capstone.slower"))
    head = say("capstone.table_head", batch=cfg.batch, hidden=cfg.hidden, qo=cfg.qo_heads, kv=cfg.kv_heads,
               intermediate=cfg.intermediate, kv_len=cfg.kv_len + 1, page=PAGE_SIZE)
    return "\n".join([head, tables.render(headers, rows, right=tuple(headers[2:])), below])
