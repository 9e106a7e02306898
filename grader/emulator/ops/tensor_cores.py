"""The tensor cores: mma.sync (Ampere, one warp) and Hopper's warpgroup MMA (wgmma).

mma.sync.aligned m16n8k16 / m16n8k8 (f32 += f16/bf16) and m16n8k32 (f32 += e4m3/e5m2), .row.col, with the
PTX ISA's fragment layouts: the warps' fragments gathered by precomputed indices into one einsum; the
products are exact in float64, summed in order of k from +0, C added and the result rounded once to float32.

wgmma: `wgmma.fence / commit_group / wait_group / mma_async` (m64nNk16, f32 += f16/bf16;
m64nNk32, f32 += e4m3/e5m2, both operands K-major from shared memory).

A warpgroup is 4 consecutive warps of a block (warp index % 4 == 0 first); its 128 threads execute every
`.sync.aligned` wgmma instruction together. A and B come from shared memory through 64-bit matrix
descriptors (start address, leading / stride byte offsets, swizzle mode), A may come from registers.
The products are exact in float64, summed over k, added to C and rounded once to float32 (as mma.sync).

Asynchrony: an mma_async's accumulators are written when wgmma.wait_group retires its group. Until
then its registers are *in flight*: an instruction that reads or writes them is an error naming both
source lines. An mma_async whose accumulators were changed by ordinary instructions since wgmma last
wrote them, with no wgmma.fence in between, is an error too, and so is one whose A registers changed
since the thread's last wgmma.fence. Its shared-memory operands are read through the async proxy
(`ordering.py`: TMA bytes whose phase the warpgroup observed, stores followed by fence.proxy.async and a
barrier); they count as read until the wait_group that retires its group.
"""
from __future__ import annotations

import sys

import numpy as np

from grader.emulator import values as V
from grader.emulator.machine import WSYNC, EmulatorFault, Op
from grader.emulator.operands import Unsupported, immediate, reader, writer
from grader.emulator.ops.table import builder
from grader.emulator.ops.warp import collective_ready, full_warps, register_sel
from grader.messages import say


# ---- mma.sync -----------------------------------------------------------------------------------

def _fragment_index(coords, per_lane: int, shape: tuple[int, int]) -> np.ndarray:
    """For each element of a `shape` tile (row-major), its position in the warp's fragments laid out
    [lane, value]: coords(lane, value) -> (row, col)."""
    index = np.full(shape, -1, np.int64)
    for lane in range(32):
        for v in range(per_lane):
            index[coords(lane, v)] = lane * per_lane + v
    assert (index >= 0).all()
    return index.ravel()


@builder("mma")
def build_mma_sync(prog, inst):
    parts = inst.parts
    shape = parts[3] if parts[1] == "sync" else None
    if shape not in ("m16n8k16", "m16n8k8", "m16n8k32") or "row" not in parts or "col" not in parts:
        raise Unsupported(inst.opcode)
    dtype_d, dtype_a, dtype_b, dtype_c = parts[-4:]
    fp8 = shape == "m16n8k32" and dtype_a in ("e4m3", "e5m2") and dtype_b in ("e4m3", "e5m2")
    if not fp8 and (dtype_a not in ("f16", "bf16") or dtype_a != dtype_b or shape == "m16n8k32"):
        raise Unsupported(say("emu.unsup.mma", opcode=inst.opcode))
    if dtype_d != "f32" or dtype_c != "f32":
        raise Unsupported(say("emu.unsup.f32_accumulate", opcode=inst.opcode))
    k = int(shape.split("k")[1])
    vec = [[x.strip() for x in o.strip("{}").split(",")] for o in inst.operands]
    dw = [writer(prog, x) for x in vec[0]]
    ar = [reader(prog, x, "b32") for x in vec[1]]
    br = [reader(prog, x, "b32") for x in vec[2]]
    cr = [reader(prog, x, "f32") for x in vec[3]]
    op = Op(WSYNC, None, inst)
    per = 4 if fp8 else 2  # values per register, along k (the lowest bits first)

    # The PTX ISA's fragments (g = lane // 4, t = lane % 4), value v of a lane = register v // per,
    # part v % per. A: a0 (g, per*t), a1 (g+8, per*t), a2 (g, per*t + k/2), a3 (g+8, per*t + k/2), each
    # register `per` consecutive k; B: b_i holds k = per*t + (k/2)*i ... +per-1 of column g;
    # C/D: c_i at (g + 8 (i // 2), 2t + i % 2).
    def a_at(lane, v):
        r, j = divmod(v, per)
        return lane // 4 + 8 * (r % 2), per * (lane % 4) + (k // 2) * (r // 2) + j

    def b_at(lane, v):
        r, j = divmod(v, per)
        return per * (lane % 4) + (k // 2) * r + j, lane // 4

    def c_at(lane, i):
        return lane // 4 + 8 * (i // 2), 2 * (lane % 4) + i % 2

    a_index = _fragment_index(a_at, len(ar) * per, (16, k))
    b_index = _fragment_index(b_at, len(br) * per, (k, 8))
    c_index = _fragment_index(c_at, 4, (16, 8))
    d_index = np.argsort(c_index)  # the inverse: tile position of each lane's d_i

    unit = np.uint8 if fp8 else np.uint16  # a register's `per` values, lowest bits first

    def layout(nw):
        """Flat positions in the registers stacked as [register, thread] (each of `per` values) of the
        A, B and C tiles [row, col, warp] of nw warps; and of D's element for d_i [i, thread]. With the
        warps innermost, einsum's inner loop runs over them (fastest; the sums are the same)."""
        n, warp = 32 * nw, 32 * np.arange(nw)

        def at(index, shape, per_lane, per_reg):
            lane, v = np.divmod(index.reshape(shape)[:, :, None], per_lane)
            r, j = np.divmod(v, per_reg)
            return (r * n + warp + lane) * per_reg + j

        d_of = d_index.reshape(32, 4).T  # [i, lane]: position in the tile
        return (at(a_index, (16, k), len(ar) * per, per), at(b_index, (k, 8), len(br) * per, per),
                at(c_index, (16, 8), 4, 1), (d_of[:, None, :] * nw + np.arange(nw)[:, None]).reshape(4, n))

    layouts = {}

    def stack(st, rsel, fs, dt, n):  # registers -> [register, thread], flattened
        out = np.empty((len(fs), n), dt)
        for i, f in enumerate(fs):
            out[i] = f(st, rsel)
        return out.ravel()

    def unpack(bits, t):  # bits of f16 / bf16 / fp8 values -> float64 (exact)
        if fp8:
            return V.fp8_bits_to_f64(bits, t)
        if t == "bf16":
            return V.bf16_bits_to_f32(bits).astype(np.float64)
        return bits.view(np.float16).astype(np.float64)

    def fn(st, sel):
        full_warps(st, op, sel)
        nw, n = sel.size // 32, sel.size
        if nw not in layouts:
            layouts[nw] = layout(nw)
        ia, ib, ic, id_ = layouts[nw]
        rsel = register_sel(st, sel)
        A = unpack(stack(st, rsel, ar, np.uint32, n).view(unit)[ia], dtype_a)
        B = unpack(stack(st, rsel, br, np.uint32, n).view(unit)[ib], dtype_b)
        C = stack(st, rsel, cr, np.float32, n)[ic]
        # exact products, summed in float64 in order of k, + C, rounded once to float32
        D = np.einsum("ikw,kjw->ijw", A, B) + C
        d = D.ravel()[id_].astype(np.float32)
        for i, w in enumerate(dw):
            w(st, rsel, d[i])
    op.fn = fn
    op.ready = collective_ready
    return op


# ---- wgmma --------------------------------------------------------------------------------------

SWIZZLE_BYTES = {0: 0, 1: 128, 2: 64, 3: 32}  # descriptor bits 62-63 -> swizzle width in bytes


def decode_descriptor(d: int) -> dict:
    """The fields of a wgmma matrix descriptor, in bytes (PTX ISA "Matrix Descriptor Format")."""
    return {"start": (d & 0x3FFF) << 4, "lbo": ((d >> 16) & 0x3FFF) << 4, "sbo": ((d >> 32) & 0x3FFF) << 4,
            "base": (d >> 49) & 7, "swizzle": SWIZZLE_BYTES[(d >> 62) & 3]}


def operand_offsets(desc: dict, rows: int, k_major: bool, elem: int = 2) -> np.ndarray:
    """[rows (M or N), 32 / elem (K)] shared-memory byte addresses of an operand of `elem`-byte elements
    (2: f16/bf16, k16; 1: e4m3/e5m2, k32, K-major only) in the canonical layout.

    Core matrices are 8 rows of 16 bytes. K-major: without swizzle a core matrix is 128 contiguous bytes,
    LBO steps to the next 16 bytes of k, SBO to the next 8 rows; with a W-byte swizzle a row is W bytes
    (the whole k step in it), SBO steps 8 rows. MN-major (16-bit): without swizzle SBO steps 8 rows, LBO
    8 k; with a W-byte swizzle a k-row holds W/2 elements, LBO steps to the next W/2, SBO to the next 8 k.
    The W-byte swizzle XORs address bits 4.. with bits 7.. (log2(W/16) of them)."""
    r = np.arange(rows)[:, None]
    k = np.arange(32 // elem)[None, :]
    w, start, lbo, sbo = desc["swizzle"], desc["start"], desc["lbo"], desc["sbo"]
    if k_major:
        if w == 0:
            a = (r // 8) * sbo + (r % 8) * 16 + (k * elem // 16) * lbo + (k * elem % 16)
        else:
            a = (r // 8) * sbo + (r % 8) * w + k * elem
    else:
        if w == 0:
            a = (r // 8) * sbo + (r % 8) * 2 + (k // 8) * lbo + (k % 8) * 16
        else:
            per = w // 2
            a = (r // per) * lbo + (r % per) * 2 + (k // 8) * sbo + (k % 8) * w
    a = start + a
    if w:
        a = a ^ (((a >> 7) & (w // 16 - 1)) << 4)
    return a.astype(np.int64)


class InFlight:
    """A register written by an mma_async not yet retired by wgmma.wait_group: other instructions that
    touch it (for threads whose value is in flight) fault."""

    def __init__(self, real, n, issuer, name):
        self.real, self.count, self.issuer, self.name = real, np.zeros(n, np.int64), issuer, name
        self.future = real.copy()   # the value the latest mma_async will leave

    def _fault(self, what):
        f = sys._getframe(1)
        while f is not None and f.f_code.co_name != "run_chunk":
            f = f.f_back
        op = f.f_locals.get("op") if f is not None else None
        what = say({"reads": "emu.reads", "writes": "emu.writes"}[what])
        by = say("emu.in_flight_by", where=op.where(), what=what) if op is not None else what
        raise EmulatorFault(say("emu.in_flight", by=by, name=self.name, issuer=self.issuer.where()))

    def __getitem__(self, sel):
        if self.count[sel].any():
            self._fault("reads")
        return self.real[sel]

    def __setitem__(self, sel, v):
        if self.count[sel].any():
            self._fault("writes")
        self.real[sel] = v

    def __array__(self, dtype=None, copy=None):
        if self.count.any():
            self._fault("reads")
        return self.real if dtype is None else self.real.astype(dtype)

    def __getattr__(self, name):
        if self.count.any():
            self._fault("reads")
        return getattr(self.real, name)


class WgmmaState:
    def __init__(self, n):
        self.snap = {}                      # A register slot -> its values at each thread's last wgmma.fence
        self.fenced = np.zeros(n, bool)     # wgmma.fence since the last wait_group
        self.group = np.zeros(n, np.int64)  # committed groups per thread
        self.pending = []                   # [threads, group ids, [(slot, values)]]
        self.known = {}                     # slot -> the values wgmma last left there (all threads)


def _state(st) -> WgmmaState:
    s = getattr(st, "_wgmma", None)
    if s is None:
        s = st._wgmma = WgmmaState(st.n)
    return s


def _warpgroup(st, sel):
    return st.blk[sel] * 64 + st.warp_in_block[sel] // 4


def _ready(op):
    def ready(st, sel):
        wg = _warpgroup(st, sel)
        keys, counts = np.unique(wg, return_counts=True)
        full = counts == 128
        if full.all():
            return sel, None
        for key in keys[~full]:
            mine = _warpgroup(st, st.all) == key
            if mine.sum() < 128 or st.exited[mine].any():
                t = int(np.flatnonzero(mine)[0])
                raise EmulatorFault(say("emu.warpgroup", where=op.where(), who=st.who(t)))
        ok = np.isin(wg, keys[full])
        return sel[ok], sel[~ok]
    return ready


def _sync_op(inst, fn):
    op = Op(WSYNC, None, inst)
    op.fn = lambda st, sel: fn(st, st.idx(sel))
    op.ready = _ready(op)
    return op


@builder("wgmma")
def build_wgmma(prog, inst):
    parts = inst.parts
    if "sync" not in parts or "aligned" not in parts:
        raise Unsupported(say("emu.unsup.wgmma_sync", opcode=inst.opcode))
    kind = parts[1]
    if kind == "fence":
        def fence(st, sel):
            s = _state(st)
            s.fenced[sel] = True
            for slot in getattr(prog, "wgmma_a_slots", ()):
                r = st.regs[slot]
                cur = st.zeros(slot) if r is None else np.asarray(r)
                bits = cur.view(np.uint32) if cur.dtype.itemsize == 4 else cur.astype(np.uint32)
                s.snap.setdefault(slot, np.zeros(st.n, np.uint32))[sel] = bits[sel]
        return _sync_op(inst, fence)
    if kind == "commit_group":
        def commit(st, sel):
            _state(st).group[sel] += 1
        return _sync_op(inst, commit)
    if kind == "wait_group":
        keep = int(inst.operands[0], 0)

        def wait(st, sel):
            _retire(st, _state(st), sel, keep)
        return _sync_op(inst, wait)
    if kind == "mma_async":
        return _build_mma_async(prog, inst)
    raise Unsupported(inst.opcode)


def _retire(st, s, sel, keep):
    if st.order is not None:
        st.order.retired(sel, s.group[sel] - keep)
    mark = np.zeros(st.n, bool)
    mark[sel] = True
    still = []
    for thr, grp, writes in s.pending:
        done = mark[thr] & (grp < s.group[thr] - keep)
        for slot, vals in writes:
            r = st.regs[slot]
            if not isinstance(r, InFlight):
                raise EmulatorFault(say("emu.overwrote", what=vals[1]))
            r.real[thr[done]] = vals[0][done]
            r.count[thr[done]] -= 1
            s.known[slot][thr[done]] = vals[0][done]
            if not r.count.any():
                st.regs[slot] = r.real
        if not done.all():
            nd = ~done
            still.append((thr[nd], grp[nd], [(slot, (v[nd], w)) for slot, (v, w) in writes]))
    s.pending = still
    s.fenced[sel] = False


def _fragment_d(n):
    """[128 threads, n/2 registers] -> (row, col) of the m64nN f32 accumulator tile (PTX ISA figure
    "WGMMA .m64nNk16 register fragment layout for accumulator matrix D")."""
    t = np.arange(128)[:, None]
    j = np.arange(n // 2)[None, :]
    lane = t % 32
    rows = 16 * (t // 32) + lane // 4 + 8 * ((j % 4) // 2)
    cols = 8 * (j // 4) + 2 * (lane % 4) + j % 2
    return rows, cols


def _fragment_a():
    """[128 threads, 4 registers, 2 halves] -> (row, col) of the 64x16 A tile held in registers."""
    t = np.arange(128)[:, None, None]
    i = np.arange(4)[None, :, None]
    h = np.arange(2)[None, None, :]
    lane = t % 32
    return 16 * (t // 32) + lane // 4 + 8 * (i % 2), 2 * (lane % 4) + h + 8 * (i // 2)


def _build_mma_async(prog, inst):
    parts = inst.parts
    shape = parts[4]
    dtype_d, dtype_a, dtype_b = parts[5:8]
    fp8 = dtype_a in V.FP8 and dtype_b in V.FP8
    if not (shape.startswith("m64n") and shape.endswith("k32" if fp8 else "k16")) or dtype_d != "f32" \
            or not (fp8 or dtype_a in ("f16", "bf16") and dtype_a == dtype_b):
        raise Unsupported(say("emu.unsup.wgmma_shape", opcode=inst.opcode))
    elem = 1 if fp8 else 2
    n = int(shape[4:-3])
    if n % 8 or not 8 <= n <= 256:
        raise Unsupported(inst.opcode)
    ops = [o.strip() for o in inst.operands]
    dnames = [x.strip() for x in ops[0].strip("{}").split(",")]
    if len(dnames) != n // 2:
        raise Unsupported(say("emu.unsup.accumulators", opcode=inst.opcode, count=len(dnames), expected=n // 2))
    dslots = [prog.reg(x)[0] for x in dnames]
    a_regs = ops[1].startswith("{")
    if a_regs and fp8:
        raise Unsupported(say("emu.unsup.a_in_registers", opcode=inst.opcode))
    a_names = [x.strip() for x in ops[1].strip("{}").split(",")]
    a_read = [reader(prog, x, "b32") for x in a_names] if a_regs else reader(prog, ops[1], "u64")
    a_slots = [prog.reg(x)[0] for x in a_names] if a_regs else []
    if a_regs:
        prog.__dict__.setdefault("wgmma_a_slots", set()).update(a_slots)
    b_read = reader(prog, ops[2], "u64")
    imm = [int(immediate(x, "s32")) for x in ops[4:]]
    scale_a, scale_b = imm[0], imm[1]
    trans_a, trans_b = (0, 0) if fp8 else (0, imm[2]) if a_regs else (imm[2], imm[3])  # FP8: K-major only
    sd_imm = immediate(ops[3], "s32")
    sd_read = None if sd_imm is not None else reader(prog, ops[3], "pred")
    op = Op(WSYNC, None, inst)
    op.ready = _ready(op)
    d_rows, d_cols = _fragment_d(n)
    a_rows, a_cols = _fragment_a()

    def unpack(bits, dtype=dtype_a):
        if fp8:
            return V.fp8_bits_to_f64(bits, dtype)
        if dtype == "bf16":
            return V.bf16_bits_to_f32(bits).astype(np.float64)
        return bits.view(np.float16).astype(np.float64)

    def uniform(st, sel, read, what):
        v = np.asarray(read(st, sel)).astype(np.uint64).reshape(-1, 128)
        if (v != v[:, :1]).any():
            raise EmulatorFault(say("emu.descriptor_uniform", where=op.where(), what=what))
        return [int(x) for x in v[:, 0]]

    def tile(st, sel, d, rows, k_major, what):
        desc = decode_descriptor(d)
        if desc["base"]:
            raise EmulatorFault(say("emu.descriptor_base", where=op.where(), what=what, base=desc["base"]))
        a = operand_offsets(desc, rows, k_major, elem)
        if a.min() < 0 or a.max() + elem > st.S or a.min() % elem:
            raise EmulatorFault(say("emu.descriptor_outside", where=op.where(), what=what, start=desc["start"],
                                    lbo=desc["lbo"], sbo=desc["sbo"], swizzle=desc["swizzle"] or "none",
                                    low=int(a.min()), high=int(a.max()) + 1, total=st.S))
        base = int(st.shared_row[sel[0]])
        if st.order is not None:  # a byte of each 16-byte chunk, and of each word, it reads
            chunks = (base + a[:, ::16 // elem] if k_major else base + a[::8, :]).ravel()
            words = ((base + a[:, ::4 // elem] if k_major else base + a[::2, :]) >> 2).ravel()
            st.order.async_read(op, sel, chunks, words, f"its {what} operand")
            st.order.wgmma_reads(op, sel, chunks, int(_state(st).group[sel[0]]))
        if fp8:
            return unpack(st.shared[base + a], dtype_a if what == "A" else dtype_b)
        return unpack(st.shared[base + a[..., None] + np.arange(2)].copy().view(np.uint16)[..., 0])

    def fn(st, sel):
        sel = st.idx(sel)
        s = _state(st)
        g = sel.size // 128
        if a_regs:
            regs = np.stack([np.asarray(f(st, sel)).astype(np.uint32) for f in a_read])  # [4, thread]
            for j, slot in enumerate(a_slots):
                snap = s.snap.get(slot)
                changed = regs[j] != (0 if snap is None else snap[sel])
                if changed.any():
                    raise EmulatorFault(say("emu.a_after_fence", where=op.where(), register=a_names[j],
                                            who=st.who(int(sel[np.flatnonzero(changed)[0]]))))
            halves = np.ascontiguousarray(regs.T).reshape(g, 128, 4).view(np.uint16).reshape(g, 128, 4, 2)
            A = np.empty((g, 64, 16))
            A[:, a_rows, a_cols] = unpack(halves)
        else:
            A = np.stack([tile(st, sel[i * 128:(i + 1) * 128], d, 64, not trans_a, "A")
                          for i, d in enumerate(uniform(st, sel, a_read, "A"))])
        B = np.stack([tile(st, sel[i * 128:(i + 1) * 128], d, n, not trans_b, "B")
                      for i, d in enumerate(uniform(st, sel, b_read, "B"))])
        scale_d = np.ones(sel.size, bool) if sd_read is None and sd_imm else \
            np.zeros(sel.size, bool) if sd_read is None else np.asarray(sd_read(st, sel)).astype(bool)
        C = np.empty((len(dslots), sel.size), np.float32)
        for j, slot in enumerate(dslots):
            r = st.regs[slot]
            if isinstance(r, InFlight):
                C[j] = r.future[sel].view(np.float32)
            else:
                cur = st.zeros(slot) if r is None else r
                vals = cur[sel].view(np.float32) if cur.dtype.itemsize == 4 else cur[sel]
                changed = ~s.fenced[sel]
                if slot in s.known:
                    changed &= s.known[slot][sel].view(np.uint32) != vals.view(np.uint32)
                if changed.any():
                    raise EmulatorFault(say("emu.d_unfenced", where=op.where(), register=dnames[j],
                                            who=st.who(int(sel[np.flatnonzero(changed)[0]]))))
                C[j] = vals
        Ct = np.zeros((g, 64, n))
        Ct[:, d_rows, d_cols] = np.where(scale_d, C, 0.0).T.reshape(g, 128, -1)  # scale-d 0: D not read (-inf stays out)
        D = np.einsum("gmk,gnk->gmn", A * scale_a, B * scale_b) + Ct
        d = D[:, d_rows, d_cols].reshape(sel.size, -1).T.astype(np.float32)  # [register, thread]
        writes = []
        for j, slot in enumerate(dslots):
            r = st.regs[slot]
            if not isinstance(r, InFlight):
                real = st.zeros(slot) if r is None else r
                r = st.regs[slot] = InFlight(real, st.n, op, dnames[j])
                s.known.setdefault(slot, np.zeros(st.n, real.dtype))
            r.count[sel] += 1
            r.future[sel] = d[j].view(r.real.dtype)
            writes.append((slot, (d[j].view(r.real.dtype), op.where())))
        s.pending.append((sel.copy(), s.group[sel].copy(), writes))
    op.fn = fn
    return op
