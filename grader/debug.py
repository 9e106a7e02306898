"""`python -m grader debug day12|day11 EXERCISE`: the first KV tile after which an attention kernel's
online-softmax state leaves a float64 reference, and the element where it does.

The reference walks the keys in the kernel's own tiles and keeps, per query row, what FlashAttention
keeps: the tile of scores S (base 2: s * sm_scale * log2 e, as the kernels compute them), the running
row max m, the running row sum l and the unnormalised output accumulator O. The kernel is not changed
(any student's kernel can be debugged): its state after tile t is observed by running it on the first
t tiles of keys alone, which leaves it in exactly the state it has after tile t of the whole run, and
comparing its output O / l with the reference's. Tile by tile, the first tile that disagrees is
where the bug acts: a wrong rescale after a new row max shows on the first tile whose max rises, a
wrong mask on the partial last tile or on the causal diagonal, a wrong merge of split-KV chunks on
the merge alone.

Causal (day 12): after tile t only the queries whose visible keys all lie in tiles 0..t can be
observed (cutting the keys moves the diagonal otherwise): they are the first q_len - kv_len + keys
queries, run as a problem of their own. Day 11's decode kernels show (m, d, o) through o and, for
the paged kernel, lse2 = m + log2 d; with --chunks > 1 the paged kernel's partial result per chunk
is compared too, then the merge.

By default it replays your kernel's last failing case in that file (its sizes, mask and seed, which
pytest and `grader check` record in .course/failures.json: grader.progress), so a wrong causal diagonal
is debugged on the causal case that caught it; --fresh, a size or --seed choose other inputs.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from grader import checks, device, exercises, paths, progress, runner
from grader.messages import say

COMMAND = "debug"
HELP = "where an attention kernel (day 11, day 12) first leaves the float64 reference, KV tile by KV tile"

LOG2E = 1.0 / math.log(2.0)
# A row of outputs diverges when the norm of its error exceeds this fraction of its own norm: fp16
# rounding of o (and of p, fed to mma in fp16) gives at most ~1e-3; day 11's graders use the same.
ROW_TOL = 4e-3
LSE_TOL = (1e-4, 1e-5)  # lse2: absolute + relative (fp32 sums, lg2.approx)

# Keys per tile, read from the exercise's own file (the number it was written for), per kernel family.
DAY12_TILE = {"attention_scalar": r"constexpr\s+int\s+TILE\s*=\s*(\d+)",
              "attention_mma": r"constexpr\s+int\s+BLOCK_N\s*=\s*(\d+)",
              "prefill": r"#\s*define\s+PREFILL_BLOCK_N\s+(\d+)"}
# Tokens per step of day 11's kernels: a KV row takes 16 lanes (128 dims, 8 per lane), so a warp
# takes 2 tokens per step and a block of 256 threads 16.
DAY11_TILE = {"decode_warp": 2, "decode_attention": 16, "decode_paged": 16}
DAY11_DEFAULTS = {"batch": 2, "kv_len": 40, "heads": 4, "kv_heads": 2, "page_size": 16, "chunks": 3}
DAY12_DEFAULTS = {"heads": 2, "q_len": 80, "kv_len": 200, "head_dim": 64}


# ---- the block-by-block reference -----------------------------------------------------------------

@dataclass
class TileState:
    """The reference's state of every row after one tile of keys [begin, end)."""
    index: int
    begin: int
    end: int
    s: np.ndarray       # [..., rows, end - begin] the tile's scores, base 2 (-inf: masked)
    m_before: np.ndarray
    l_before: np.ndarray
    m: np.ndarray       # [..., rows] running row max after the tile
    l: np.ndarray       # [..., rows] running row sum of 2^(s - m)
    o: np.ndarray       # [..., rows, d] the unnormalised accumulator sum 2^(s - m) v

    def output(self) -> np.ndarray:
        """O / l: what the kernel writes after this tile (0 for a row that has seen no key)."""
        return self.o / np.where(self.l > 0, self.l, 1.0)[..., None]


def online_tiles(x: np.ndarray, v: np.ndarray, tile: int):
    """FlashAttention's forward in float64, one tile of `tile` keys at a time: x [..., rows, n] scores in
    base 2 (-inf: masked), v [..., n, d]. Yields a TileState after each tile."""
    x, v = np.asarray(x, np.float64), np.asarray(v, np.float64)
    m = np.full(x.shape[:-1], -np.inf)
    l = np.zeros(x.shape[:-1])
    o = np.zeros(x.shape[:-1] + v.shape[-1:])
    for index, begin in enumerate(range(0, x.shape[-1], tile)):
        end = min(begin + tile, x.shape[-1])
        s = x[..., begin:end]
        m_new = np.maximum(m, s.max(axis=-1))
        m_use = np.where(np.isneginf(m_new), 0.0, m_new)  # a row that has seen only -inf stays empty
        alpha = np.exp2(m - m_use)
        p = np.exp2(s - m_use[..., None])
        state = TileState(index, begin, end, s, m, l, m_new, l * alpha + p.sum(axis=-1),
                          o * alpha[..., None] + p @ v[..., begin:end, :])
        m, l, o = state.m, state.l, state.o
        yield state


# ---- comparing ------------------------------------------------------------------------------------

@dataclass
class Divergence:
    step: str                 # "KV tile 1 (keys 64..127)"
    where: str                # "head 0, query 7, column 12"
    expected: float
    got: float
    rows: str                 # "3 of 160 rows diverge"
    at: tuple = ()            # the row's index and the element's column
    detail: list[str] = field(default_factory=list)


@dataclass
class Report:
    title: str
    steps: list[str] = field(default_factory=list)   # what agreed, in order
    worst: float = 0.0                                # largest row error of the steps that agreed
    divergence: Divergence | None = None

    @property
    def agrees(self) -> bool:
        return self.divergence is None

    def agree(self, step: str, worst: float) -> None:
        self.steps.append(step)
        self.worst = max(self.worst, worst)

    def text(self) -> str:
        out = [self.title]
        steps = (say("debug.steps", first=self.steps[0], last=self.steps[-1], count=len(self.steps))
                 if len(self.steps) > 1 else "".join(self.steps))
        if self.agrees:
            out.append(say("debug.agree", steps=steps, worst=f"{self.worst:.1e}", tol=f"{ROW_TOL:.0e}")
                       if self.steps else say("debug.nothing"))
            return "\n".join(out)
        d = self.divergence
        if self.steps:
            out.append(say("debug.agree_before", steps=steps, worst=f"{self.worst:.1e}"))
        got = f"{d.got:.6g}" + (say("debug.nan") if math.isnan(d.got) else "")
        out.append(say("debug.first", step=d.step, where=d.where, expected=f"{d.expected:.6g}", got=got, rows=d.rows))
        out += [f"  {line}" for line in d.detail]
        return "\n".join(out)


def row_errors(got: np.ndarray, expected: np.ndarray) -> np.ndarray:
    """Per row (last axis: the row's outputs): ||got - expected|| / ||expected||; inf where got is not
    finite (NaN: never written)."""
    got = got.astype(np.float64)
    diff = np.linalg.norm(got - expected, axis=-1)
    rel = diff / np.maximum(np.linalg.norm(expected, axis=-1), np.finfo(np.float64).tiny)
    return np.where(np.isfinite(got).all(axis=-1), rel, np.inf)


def _first_bad(err: np.ndarray, tol: float):
    """The first row index (in index order) whose error exceeds tol, and how many do; None if none."""
    bad = np.argwhere(~(err <= tol))
    return (tuple(int(i) for i in bad[0]), len(bad)) if len(bad) else None


def _column(got: np.ndarray, expected: np.ndarray) -> int:
    """The element of a row that is furthest off (a NaN counts as furthest)."""
    return int(np.argmax(np.where(np.isfinite(got), np.abs(got.astype(np.float64) - expected), np.inf)))


def _state_lines(st: TileState, row: tuple, col: int, l: str = "l") -> list[str]:
    """What the reference holds for one row around tile st.index (`l`: the row sum's name, d on day 11)."""
    m0, l0, m1, l1 = (float(a[row]) for a in (st.m_before, st.l_before, st.m, st.l))
    tile_max = float(st.s[row].max())
    lines = [say("debug.reference"), say("debug.before", m=f"{m0:.5g}", l=l, sum=f"{l0:.6g}"),
             say("debug.scores", max=f"{tile_max:.5g}", min=f"{float(st.s[row].min()):.5g}", keys=st.end - st.begin)]
    if st.index > 0 and m1 > m0:
        lines.append(say("debug.rises", m0=f"{m0:.5g}", m1=f"{m1:.5g}", l=l, factor=f"{2.0 ** (m0 - m1):.6g}"))
    elif st.index > 0:
        lines.append(say("debug.same_max", l=l))
    lines.append(say("debug.after", m=f"{m1:.5g}", l=l, sum=f"{l1:.6g}", col=col, o=f"{float(st.o[row + (col,)]):.6g}",
                     out=f"{float(st.output()[row + (col,)]):.6g}"))
    return lines


# ---- day 12: prefill attention --------------------------------------------------------------------

def _tile_of(family: str, source: Path) -> int:
    m = re.search(DAY12_TILE[family], source.read_text())
    if not m:
        raise ValueError(say("debug.no_tile", file=source.name, pattern=repr(DAY12_TILE[family])))
    return int(m.group(1))


def debug_day12(name: str, module, source: Path, *, seed: int, heads: int, q_len: int, kv_len: int,
                head_dim: int, causal: bool, tile: int | None = None) -> Report:
    """Run a day-12 attention kernel on the first 1, 2, ... KV tiles and compare each with the reference."""
    from grader.exercises import day12
    from grader.references.prefill_attention import visible_keys

    family = name.removesuffix("_causal")
    day12.validate(q_len, kv_len, head_dim, causal)
    tile = tile or _tile_of(family, source)
    rng = np.random.default_rng(seed)
    q, k, v = (rng.standard_normal((heads, n, head_dim)).astype(np.float16) for n in (q_len, kv_len, kv_len))
    x = q.astype(np.float64) @ k.astype(np.float64).transpose(0, 2, 1) * (LOG2E / math.sqrt(head_dim))
    x[:, visible_keys(q_len, kv_len, causal)[:, None] <= np.arange(kv_len)[None, :]] = -np.inf
    report = Report(say("debug.title12", name=name, source=source, heads=heads, q_len=q_len, kv_len=kv_len,
                        head_dim=head_dim, mask=say("debug.causal") if causal else say("debug.no_mask"), tile=tile,
                        seed=seed))
    for st in online_tiles(x, v, tile):
        rows = q_len - (kv_len - st.end) if causal else q_len  # queries whose keys all lie in tiles <= t
        if rows < 1:
            continue
        out = device.empty((heads, rows, head_dim), "float16")
        day12.attention_launch(family, module, device.asarray(q[:, :rows]), device.asarray(k[:, :st.end]),
                               device.asarray(v[:, :st.end]), out, heads, rows, st.end, head_dim, causal)
        got, expected = device.to_host(out), st.output()[:, :rows]
        err = row_errors(got, expected)
        step = say("debug.kv_tile", index=st.index, begin=st.begin, end=st.end - 1)
        bad = _first_bad(err, ROW_TOL)
        if bad is None:
            report.agree(say("debug.tile", index=st.index), float(err.max()))
            continue
        (h, i), count = bad
        col = _column(got[h, i], expected[h, i])
        checked = say("debug.checked", rows=rows) if causal else ""
        report.divergence = Divergence(
            step, say("debug.query", h=h, i=i, col=col), float(expected[h, i, col]), float(got[h, i, col]),
            say("debug.rows12", count=count, rows=heads * rows, err=f"{err[h, i]:.2e}", tol=f"{ROW_TOL:.0e}")
            + checked, (h, i, col), _state_lines(st, (h, i), col))
        break
    return report


# ---- day 11: decode attention ---------------------------------------------------------------------

def _decode_inputs(rng, batch: int, kv_len: int, heads: int, kv_heads: int):
    from grader.exercises import day11

    if heads % kv_heads:
        raise ValueError(say("debug.gqa", heads=heads, kv_heads=kv_heads))
    return day11.random_qkv(rng, batch, heads, (batch, kv_len, kv_heads, day11.HEAD_DIM))


def _decode_scores(q, k, v, lengths):
    """Base-2 scores x [batch, heads, 1, L] (-inf past each request's length) and v per query head
    [batch, heads, L, D]."""
    group = q.shape[1] // k.shape[2]
    kh = np.repeat(k.astype(np.float64), group, axis=2)  # [batch, L, heads, D]
    vh = np.repeat(v.astype(np.float64), group, axis=2).transpose(0, 2, 1, 3)
    x = np.einsum("bhd,blhd->bhl", q.astype(np.float64), kh) * (LOG2E / math.sqrt(q.shape[-1]))
    x = np.where(np.arange(k.shape[1])[None, None, :] < np.asarray(lengths)[:, None, None], x, -np.inf)
    return x[:, :, None, :], vh


def _run_decode(name: str, module, q, k, v, lengths, page_size: int, chunks: int, rng):
    """Launch a day-11 decode kernel on requests of the given lengths (k, v [batch, >= max length, Hkv, D]);
    returns o [batch, heads, D] and, for the paged kernel, lse2 [batch, heads] and its buffers."""
    from grader.exercises import day11
    from grader.references.paged_kv import page_table, paged_pool

    batch, heads, _ = q.shape
    keys = max(lengths)
    if name == "decode_paged":
        indptr, indices, last, pool = page_table(rng, lengths, page_size)
        kp, vp = (paged_pool(a, lengths, indptr, indices, page_size, pool) for a in (k, v))
        bufs = day11.paged_buffers(batch, heads, chunks)
        day11.decode_paged(module, device.asarray(q), device.asarray(kp), device.asarray(vp), device.asarray(indptr),
                           device.asarray(indices), device.asarray(last), num_chunks=chunks, max_len=keys,
                           buffers=bufs)
        return device.to_host(bufs["o"]), device.to_host(bufs["lse2"]), bufs
    kd, vd = device.asarray(k[:, :keys]), device.asarray(v[:, :keys])
    o = device.empty(q.shape, "float16")
    if name == "decode_warp":
        if k.shape[2] != heads:
            raise ValueError(say("debug.no_gqa"))
        device.launch(module.get_function("decode_warp"), (heads, batch), (32,),
                      (device.asarray(q), kd, vd, o, np.int32(keys), np.int32(heads), day11.scale_log2()),
                      what="decode_warp")
    else:
        day11.launch_decode_attention(module, device.asarray(q), kd, vd, o)
    return device.to_host(o), None, None


def _group_lines(x: np.ndarray, begin: int, end: int, groups: int) -> list[str]:
    """Day 11's kernels give token j to token group j % groups (a warp's 2 lane groups, a block's 16),
    each with its own (m, d, o) until the final merge: which groups' max rises in tokens [begin, end)."""
    rises = []
    for g in range(min(groups, end - begin)):
        before, mine = x[g:begin:groups], x[begin + g:end:groups]
        m0 = before.max() if before.size else -np.inf
        if np.isfinite(m0) and mine.max() > m0:
            rises.append(f"{g} ({m0:.5g} -> {mine.max():.5g})")
    where = say("debug.group_rises", groups=", ".join(rises)) if rises else say("debug.no_group_rises")
    return [say("debug.groups", groups=groups, where=where)]


def _lse_bad(got, expected) -> np.ndarray:
    both_empty = np.isneginf(expected) & np.isneginf(got)
    with np.errstate(invalid="ignore"):  # -inf - -inf
        return ~both_empty & ~(np.abs(got - expected) <= LSE_TOL[0] + LSE_TOL[1] * np.abs(expected))


def _lse2(st: TileState) -> np.ndarray:
    """The state's log-sum-exp in base 2, m + log2 l, per (request, head); -inf where it is empty."""
    m, l = st.m[..., 0], st.l[..., 0]
    with np.errstate(divide="ignore"):
        return np.where(l > 0, m + np.log2(np.where(l > 0, l, 1.0)), -np.inf)


def _chunk_states(x, vh, chunk_tokens: int, chunks: int):
    """Each chunk's normalised (o, lse2) per (request, head): [batch, heads, chunks, D], [.., chunks]."""
    o, lse = [], []
    for c in range(chunks):
        st = list(online_tiles(x[..., c * chunk_tokens:(c + 1) * chunk_tokens],
                               vh[..., c * chunk_tokens:(c + 1) * chunk_tokens, :], chunk_tokens))
        if not st:  # a chunk past every request
            o.append(np.zeros(vh.shape[:2] + vh.shape[-1:]))
            lse.append(np.full(vh.shape[:2], -np.inf))
            continue
        o.append(st[-1].output()[:, :, 0])
        lse.append(_lse2(st[-1]))
    return np.stack(o, axis=2), np.stack(lse, axis=2)


def debug_day11(name: str, module, source: Path, *, seed: int, batch: int, kv_len: int, heads: int,
                kv_heads: int, page_size: int, chunks: int, tile: int | None = None) -> Report:
    """Run a day-11 decode kernel on the first 1, 2, ... tiles of every request, then (paged, chunks > 1)
    split into chunks, and compare each with the reference."""
    from grader.exercises import day11

    tile = tile or DAY11_TILE[name]
    rng = np.random.default_rng(seed)
    q, k, v = _decode_inputs(rng, batch, kv_len, heads, kv_heads)
    paged = name == "decode_paged"
    lengths = day11.ragged_lengths(rng, batch, kv_len) if paged else [kv_len] * batch
    x, vh = _decode_scores(q, k, v, lengths)
    shape = say("debug.paged", size=page_size, lengths=lengths) if paged else ""
    report = Report(say("debug.title11", name=name, source=source, batch=batch, kv_len=kv_len, heads=heads,
                        kv_heads=kv_heads, shape=shape, tile=tile, seed=seed))
    for st in online_tiles(x, vh, tile):
        got, lse2, _ = _run_decode(name, module, q, k, v, [min(n, st.end) for n in lengths], page_size, 1, rng)
        d, worst = _decode_divergence(say("debug.kv_tokens", index=st.index, begin=st.begin, end=st.end - 1), got,
                                      st.output()[:, :, 0], lse2, _lse2(st))
        if d:
            b, h, col = d.at
            d.detail = _state_lines(st, (b, h, 0), col, "d") + _group_lines(x[b, h, 0], st.begin, st.end, DAY11_TILE[name])
            report.divergence = d
            return report
        report.agree(say("debug.tile", index=st.index), worst)
    if not paged or chunks == 1:
        return report
    chunk_tokens = -(-kv_len // chunks)
    _, _, bufs = _run_decode(name, module, q, k, v, lengths, page_size, chunks, rng)
    part_o = device.to_host(bufs["tmp_o"]).reshape(batch, heads, chunks, -1)
    part_lse = device.to_host(bufs["tmp_lse2"]).reshape(batch, heads, chunks)
    ref_o, ref_lse = _chunk_states(x, vh, chunk_tokens, chunks)
    for c in range(chunks):
        d, worst = _decode_divergence(say("debug.chunk_step", index=c, begin=c * chunk_tokens,
                                          end=(c + 1) * chunk_tokens - 1), part_o[:, :, c], ref_o[:, :, c], part_lse[:, :, c],
                                      ref_lse[:, :, c])
        if d:
            report.divergence = d
            return report
        report.agree(say("debug.chunk", index=c), worst)
    d, worst = _decode_divergence(say("debug.merge_step", chunks=chunks), device.to_host(bufs["o"]), st.output()[:, :, 0],
                                  device.to_host(bufs["lse2"]), _lse2(st))
    if d:
        b, h, col = d.at
        weights = np.exp2(ref_lse[b, h] - ref_lse[b, h].max())
        d.detail = [say("debug.chunks", lse2=np.array2string(ref_lse[b, h], precision=4), col=col,
                        o=np.array2string(ref_o[b, h, :, col], precision=4)),
                    say("debug.merged", weights=np.array2string(weights, precision=4))]
        report.divergence = d
    else:
        report.agree(say("debug.merge"), worst)
    return report


def _decode_divergence(step: str, got, expected, lse2, ref_lse) -> tuple[Divergence | None, float]:
    """The first diverging (request, head) of one step, by its o and then (when the kernel gives it)
    its lse2, or None; and the largest row error of o."""
    err = row_errors(got, expected)
    if bad := _first_bad(err, ROW_TOL):
        (b, h), count = bad
        col = _column(got[b, h], expected[b, h])
        return Divergence(step, say("debug.request", b=b, h=h, col=col), float(expected[b, h, col]),
                          float(got[b, h, col]), say("debug.rows11", count=count, size=err.size, err=f"{err[b, h]:.2e}",
                                                     tol=f"{ROW_TOL:.0e}"), (b, h, col)), float(err.max())
    wrong = np.argwhere(_lse_bad(lse2.astype(np.float64), ref_lse)) if lse2 is not None else []
    if len(wrong):
        b, h = (int(i) for i in wrong[0])
        return Divergence(step, say("debug.lse_where", b=b, h=h), float(ref_lse[b, h]),
                          float(lse2[b, h]), say("debug.lse_wrong", count=len(wrong), size=lse2.size),
                          (b, h, 0)), float(err.max())
    return None, float(err.max())


# ---- the command ----------------------------------------------------------------------------------

DAYS = {"day11": tuple(DAY11_TILE), "day12": ("attention_scalar", "attention_mma", "attention_mma_causal",
                                              "prefill", "prefill_causal")}


# A check's case keys under debug's names (day 11's checks name the heads num_heads / num_qo_heads).
CASE_KEYS = {"num_heads": "heads", "num_qo_heads": "heads", "num_kv_heads": "kv_heads"}


def last_failure(ex, allowed) -> tuple[dict, int | None, str] | None:
    """The last failing case of your kernel in the exercise's file (recorded by pytest and `grader
    check`; the causal and the unmasked exercise of one file share it) as debug's sizes, its seed, and a
    line saying what is replayed; None when nothing failed since it last passed."""
    named = [e for e in exercises.day_exercises(ex.day) if e.source == ex.source and e.name in DAYS[ex.day]]
    found = [(f["when"], e.name == ex.name, e, f) for e in named if (f := progress.last_failure(e.key))]
    if not found:
        return None
    _, _, failed, record = max(found, key=lambda x: x[:2])
    case = {CASE_KEYS.get(k, k): v for k, v in record["case"].items()}
    if "num_heads" in record["case"]:  # decode_warp: one KV head per query head
        case["kv_heads"] = case["heads"]
    sizes = {k: v for k, v in case.items() if k in allowed}
    if failed.name.endswith("_causal"):
        sizes.setdefault("causal", True)
    fixed = {"kv_dtype": "float16", "head_dim": 128, "layout": "NHD"}  # what debug's day-11 inputs are
    left = [f"{k} {v}" for k, v in record["case"].items()
            if CASE_KEYS.get(k, k) not in allowed and fixed.get(k, v) != v]
    said = ", ".join(f"{k} {v}" for k, v in sizes.items())
    line = say("debug.replaying", exercise=failed.key, when=record["when"], sizes=said, seed=record["seed"],
               left=say("debug.not_replayed", left=", ".join(left)) if left else "")
    return sizes, record.get("seed"), line


def debug(day, name: str, *, solutions: bool = False, source: str | None = None, seed: int | None = None,
          tile: int | None = None, replay: bool = True, **sizes) -> Report:
    """Load the exercise's kernel (yours, the solution, or `source`) and compare it tile by tile.
    `sizes`: day 12 heads, q_len, kv_len, head_dim, causal; day 11 batch, kv_len, heads, kv_heads,
    page_size, chunks (None: a small default). With `replay`, on your kernel, with no size and no seed
    given: the sizes, mask and seed of its last failing case (`last_failure`), else the defaults."""
    day = paths.day_name(day)
    if day not in DAYS:
        raise ValueError(say("debug.not_attention", day=day))
    ex = exercises.get(day, name)
    if ex.name not in DAYS[day]:
        raise ValueError(say("debug.takes", exercise=ex.key, names=", ".join(DAYS[day]), day=day))
    if solutions and source:
        raise ValueError(say("debug.choose"))
    if tile is not None and tile < 1:
        raise ValueError(say("debug.at_least_one", option="tile", value=tile))
    path = Path(source).resolve() if source else runner.source_of(ex, solutions).resolve()
    if not path.is_file():
        raise FileNotFoundError(say("debug.no_source", source=source))
    defaults = DAY12_DEFAULTS if day == "day12" else DAY11_DEFAULTS
    allowed = set(defaults) | ({"causal"} if day == "day12" else set())
    extra = [k for k, val in sizes.items() if val is not None and k not in allowed]
    if extra:
        raise ValueError(say("debug.not_for_day", option=extra[0].replace("_", "-"), day=day,
                             sizes=", ".join("--" + k.replace("_", "-") for k in sorted(allowed))))
    replayed = None
    if replay and not solutions and source is None and seed is None and all(v is None for v in sizes.values()):
        replayed = last_failure(ex, allowed)
        if replayed:
            sizes, seed = {**sizes, **replayed[0]}, replayed[1] if replayed[1] is not None else seed
    chosen = {k: sizes.get(k) if sizes.get(k) is not None else val for k, val in defaults.items()}
    if small := [k for k, val in chosen.items() if val < 1]:
        raise ValueError(say("debug.at_least_one", option=small[0].replace("_", "-"), value=chosen[small[0]]))
    seed = checks.new_seed() if seed is None else seed
    module = device.load(path)
    shown = path.relative_to(paths.ROOT) if path.is_relative_to(paths.ROOT) else path
    if day == "day12":
        causal = sizes.get("causal")
        causal = ex.name.endswith("_causal") if causal is None else causal
        report = debug_day12(ex.name, module, shown, seed=seed, tile=tile, causal=bool(causal), **chosen)
    else:
        report = debug_day11(ex.name, module, shown, seed=seed, tile=tile, **chosen)
    if replayed:
        report.title = f"{replayed[2]}\n{report.title}"
    return report


def add_arguments(parser) -> None:
    parser.add_argument("day", help="day11 or day12")
    parser.add_argument("exercise", help="day 12: attention_scalar, attention_mma(_causal), prefill(_causal); "
                                         "day 11: decode_warp, decode_attention, decode_paged")
    parser.add_argument("--solutions", action="store_true", help="debug the solution instead of yours")
    parser.add_argument("--source", metavar="FILE", help="debug this .cu file as the exercise's kernel")
    parser.add_argument("--seed", type=int, help="the inputs' seed (default: fresh; $COURSE_SEED replays)")
    parser.add_argument("--tile", type=int, help="keys per tile (default: the kernel's, read from its file)")
    for opt, what in (("heads", "query heads"), ("q-len", "queries (day 12)"), ("kv-len", "keys per request"),
                      ("head-dim", "64 or 128 (day 12)"), ("batch", "requests (day 11)"),
                      ("kv-heads", "KV heads, GQA (day 11)"), ("page-size", "tokens per page (day 11, paged)"),
                      ("chunks", "split-KV chunks (day 11, paged)")):
        key = opt.replace("-", "_")
        defaults = [f"day {d[-2:]}: {table[key]}" for d, table in (("day12", DAY12_DEFAULTS), ("day11", DAY11_DEFAULTS))
                    if key in table]
        parser.add_argument(f"--{opt}", type=int, help=f"{what}; default {', '.join(defaults)}")
    parser.add_argument("--causal", action="store_true", default=None,
                        help="day 12: causal mask (default: as the exercise's name says)")
    parser.add_argument("--no-causal", dest="causal", action="store_false", help="day 12: no mask")
    parser.add_argument("--fresh", action="store_true",
                        help="the defaults and a fresh seed, not your last failing case (replayed by default)")


def main(args) -> int:
    sizes = {k: getattr(args, k) for k in ("heads", "q_len", "kv_len", "head_dim", "batch", "kv_heads",
                                           "page_size", "chunks", "causal")}
    try:
        report = debug(args.day, args.exercise, solutions=args.solutions, source=args.source, seed=args.seed,
                       tile=args.tile, replay=not args.fresh, **sizes)
    except device.KernelFault as e:
        print(say("cli.error", message=e))
        return 1
    print(report.text())
    return 0 if report.agrees else 1
