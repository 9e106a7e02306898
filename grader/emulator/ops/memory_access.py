"""Memory instructions: ld/st (every state space, vectors), atomics, cp.async (the non-bulk forms: the
bulk ones are async_copy's), ldmatrix. Every access is checked: out-of-bounds and misaligned addresses
stop the kernel; races and uninitialised reads of shared memory become warnings; per-instruction
statistics count 32-byte sectors (global) and bank wavefronts (shared).
"""
from __future__ import annotations

import bisect

import numpy as np

from grader.emulator import memory, memstats, ordering
from grader.emulator.machine import NORMAL, WSYNC, EmulatorFault, Op
from grader.emulator.operands import Unsupported, address, np_type, reader, writer
from grader.emulator.ops.table import builder
from grader.emulator.ops.warp import collective_ready, full_warps, register_sel
from grader.messages import say

SPACES = ("global", "shared", "local", "param", "const")
_INIT_WORD = np.uint32(0x01010101)  # four initialised bytes of shared memory, as one word of flags
_INIT_HALF = np.uint16(0x0101)
_WORD_ROWS = {n: np.arange(n)[:, None] for n in (2, 4, 8)}  # the words of an n-word access, as rows


def _space(parts):
    for p in parts[1:]:
        if p in SPACES:
            return p
        if p == "shared::cta":
            return "shared"
    return None  # generic


def _vec_n(parts):
    for p in parts:
        if p in ("v2", "v4", "v8"):
            return int(p[1])
    return 1


def _who(st, t):
    return st.who(int(t))


# ---- address resolution -------------------------------------------------------------------------

class Seg:
    """Threads (positions `pos` in the executing set) whose accesses fall in one backing array."""
    __slots__ = ("pos", "arr", "off", "kind", "base")

    def __init__(self, pos, arr, off, kind, base=0):
        self.pos, self.arr, self.off, self.kind, self.base = pos, arr, off, kind, base


def resolve(st, op, sel, addr, space, size, write):
    """Segments of (positions, backing uint8 array, byte offsets) for `size`-byte accesses."""
    addr = np.asarray(addr, np.uint64)
    if addr.ndim == 0:
        addr = np.full(sel.size, addr, np.uint64)
    if size > 1 and (addr & np.uint64(size - 1) if size & (size - 1) == 0 else addr % np.uint64(size)).any():
        i = int(np.flatnonzero(addr % np.uint64(size))[0])
        raise EmulatorFault(say("emu.misaligned", where=op.where(), who=_who(st, sel[i]), size=size, address=int(addr[i])))
    if space is None:
        segs = []
        is_sh = (addr >= np.uint64(memory.SHARED_WINDOW)) & (addr < np.uint64(memory.SHARED_WINDOW
                                                                              + memory.WINDOW_SIZE))
        is_lo = (addr >= np.uint64(memory.LOCAL_WINDOW)) & (addr < np.uint64(memory.LOCAL_WINDOW
                                                                             + memory.WINDOW_SIZE))
        is_gl = ~(is_sh | is_lo)
        for mask, sp, base in ((is_gl, "global", 0), (is_sh, "shared", memory.SHARED_WINDOW),
                               (is_lo, "local", memory.LOCAL_WINDOW)):
            if mask.all():
                return _resolve_space(st, op, sel, addr - np.uint64(base), sp, size, write, st.all[:sel.size])
            if mask.any():
                pos = np.flatnonzero(mask)
                segs += _resolve_space(st, op, sel[pos], addr[pos] - np.uint64(base), sp, size, write, pos)
        return segs
    if space == "const":
        space = "global"
    return _resolve_space(st, op, sel, addr, space, size, write, st.all[:sel.size])


def _resolve_space(st, op, sel, addr, space, size, write, pos):
    if space == "global":
        bases, ends, bufs = st.launch.mem
        if addr.size and bases.size:  # the usual case: one allocation holds every address
            j0 = bisect.bisect_right(st.launch.mem_bases, int(addr.min())) - 1
            if j0 >= 0 and int(addr.max()) + size <= int(ends[j0]):
                return [Seg(pos, bufs[j0].data, addr.view(np.int64) - bufs[j0].addr, "global", bufs[j0].addr)]
        j = np.searchsorted(bases, addr, side="right").astype(np.int64) - 1
        jc = np.maximum(j, 0)
        ok = (j >= 0) & (addr + np.uint64(size) <= ends[jc]) if bases.size else np.zeros(addr.size, bool)
        if not ok.all():
            _oob_global(st, op, sel, addr, size, write, bases, ends, bufs, ok)
        j0 = int(jc[0])
        if (jc == j0).all():
            return [Seg(pos, bufs[j0].data, (addr - bases[j0]).astype(np.int64), "global", bufs[j0].addr)]
        out = []
        for u in np.unique(jc):
            m = jc == u
            out.append(Seg(pos[m], bufs[u].data, (addr[m] - bases[u]).astype(np.int64), "global", bufs[u].addr))
        return out
    if space == "shared":
        a = addr.astype(np.int64)
        if a.size and int(a.max()) + size > st.S:
            i = int(np.flatnonzero(a + size > st.S)[0])
            raise EmulatorFault(say("emu.shared_oob", what=say("emu.write" if write else "emu.read"), where=op.where(),
                                    who=_who(st, sel[i]), size=size, offset=int(a[i]), total=st.S,
                                    static=st.prog.static_shared, dynamic=st.launch.shared_mem))
        return [Seg(pos, st.shared, (st.shared_row if sel is st.all else st.shared_row[sel]) + a, "shared")]
    if space == "local":
        a = addr.astype(np.int64)
        bad = a + size > st.L
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise EmulatorFault(say("emu.local_oob", where=op.where(), who=_who(st, sel[i]), offset=int(a[i]), total=st.L))
        return [Seg(pos, st.local, sel * st.Lp + a, "local")]
    if space == "param":
        a = addr.astype(np.int64)
        if st.prog.is_call_param(a):
            return [Seg(pos, st.cparam, sel * st.Pp + (a - st.prog.call_param_base), "cparam")]
        return [Seg(pos, st.launch.params, a, "param")]
    raise Unsupported(say("emu.unsup.space", space=space))


def _past_end(b, a: int, size: int, elem: int) -> str:
    """Where access [a, a + size) lies past buffer b, counted in the kernel's array: without the guard
    elements the grader put after it (`Buffer.guard`), in that array's elements where known."""
    if not b.guard:
        elem = max(elem, 1)
        return say("emu.past_allocation", past=a + size - (b.addr + b.nbytes), nbytes=b.nbytes,
                   index=(a - b.addr) // elem, count=b.nbytes // elem)
    elem = b.elem
    n, index, guard = (b.nbytes - b.guard) // elem, (a - b.addr) // elem, b.guard // elem
    return say("emu.past_array", index=index, count=n, elements=say("emu.elements" if n != 1 else "emu.element"),
               elem=elem, past=index - n + 1, guard=guard,
               guard_elements=say("emu.elements" if guard != 1 else "emu.element"))


def _oob_global(st, op, sel, addr, size, write, bases, ends, bufs, ok):
    i = int(np.flatnonzero(~ok)[0])
    a = int(addr[i])
    what = say("emu.write" if write else "emu.read")
    near = ""
    if bases.size:
        j = int(np.searchsorted(bases, np.uint64(a), side="right")) - 1
        if j >= 0 and a >= int(bases[j]):
            near = _past_end(bufs[j], a, size, op.elem_size if hasattr(op, "elem_size") else size)
        elif j + 1 < bases.size and a < int(bases[j + 1]):
            b = bufs[j + 1]
            near = say("emu.before_start", gap=b.addr - a, nbytes=b.nbytes)
    if not near and a < 1 << 20:
        near = say("emu.null")
    count = say("emu.oob_threads", count=int((~ok).sum())) if (~ok).sum() > 1 else say("emu.oob_one")
    raise EmulatorFault(say("emu.global_oob", what=what, size=size, address=a, near=near, who=_who(st, sel[i]),
                            where=op.where(), count=count))


# ---- statistics and shared-memory checks --------------------------------------------------------

def _threads(sel, seg):
    """The threads of a segment (sel itself when the segment has them all)."""
    return sel if seg.pos.size == sel.size else sel[seg.pos]


def _stats_global(st, op, sel, seg, size):
    """Defer the statistics of a global access: its sectors, counted with the instruction's others."""
    if st.launch.counts is None:
        return
    _, first, _, lanes, _, memo = st.warp_runs(_threads(sel, seg))
    if size not in memo:
        memo[size] = int(np.sum(-(-(lanes * size) // 32)))  # sectors a warp's bytes need at least
    memstats.defer(st.launch, (op.pc, "global"), ((seg.off + seg.base) >> 5, first, lanes.size, memo[size],
                                          first.size * size))


def _stats_shared(st, op, sel, seg, size):
    """Defer the statistics of a shared access: each warp's (warp, group of words) keys."""
    if st.launch.counts is None:
        return
    t = _threads(sel, seg)
    _, _, _, lanes, warp, _ = st.warp_runs(t)
    nwords = max(1, size // 4)
    memstats.defer(st.launch, (op.pc, "shared"), (warp + (seg.off % st.Sp) // (4 * nwords), lanes.size, nwords))


def _tile(x, n):
    """x repeated n times (np.tile, faster)."""
    out = np.empty((n, x.size), x.dtype)
    out[:] = x
    return out.ravel()


def _others(last, me):
    """True where the accessor `last` (epoch * 64 + warp, or -1) is another warp than `me` in me's epoch:
    their xor is then 1..63 (0 for the same warp, >= 64 across epochs, negative for none)."""
    return ((last ^ me) - 1).view(np.uint64) < 63


def _check_shared(st, op, sel, seg, size, write, synced=False):
    """Uninitialised reads, and races: accesses to one word by two warps of a block between barriers.
    `synced` accesses (volatile, atomic, acquire/release) signal on purpose: they update the shadow
    state but are not reported as races. An access of n whole words is handled as n rows of words
    (the first word of every thread, then the second ...)."""
    if not st.check:
        return
    t = _threads(sel, seg)
    byte0 = seg.off
    nwords = max(1, size // 4)
    unit = byte0 // 4 if nwords == 1 else byte0 // size  # the word, or the n-aligned group of words
    word = unit if nwords == 1 else (_WORD_ROWS[nwords] + unit * nwords).ravel()
    if st.order is not None:  # bytes of async copies, stores the async proxy reads (ordering.py)
        st.order.shared(op, t, byte0, size, write)
    if not write:  # the per-byte init flags, checked a word (or half word) at a time
        if size >= 4:
            init = st.sh_init.view(np.uint32)[word] == _INIT_WORD
            if nwords > 1:
                init = init.reshape(nwords, -1).all(axis=0)
        elif size == 2:
            init = st.sh_init.view(np.uint16)[byte0 // 2] == _INIT_HALF
        else:
            init = st.sh_init[byte0]
        if not init.all():
            i = int(np.flatnonzero(~init)[0])
            st.launch.warn(("uninit", op.pc), say("emu.uninit", where=op.where(), who=_who(st, t[i]),
                                                  offset=int(byte0[i] % st.Sp)))
    me_t = st.accessor if t is st.all else st.accessor[t]
    me = me_t if nwords == 1 else _tile(me_t, nwords)
    last_w = st.sh_w[word]
    conflict = _others(last_w, me)  # written by another warp in this epoch
    if write:
        conflict |= _others(st.sh_r[word], me)
        # two warps writing one word in one instruction: after a stable sort by word (or group of
        # words), a repeated one written by another warp than the one before
        step = unit[1:] - unit[:-1]
        if step.size and step.min() <= 0:
            order = None if step.min() == 0 else np.argsort(unit, kind="stable")
            us, ws = (unit, me_t) if order is None else (unit[order], me_t[order])
            dup = np.flatnonzero((us[1:] == us[:-1]) & (ws[1:] != ws[:-1])) + 1
            if dup.size:
                conflict.reshape(nwords, -1)[:, dup if order is None else order[dup]] = True
    if conflict.any() and not synced:
        rows = conflict.reshape(nwords, -1)
        j = int(np.flatnonzero(rows.any(axis=0))[0])  # the first thread, and its first word
        i = int(np.flatnonzero(rows[:, j])[0]) * t.size + j
        other_pc = int(st.sh_wpc[word[i]])
        other = (say("emu.written_by", where=st.prog.code[other_pc].where())
                 if other_pc >= 0 and last_w[i] >> 6 == me[i] >> 6 else say("emu.read_by_other"))
        st.launch.warn(("race", op.pc),
                       say("emu.race", where=op.where(), who=_who(st, t[j]), kind=say("emu.race_writes" if write else
                                                                                      "emu.race_reads"),
                           offset=int(word[i] * 4 % st.Sp), other=other))
    if write:
        st.sh_w[word] = me
        st.sh_wpc[word] = op.pc
        if size >= 4:
            st.sh_init.view(np.uint32)[word] = _INIT_WORD
        elif size == 2:
            st.sh_init.view(np.uint16)[byte0 // 2] = _INIT_HALF
        else:
            st.sh_init[byte0] = True
    else:  # one reader, or several warps (63) in this epoch
        st.sh_r[word] = np.where(_others(st.sh_r[word], me), me | 63, me)


# ---- ld / st ------------------------------------------------------------------------------------

def _elem(t):
    if t in ("f16", "bf16"):
        return "b16"
    return t


SYNCED = {"volatile", "relaxed", "acquire", "release", "acq_rel"}


def _load(arr, off, size, dt, nvec):
    """The values [element, thread] of the `size`-byte accesses (nvec elements) at byte offsets `off`
    (size-aligned) of the uint8 array arr: as one item of `size` bytes each where arr allows."""
    if nvec == 1:
        return arr.view(dt)[off // size]
    if size <= 16 and arr.size % size == 0:
        return arr.view(f"V{size}")[off // size].view(dt).reshape(-1, nvec).T
    return arr.view(dt)[off // dt.itemsize + np.arange(nvec)[:, None]]


def _store(arr, off, size, vals):
    """Store vals [element, thread] (later threads last) to the accesses at byte offsets `off`."""
    nvec, dt = vals.shape[0], vals.dtype
    if nvec == 1:
        arr.view(dt)[off // size] = vals[0]
    elif size <= 16 and arr.size % size == 0:
        arr.view(f"V{size}")[off // size] = np.ascontiguousarray(vals.T).view(f"V{size}").ravel()
    else:
        arr.view(dt)[off // dt.itemsize + np.arange(nvec)[:, None]] = vals


@builder("ld", "ldu")
def build_ld(prog, inst):
    parts = inst.parts
    synced = bool(SYNCED & set(parts))
    space = _space(parts)
    t = _elem(parts[-1])
    nvec = _vec_n(parts)
    dt = np_type(t) if t != "b128" else None
    if dt is None:
        raise Unsupported(inst.opcode)
    dests = inst.operands[0]
    names = [x.strip() for x in dests.strip("{}").split(",")] if dests.strip().startswith("{") else [dests]
    ws = [writer(prog, x) for x in names]
    addr, sym = address(prog, inst.operands[1])
    size = dt.itemsize * nvec
    op = Op(NORMAL, None, inst)
    op.elem_size = dt.itemsize
    if space == "param" and sym is not None and not prog.is_call_param(np.asarray(prog.symbol(sym))):
        def fn(st, sel):  # a kernel parameter: the same value for every thread
            a = int(np.asarray(addr(st, sel)).ravel()[0])
            vals = st.launch.params[a:a + size].view(dt)
            for i, w in enumerate(ws):
                w(st, sel, vals[i])
        op.fn = fn
        return op

    def fn(st, rsel):
        sel = st.idx(rsel)
        segs = resolve(st, op, sel, addr(st, rsel), space, size, False)
        out = np.empty((nvec, sel.size), dt)
        for s in segs:
            if s.kind == "shared":
                _check_shared(st, op, sel, s, size, False, synced)
                _stats_shared(st, op, sel, s, size)
            elif s.kind == "global":
                _stats_global(st, op, sel, s, size)
            out[:, s.pos] = _load(s.arr, s.off, size, dt, nvec)
        for i, w in enumerate(ws):
            w(st, rsel, out[i])
    op.fn = fn
    return op


@builder("st")
def build_st(prog, inst):
    parts = inst.parts
    synced = bool(SYNCED & set(parts))
    space = _space(parts)
    t = _elem(parts[-1])
    nvec = _vec_n(parts)
    dt = np_type(t)
    addr, _ = address(prog, inst.operands[0])
    src = inst.operands[1]
    names = [x.strip() for x in src.strip("{}").split(",")] if src.strip().startswith("{") else [src]
    rs = [reader(prog, x, t) for x in names]
    size = dt.itemsize * nvec
    op = Op(NORMAL, None, inst)
    op.elem_size = dt.itemsize

    def fn(st, rsel):
        sel = st.idx(rsel)
        segs = resolve(st, op, sel, addr(st, rsel), space, size, True)
        vals = np.empty((nvec, sel.size), dt)
        for i, r in enumerate(rs):
            vals[i] = r(st, rsel)
        for s in segs:
            if s.kind == "shared":
                _check_shared(st, op, sel, s, size, True, synced)
                _stats_shared(st, op, sel, s, size)
            elif s.kind == "global":
                _stats_global(st, op, sel, s, size)
            elif s.kind == "param":
                raise Unsupported(say("emu.unsup.st_param"))
            _store(s.arr, s.off, size, vals if s.pos.size == sel.size else vals[:, s.pos])
    op.fn = fn
    return op


# ---- atomics ------------------------------------------------------------------------------------

def _atom_fn(opname, t):
    from grader.emulator import values as V
    dt = np_type(t)
    if t in ("f16", "bf16", "f16x2", "bf16x2"):
        scalar = t.replace("x2", "")

        def to64(bits):
            if scalar == "bf16":
                return V.bf16_bits_to_f32(bits).astype(np.float64)
            return bits.view(np.float16).astype(np.float64)

        def from64(x):
            return V.to_bf16_bits(x) if scalar == "bf16" else V.to_f16(x).view(np.uint16)

        def one(old, b):
            if opname == "add":
                return from64(to64(old) + to64(b))
            if opname in ("min", "max"):
                f = np.fmin if opname == "min" else np.fmax
                return from64(f(to64(old), to64(b)))
            raise Unsupported(say("emu.unsup.atom", op=f"{opname}.{t}"))

        if t.endswith("x2"):
            def f(old, b, c):
                lo = one((old & 0xFFFF).astype(np.uint16), (b & 0xFFFF).astype(np.uint16))
                hi = one((old >> 16).astype(np.uint16), (b >> 16).astype(np.uint16))
                return (lo.astype(np.uint32) | (hi.astype(np.uint32) << 16)).astype(np.uint32)
            return f
        return lambda old, b, c: one(old, b)
    if opname == "add":
        return lambda old, b, c: np.add(old, b, dtype=dt)
    if opname == "min":
        return lambda old, b, c: np.minimum(old, b).astype(dt)
    if opname == "max":
        return lambda old, b, c: np.maximum(old, b).astype(dt)
    if opname == "and":
        return lambda old, b, c: old & b
    if opname == "or":
        return lambda old, b, c: old | b
    if opname == "xor":
        return lambda old, b, c: old ^ b
    if opname == "exch":
        return lambda old, b, c: np.asarray(b, dt)
    if opname == "cas":
        return lambda old, b, c: np.where(old == b, c, old).astype(dt)
    if opname == "inc":
        return lambda old, b, c: np.where(old >= b, dt.type(0), old + dt.type(1)).astype(dt)
    if opname == "dec":
        return lambda old, b, c: np.where((old == 0) | (old > b), b, old - dt.type(1)).astype(dt)
    raise Unsupported(say("emu.unsup.atom", op=opname))


@builder("atom", "red")
def build_atom(prog, inst):
    parts = inst.parts
    is_red = parts[0] == "red"
    space = _space(parts)
    t = parts[-1]
    opname = next(p for p in parts[1:-1] if p in ("add", "min", "max", "and", "or", "xor", "exch", "cas",
                                                  "inc", "dec"))
    if any(p.startswith("v") and p[1:].isdigit() for p in parts):
        raise Unsupported(say("emu.unsup.vector_atomics", opcode=inst.opcode))
    st_t = {"f16": "b16", "bf16": "b16", "f16x2": "b32", "bf16x2": "b32"}.get(t, t)
    if t in ("b32", "b64") and opname not in ("and", "or", "xor", "exch", "cas"):
        raise Unsupported(inst.opcode)
    dt = np_type(st_t)
    ops = inst.operands
    d = None if is_red else writer(prog, ops[0])
    rest = ops if is_red else ops[1:]
    addr, _ = address(prog, rest[0])
    b = reader(prog, rest[1], st_t)
    c = reader(prog, rest[2], st_t) if opname == "cas" else None
    f = _atom_fn(opname, t)
    size = dt.itemsize
    op = Op(NORMAL, None, inst)
    op.elem_size = size
    simple_red = is_red and opname == "add" and t in ("u32", "s32", "u64", "s64", "f32", "f64")

    def fn(st, sel):
        sel = st.idx(sel)
        bv = np.broadcast_to(np.asarray(b(st, sel), dt), sel.shape)
        cv = np.broadcast_to(np.asarray(c(st, sel), dt), sel.shape) if c is not None else None
        out = np.empty(sel.size, dt)
        for s in resolve(st, op, sel, addr(st, sel), space, size, True):
            view = s.arr.view(dt)
            idx = s.off // size
            if s.kind == "shared":
                _check_shared(st, op, sel, s, size, True, synced=True)
            if simple_red:
                np.add.at(view, idx, bv[s.pos])
                continue
            # serialise: round r handles each address's r-th thread (in thread order)
            order = np.argsort(idx, kind="stable")
            si = idx[order]
            start = np.r_[True, si[1:] != si[:-1]]
            run_start = np.maximum.accumulate(np.where(start, np.arange(si.size), 0))
            rank = np.empty(si.size, np.int64)
            rank[order] = np.arange(si.size) - run_start
            for r in range(int(rank.max()) + 1 if rank.size else 0):
                m = rank == r
                ii = idx[m]
                pos = s.pos[m]
                old = view[ii].copy()
                view[ii] = f(old, bv[pos], cv[pos] if cv is not None else None)
                out[pos] = old
        if d is not None:
            d(st, sel, out)
    op.fn = fn
    return op


# ---- cp.async -----------------------------------------------------------------------------------

def _cp_state(st) -> "CpAsync":
    """The copies the chunk's threads have in flight, made at the first cp.async."""
    if st._cp is None:
        st._cp = CpAsync(st.n)
    return st._cp


def build_cp_async(prog, inst):
    parts = inst.parts
    if parts[1] != "async":
        raise Unsupported(inst.opcode)
    if len(parts) > 2 and parts[2] == "commit_group":
        def fn(st, sel):
            _cp_state(st).commit(st.idx(sel))
        return Op(NORMAL, fn, inst)
    if len(parts) > 2 and parts[2] in ("wait_group", "wait_all"):
        keep = int(inst.operands[0], 0) if parts[2] == "wait_group" else None

        def fn(st, sel):
            _cp_state(st).wait(st, st.idx(sel), keep)
        return Op(NORMAL, fn, inst)
    if "bulk" in parts or "mbarrier" in parts:
        raise Unsupported(inst.opcode)
    dst, _ = address(prog, inst.operands[0])
    src, _ = address(prog, inst.operands[1])
    cp_size = int(inst.operands[2], 0)
    # the optional 4th operand is src-size (a 32-bit value), unless it is the 64-bit cache policy
    src_size = reader(prog, inst.operands[3], "u32") if len(inst.operands) > 3 and \
        not inst.operands[3].strip().startswith("%rd") else None
    op = Op(NORMAL, None, inst)
    op.elem_size = cp_size
    item = np.dtype(f"V{cp_size}")  # a copy's bytes, as one item

    def fn(st, rsel):
        sel = st.idx(rsel)
        n = None if src_size is None else np.minimum(np.asarray(src_size(st, rsel)).astype(np.int64), cp_size)
        if n is None or (n == cp_size).all():
            data = np.empty(sel.size, item)
            for s in resolve(st, op, sel, src(st, rsel), "global", cp_size, False):
                _stats_global(st, op, sel, s, cp_size)
                data[s.pos] = s.arr.view(item)[s.off // cp_size]
        else:
            data = _zero_filled(st, op, sel, np.broadcast_to(n, sel.shape), src, cp_size).view(item).ravel()
        segs = resolve(st, op, sel, np.asarray(dst(st, rsel)), "shared", cp_size, True)
        _cp_state(st).issue(st, op, sel, segs[0].off, data)
    op.fn = fn
    return op


def _zero_filled(st, op, sel, n, src, cp_size):
    """[thread, byte] of copies that read n < cp_size bytes (src-size) and fill the rest with zeros."""
    data = np.zeros((sel.size, cp_size), np.uint8)
    reading = n > 0
    if reading.any():
        rsel = sel[reading]
        for s in resolve(st, op, rsel, np.asarray(src(st, rsel)), "global", cp_size
                         if (n[reading] == cp_size).all() else 1, False):
            _stats_global(st, op, rsel, s, cp_size)
            rows = np.flatnonzero(reading)[s.pos]
            lim = n[rows]
            cols = np.arange(cp_size)
            ok = cols[None, :] < lim[:, None]
            if (s.off + lim > s.arr.size).any():
                raise EmulatorFault(say("emu.cp_async_oob", where=op.where()))
            vals = s.arr[np.minimum(s.off[:, None] + cols, s.arr.size - 1)]
            data[rows] = np.where(ok, vals, 0)
    return data


class CpAsync:
    """Copies issued by cp.async, held until the thread's cp.async.wait_group retires their group."""

    def __init__(self, n):
        self.group = np.zeros(n, np.int64)   # committed groups per thread
        self.pending = []                     # (op, threads, group ids, shared byte offsets, data items)

    def issue(self, st, op, sel, off, data):
        self.pending.append((op, sel, self.group[sel].copy(), off, data))
        if ordering.of(st) is not None:
            st.order.cp_issue(op, off, data.itemsize)

    def commit(self, sel):
        self.group[sel] += 1

    def wait(self, st, sel, keep):
        mark = None
        if sel.size < st.n:
            mark = np.zeros(st.n, bool)
            mark[sel] = True
        still = []
        for op, thr, grp, off, data in self.pending:
            done = None if mark is None else mark[thr]  # None: all of them
            if keep is not None:
                old = grp < self.group[thr] - keep
                done = old if done is None else done & old
            if done is None or done.all():
                _retire(st, op, thr, st.all[:thr.size], off, data)
            elif done.any():
                _retire(st, op, thr, np.flatnonzero(done), off[done], data[done])
                nd = ~done
                still.append((op, thr[nd], grp[nd], off[nd], data[nd]))
            else:
                still.append((op, thr, grp, off, data))
        self.pending = still


def _retire(st, op, thr, pos, off, data):
    """Land copies (threads thr[pos]) in shared memory."""
    seg = Seg(pos, st.shared, off, "shared")
    if st.order is not None:
        st.order.cp_land(off, data.itemsize)
    _check_shared(st, op, thr, seg, data.itemsize, True)
    _stats_shared(st, op, thr, seg, data.itemsize)
    st.shared.view(data.dtype)[off // data.itemsize] = data


# ---- ldmatrix / stmatrix ------------------------------------------------------------------------


@builder("ldmatrix")
def build_ldmatrix(prog, inst):
    parts = inst.parts
    num = int(next(p for p in parts if p in ("x1", "x2", "x4"))[1])
    trans = "trans" in parts
    if "m8n8" not in parts or parts[-1] != "b16":
        raise Unsupported(inst.opcode)
    names = [x.strip() for x in inst.operands[0].strip("{}").split(",")]
    ws = [writer(prog, x) for x in names]
    addr, _ = address(prog, inst.operands[1])
    space = _space(parts)
    op = Op(WSYNC, None, inst)
    op.elem_size = 16

    def fn(st, sel):
        full_warps(st, op, sel)
        nw = sel.size // 32
        a = np.empty((nw, 32), np.uint64)
        a.ravel()[:] = addr(st, register_sel(st, sel))
        users = a[:, : 8 * num].ravel()
        usel = sel.reshape(nw, 32)[:, : 8 * num].ravel()
        segs = resolve(st, op, usel, users, space or "shared", 16, False)
        rows = np.empty((usel.size, 4), np.uint32)   # each lane's row: 8 b16 as 4 pairs, low half first
        for s in segs:
            if s.kind == "shared":
                _check_shared(st, op, usel, s, 16, False)
                _stats_shared(st, op, usel, s, 16)
            rows[s.pos] = _load(s.arr, s.off, 16, np.dtype(np.uint32), 4).T
        if trans:  # [warp, matrix, row, col] of b16, transposed: lane l gets rows 2(l%4), +1 of column l//4
            rows = np.ascontiguousarray(rows.view(np.uint16).reshape(nw, num, 8, 8).transpose(0, 1, 3, 2))
        # lane l's register i: row l // 4, columns 2 (l % 4), +1 of matrix i, i.e. the l-th b16 pair
        regs = rows.view(np.uint32).reshape(nw, num, 32)
        rsel = register_sel(st, sel)
        for i in range(num):
            ws[i](st, rsel, regs[:, i].ravel())

    op.fn = fn
    op.ready = collective_ready
    return op


@builder("stmatrix")
def build_stmatrix(prog, inst):
    raise Unsupported(inst.opcode)
