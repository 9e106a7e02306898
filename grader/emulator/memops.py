"""Memory instructions: ld/st (every state space, vectors), atomics, cp.async, ldmatrix, mma.sync, and
calls (printf). Every access is checked: out-of-bounds and misaligned addresses stop the kernel; races
and uninitialised reads of shared memory become warnings; per-instruction statistics count 32-byte
sectors (global) and bank wavefronts (shared).
"""
from __future__ import annotations

import re

import numpy as np

from grader.emulator import memory
from grader.emulator.machine import NORMAL, WSYNC, EmulatorFault, Op
from grader.emulator.operands import Unsupported, address, np_type, reader, writer

SPACES = ("global", "shared", "local", "param", "const")


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
    if size > 1 and (addr % np.uint64(size)).any():
        i = int(np.flatnonzero(addr % np.uint64(size))[0])
        raise EmulatorFault(f"misaligned address: {op.where()} by {_who(st, sel[i])} accesses {size} bytes "
                            f"at 0x{int(addr[i]):x}, which is not a multiple of {size}")
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
                return _resolve_space(st, op, sel, addr - np.uint64(base), sp, size, write,
                                      np.arange(sel.size))
            if mask.any():
                pos = np.flatnonzero(mask)
                segs += _resolve_space(st, op, sel[pos], addr[pos] - np.uint64(base), sp, size, write, pos)
        return segs
    if space == "const":
        space = "global"
    return _resolve_space(st, op, sel, addr, space, size, write, np.arange(sel.size))


def _resolve_space(st, op, sel, addr, space, size, write, pos):
    if space == "global":
        bases, ends, bufs = st.launch.mem
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
        bad = a + size > st.S
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise EmulatorFault(
                f"out-of-bounds shared-memory {'write' if write else 'read'}: {op.where()} by "
                f"{_who(st, sel[i])} accesses {size} bytes at shared offset {int(a[i])}, but the block has "
                f"{st.S} bytes of shared memory ({st.prog.static_shared} static + "
                f"{st.launch.shared_mem} dynamic)")
        return [Seg(pos, st.shared, st.blk[sel] * st.Sp + a, "shared")]
    if space == "local":
        a = addr.astype(np.int64)
        bad = a + size > st.L
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise EmulatorFault(f"out-of-bounds local-memory access: {op.where()} by {_who(st, sel[i])} "
                                f"at local offset {int(a[i])} of {st.L} bytes")
        return [Seg(pos, st.local, sel * st.Lp + a, "local")]
    if space == "param":
        a = addr.astype(np.int64)
        if st.prog.is_call_param(a):
            return [Seg(pos, st.cparam, sel * st.Pp + (a - st.prog.call_param_base), "cparam")]
        return [Seg(pos, st.launch.params, a, "param")]
    raise Unsupported(f"state space .{space}")


def _oob_global(st, op, sel, addr, size, write, bases, ends, bufs, ok):
    i = int(np.flatnonzero(~ok)[0])
    a = int(addr[i])
    what = "write" if write else "read"
    near = ""
    if bases.size:
        j = int(np.searchsorted(bases, np.uint64(a), side="right")) - 1
        if j >= 0 and a >= int(bases[j]):
            b = bufs[j]
            elem = op.elem_size if hasattr(op, "elem_size") else size
            near = (f": {a + size - (b.addr + b.nbytes)} bytes past the end of a {b.nbytes}-byte allocation "
                    f"(element {(a - b.addr) // max(elem, 1)} of {b.nbytes // max(elem, 1)})")
        elif j + 1 < bases.size and a < int(bases[j + 1]):
            b = bufs[j + 1]
            near = f": {b.addr - a} bytes before the start of a {b.nbytes}-byte allocation"
    if not near and a < 1 << 20:
        near = " (a null or tiny pointer: an argument not passed as a device array?)"
    raise EmulatorFault(f"out-of-bounds global {what} of {size} bytes at 0x{a:x}{near}, by {_who(st, sel[i])}, "
                        f"{op.where()}; {int((~ok).sum())} threads of this instruction were out of bounds")


# ---- statistics and shared-memory checks --------------------------------------------------------

def _distinct_per_warp(w: np.ndarray, v: np.ndarray) -> tuple[int, np.ndarray]:
    """(total distinct (warp, value) pairs, lanes per warp) for w sorted; O(k) when v is monotonic
    within each warp (the common case), a sort otherwise."""
    new_w = np.r_[True, w[1:] != w[:-1]]
    dv = np.diff(v)
    same_w = ~new_w[1:]
    if (dv[same_w] >= 0).all():
        distinct = int(new_w.sum() + np.count_nonzero((dv != 0) & same_w))
    else:
        distinct = int(np.unique(w.astype(np.int64) * (1 << 44) + v).size)
    lanes = np.diff(np.r_[np.flatnonzero(new_w), w.size])
    return distinct, lanes


def _stats_global(st, op, sel, seg, size):
    stats = st.launch.stats
    if stats is None:
        return
    w = st.wkey[sel[seg.pos]]
    sector = (seg.off + seg.base) >> 5
    distinct, lanes = _distinct_per_warp(w, sector)
    rec = stats.setdefault((op.pc, "global"), {"kind": "global", "requests": 0, "sectors": 0, "ideal": 0, "bytes": 0})
    rec["requests"] += int(lanes.size)
    rec["sectors"] += distinct
    rec["ideal"] += int(np.sum(-(-(lanes * size) // 32)))
    rec["bytes"] += int(w.size * size)


def _stats_shared(st, op, sel, seg, size):
    stats = st.launch.stats
    if stats is None:
        return
    w = st.wkey[sel[seg.pos]].astype(np.int64)
    nwords = max(1, size // 4)
    word = (seg.off % st.Sp) // 4
    if nwords > 1:
        word = (word[:, None] + np.arange(nwords)).ravel()
        w = np.repeat(w, nwords)
    uw = np.unique(w * (1 << 32) + word)  # distinct words per warp (broadcasts are free)
    ww, wd = uw >> 32, uw & 0xFFFFFFFF
    bank_key = np.unique(ww * 64 + (wd % 32), return_counts=True)
    per_bank = bank_key[1]
    warp_of_bank = bank_key[0] // 64
    waves = np.zeros(int(warp_of_bank.max()) + 1 if warp_of_bank.size else 1, np.int64)
    np.maximum.at(waves, warp_of_bank, per_bank)
    words_per_warp = np.bincount(ww)
    ideal = -(-words_per_warp // 32)
    present = words_per_warp > 0
    rec = stats.setdefault((op.pc, "shared"), {"kind": "shared", "requests": 0, "wavefronts": 0, "ideal": 0,
                                   "max_ways": 0})
    rec["requests"] += int(present.sum())
    rec["wavefronts"] += int(np.maximum(waves[: present.size][present], ideal[present]).sum())
    rec["ideal"] += int(ideal[present].sum())
    rec["max_ways"] = max(rec["max_ways"], int(waves.max()) if waves.size else 0)


def _check_shared(st, op, sel, seg, size, write, synced=False):
    """Uninitialised reads, and races: accesses to one word by two warps of a block between barriers.
    `synced` accesses (volatile, atomic, acquire/release) signal on purpose: they update the shadow
    state but are not reported as races."""
    if not st.check:
        return
    t = sel[seg.pos]
    blk = st.blk[t]
    nb = size
    byte0 = seg.off
    if not write:
        if nb == 1:
            init = st.sh_init[byte0]
        else:
            init = st.sh_init[byte0[:, None] + np.arange(nb)].all(axis=1)
        if not init.all():
            i = int(np.flatnonzero(~init)[0])
            st.launch.warn(("uninit", op.pc),
                           f"read of uninitialised shared memory: {op.where()} by {_who(st, t[i])} reads "
                           f"shared offset {int(byte0[i] % st.Sp)} before any thread of its block wrote it")
    nwords = max(1, nb // 4)
    words_per_blk = st.Sp // 4
    word = byte0 // 4
    if nwords > 1:
        word = (word[:, None] + np.arange(nwords)).ravel()
        t = np.repeat(t, nwords)
        blk = np.repeat(blk, nwords)
    del words_per_blk
    my_ep = st.epoch[blk]
    my_w = (st.ltid[t] // 32).astype(np.int32)
    w_ep = st.sh_wep[word]
    w_w = st.sh_wwarp[word]
    conflict = (w_ep == my_ep) & (w_w != my_w) & (w_w >= 0)
    if write:
        r_ep, r_w = st.sh_rep[word], st.sh_rwarp[word]
        conflict |= (r_ep == my_ep) & (r_w != my_w) & (r_w != -1)
        if word.size > 1:  # two warps writing one word in the same instruction
            order = np.argsort(word, kind="stable")
            ws, mw = word[order], my_w[order]
            dup = (ws[1:] == ws[:-1]) & (mw[1:] != mw[:-1])
            if dup.any():
                conflict[order[1:][dup]] = True
    if conflict.any() and not synced:
        i = int(np.flatnonzero(conflict)[0])
        other_pc = int(st.sh_wpc[word[i]])
        other = (f"written by {st.prog.code[other_pc].where()}" if other_pc >= 0 and w_ep[i] == my_ep[i]
                 else "read by another warp")
        kind = "write" if write else "read"
        st.launch.warn(("race", op.pc),
                       f"shared-memory race: {op.where()} by {_who(st, t[i])} {kind}s shared offset "
                       f"{int(word[i] * 4 % st.Sp)}, which another warp of its block accessed since the last "
                       f"__syncthreads() ({other}); put a barrier between them")
    if write:
        st.sh_wep[word] = my_ep
        st.sh_wwarp[word] = my_w
        st.sh_wpc[word] = op.pc
        if nb == 1:
            st.sh_init[byte0] = True
        else:
            st.sh_init[(byte0[:, None] + np.arange(nb)).ravel()] = True
    else:
        r_ep, r_w = st.sh_rep[word], st.sh_rwarp[word]
        st.sh_rwarp[word] = np.where((r_ep == my_ep) & (r_w != my_w) & (r_w != -1), -2, my_w)
        st.sh_rep[word] = my_ep


# ---- ld / st ------------------------------------------------------------------------------------

def _elem(t):
    if t in ("f16", "bf16"):
        return "b16"
    return t


SYNCED = {"volatile", "relaxed", "acquire", "release", "acq_rel"}


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

    def fn(st, sel):
        sel = st.idx(sel)
        segs = resolve(st, op, sel, addr(st, sel), space, size, False)
        out = np.empty((sel.size, nvec), dt)
        for s in segs:
            if s.kind == "shared":
                _check_shared(st, op, sel, s, size, False, synced)
                _stats_shared(st, op, sel, s, size)
            elif s.kind == "global":
                _stats_global(st, op, sel, s, size)
            view = s.arr.view(dt)
            idx = s.off // dt.itemsize
            out[s.pos] = view[idx[:, None] + np.arange(nvec)] if nvec > 1 else view[idx][:, None]
        for i, w in enumerate(ws):
            w(st, sel, out[:, i])
    op.fn = fn
    return op


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

    def fn(st, sel):
        sel = st.idx(sel)
        segs = resolve(st, op, sel, addr(st, sel), space, size, True)
        vals = np.empty((sel.size, nvec), dt)
        for i, r in enumerate(rs):
            vals[:, i] = r(st, sel)
        for s in segs:
            if s.kind == "shared":
                _check_shared(st, op, sel, s, size, True, synced)
                _stats_shared(st, op, sel, s, size)
            elif s.kind == "global":
                _stats_global(st, op, sel, s, size)
            elif s.kind == "param":
                raise Unsupported("st.param to a kernel parameter")
            view = s.arr.view(dt)
            idx = s.off // dt.itemsize
            if nvec > 1:
                view[idx[:, None] + np.arange(nvec)] = vals[s.pos]
            else:
                view[idx] = vals[s.pos, 0]
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
            raise Unsupported(f"atom .{opname}.{t}")

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
    raise Unsupported(f"atom .{opname}")


def build_atom(prog, inst):
    parts = inst.parts
    is_red = parts[0] == "red"
    space = _space(parts)
    t = parts[-1]
    opname = next(p for p in parts[1:-1] if p in ("add", "min", "max", "and", "or", "xor", "exch", "cas",
                                                  "inc", "dec"))
    if any(p.startswith("v") and p[1:].isdigit() for p in parts):
        raise Unsupported(f"{inst.opcode} (vector atomics)")
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

def build_cp(prog, inst):
    parts = inst.parts
    if parts[1] != "async":
        raise Unsupported(inst.opcode)
    if len(parts) > 2 and parts[2] == "commit_group":
        def fn(st, sel):
            st.cp_state().commit(st.idx(sel))
        return Op(NORMAL, fn, inst)
    if len(parts) > 2 and parts[2] in ("wait_group", "wait_all"):
        keep = int(inst.operands[0], 0) if parts[2] == "wait_group" else None

        def fn(st, sel):
            st.cp_state().wait(st, st.idx(sel), keep)
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

    def fn(st, sel):
        sel = st.idx(sel)
        n = np.full(sel.size, cp_size, np.int64)
        if src_size is not None:
            n = np.minimum(np.broadcast_to(np.asarray(src_size(st, sel)).astype(np.int64), sel.shape), cp_size)
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
                    raise EmulatorFault(f"out-of-bounds cp.async source: {op.where()}")
                vals = s.arr[np.minimum(s.off[:, None] + cols, s.arr.size - 1)]
                data[rows] = np.where(ok, vals, 0)
        segs = resolve(st, op, sel, np.asarray(dst(st, sel)), "shared", cp_size, True)
        st.cp_state().issue(st, op, sel, segs[0].off, data)
    op.fn = fn
    return op


class CpAsync:
    """Copies issued by cp.async, held until the thread's cp.async.wait_group retires their group."""

    def __init__(self, n):
        self.group = np.zeros(n, np.int64)   # committed groups per thread
        self.pending = []                     # (op, threads, group ids, shared byte offsets, data)

    def issue(self, st, op, sel, off, data):
        self.pending.append((op, sel, self.group[sel].copy(), off, data))

    def commit(self, sel):
        self.group[sel] += 1

    def wait(self, st, sel, keep):
        mark = np.zeros(st.n, bool)
        mark[sel] = True
        still = []
        for op, thr, grp, off, data in self.pending:
            mine = mark[thr]
            if keep is None:
                done = mine
            else:
                done = mine & (grp < self.group[thr] - keep)
            if done.any():
                o = off[done]
                seg = Seg(np.flatnonzero(done), st.shared, o, "shared")
                _check_shared(st, op, thr, seg, data.shape[1], True)
                _stats_shared(st, op, thr, seg, data.shape[1])
                st.shared[(o[:, None] + np.arange(data.shape[1])).ravel()] = data[done].ravel()
            if (~done).any():
                nd = ~done
                still.append((op, thr[nd], grp[nd], off[nd], data[nd]))
        self.pending = still


# ---- ldmatrix / stmatrix / mma ------------------------------------------------------------------

def _full_warps(st, op, sel):
    if sel.size % 32 or (st.lane[sel] != np.tile(np.arange(32, dtype=np.uint32), sel.size // 32)).any():
        raise EmulatorFault(f"{op.where()} is a warp-collective .aligned instruction: all 32 lanes of the "
                            f"warp must execute it together")


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
        _full_warps(st, op, sel)
        nw = sel.size // 32
        a = np.asarray(addr(st, sel)).astype(np.uint64)
        a = np.broadcast_to(a, sel.shape).reshape(nw, 32)
        users = a[:, : 8 * num].ravel()
        usel = sel.reshape(nw, 32)[:, : 8 * num].ravel()
        segs = resolve(st, op, usel, users, space or "shared", 16, False)
        rows = np.empty((usel.size, 8), np.uint16)
        for s in segs:
            if s.kind == "shared":
                _check_shared(st, op, usel, s, 16, False)
                _stats_shared(st, op, usel, s, 16)
            rows[s.pos] = s.arr.view(np.uint16)[(s.off // 2)[:, None] + np.arange(8)]
        m = rows.reshape(nw, num, 8, 8)            # [warp, matrix, row, col]
        lane = np.arange(32)
        r, c = lane // 4, 2 * (lane % 4)
        for i in range(num):
            mi = m[:, i]
            if trans:
                lo, hi = mi[:, c, r], mi[:, c + 1, r]
            else:
                lo, hi = mi[:, r, c], mi[:, r, c + 1]
            ws[i](st, sel, (lo.astype(np.uint32) | (hi.astype(np.uint32) << 16)).ravel())

    op.fn = fn
    op.ready = _collective_ready
    return op


def build_stmatrix(prog, inst):
    raise Unsupported(inst.opcode)


def _collective_ready(st, sel):
    present = st.warp_present(sel)
    need = st.warp_exists(sel) & ~st.exited_mask(sel)
    ok = (need & ~present) == 0
    if ok.all():
        return sel, None
    return sel[ok], sel[~ok]


def build_mma(prog, inst):
    from grader.emulator import values as V
    parts = inst.parts
    shape = parts[3] if parts[1] == "sync" else None
    if shape not in ("m16n8k16", "m16n8k8", "m16n8k32") or "row" not in parts or "col" not in parts:
        raise Unsupported(inst.opcode)
    dtype_d, dtype_a, dtype_b, dtype_c = parts[-4:]
    fp8 = shape == "m16n8k32" and dtype_a in ("e4m3", "e5m2") and dtype_b in ("e4m3", "e5m2")
    if not fp8 and (dtype_a not in ("f16", "bf16") or dtype_a != dtype_b or shape == "m16n8k32"):
        raise Unsupported(f"{inst.opcode} (f16/bf16 with k8/k16, or e4m3/e5m2 with k32)")
    if dtype_d != "f32" or dtype_c != "f32":
        raise Unsupported(f"{inst.opcode} (only f32 accumulate)")
    k = int(shape.split("k")[1])
    vec = [[x.strip() for x in o.strip("{}").split(",")] for o in inst.operands]
    dw = [writer(prog, x) for x in vec[0]]
    ar = [reader(prog, x, "b32") for x in vec[1]]
    br = [reader(prog, x, "b32") for x in vec[2]]
    cr = [reader(prog, x, "f32") for x in vec[3]]
    op = Op(WSYNC, None, inst)

    def halves(x):
        x = np.asarray(x, np.uint32)
        lo, hi = (x & 0xFFFF).astype(np.uint16), (x >> 16).astype(np.uint16)
        if dtype_a == "bf16":
            return V.bf16_bits_to_f32(lo).astype(np.float64), V.bf16_bits_to_f32(hi).astype(np.float64)
        return lo.view(np.float16).astype(np.float64), hi.view(np.float16).astype(np.float64)

    def quarters(x, dtype):  # the four FP8 values of a b32, lowest byte first
        x = np.asarray(x, np.uint32)
        return [V.fp8_bits_to_f64((x >> (8 * j)) & 0xFF, dtype) for j in range(4)]

    lane = np.arange(32)
    g, tig = lane // 4, lane % 4
    per = 4 if fp8 else 2  # values per register, along k
    coords = [(0, 0), (8, 0), (0, k // 2), (8, k // 2)]  # a0..a3: (row offset, k offset)

    def fn(st, sel):
        _full_warps(st, op, sel)
        nw = sel.size // 32
        A = np.zeros((nw, 16, k))
        B = np.zeros((nw, k, 8))
        C = np.zeros((nw, 16, 8))
        regs = lambda f: np.broadcast_to(f(st, sel), sel.shape).reshape(nw, 32)
        unpack = (lambda x, t: quarters(x, t)) if fp8 else (lambda x, t: halves(x))
        # A: a0 (g, per*t), a1 (g+8, per*t), a2 (g, per*t + k/2), a3 (g+8, per*t + k/2); each register
        # holds `per` consecutive k; B: b_i holds k = per*t + (k/2)*i ... +per-1 of column g
        for (ro, co), f in zip(coords, ar):
            for j, v in enumerate(unpack(regs(f), dtype_a)):
                A[:, g + ro, per * tig + co + j] = v
        for i, f in enumerate(br):
            for j, v in enumerate(unpack(regs(f), dtype_b)):
                B[:, per * tig + (k // 2) * i + j, g] = v
        cvals = [np.broadcast_to(np.asarray(f(st, sel), np.float64), sel.shape).reshape(nw, 32) for f in cr]
        for i, cv in enumerate(cvals):
            C[:, g + 8 * (i // 2), 2 * tig + (i % 2)] = cv
        D = np.einsum("wik,wkj->wij", A, B) + C
        for i, w in enumerate(dw):
            w(st, sel, V.to_f32(D[:, g + 8 * (i // 2), 2 * tig + (i % 2)].ravel()))
    op.fn = fn
    op.ready = _collective_ready
    return op


# ---- calls --------------------------------------------------------------------------------------

_FMT = re.compile(r"%([-+ #0]*)(\d+|\*)?(?:\.(\d+|\*))?(hh|h|ll|l|z|j|t)?([diouxXcsfFeEgGaAp%])")


def build_call(prog, inst):
    ops = inst.operands
    # call{.uni} (ret), func, (params)  |  call{.uni} func, (params)
    names = [o.strip() for o in ops]
    func = next(o for o in names if not o.startswith("("))
    params = [o.strip("() ") for o in names[names.index(func) + 1:]]
    params = [p for q in params for p in q.split(",") if p.strip()]
    if func != "vprintf":
        raise Unsupported(f"call to {func} (a function NVRTC did not inline; mark it __forceinline__)")
    fmt_param, args_param = (prog.symbol(p.strip()) for p in params[:2])
    ret = names[0].strip("()") if names[0].startswith("(") else None
    ret_addr = prog.symbol(ret) if ret else None
    op = Op(NORMAL, None, inst)

    def fn(st, sel):
        sel = st.idx(sel)
        fmt_ptr = st.cparam.view(np.uint64)[(sel * st.Pp + fmt_param - st.prog.call_param_base) // 8]
        arg_ptr = st.cparam.view(np.uint64)[(sel * st.Pp + args_param - st.prog.call_param_base) // 8]
        for i, t in enumerate(sel):
            st.launch.printed.append(_printf(st, op, int(t), int(fmt_ptr[i]), int(arg_ptr[i])))
        if ret_addr is not None:
            st.cparam.view(np.uint32)[(sel * st.Pp + ret_addr - st.prog.call_param_base) // 4] = 0
    op.fn = fn
    return op


def _read_bytes(st, op, t, addr, n):
    segs = resolve(st, op, np.array([t]), np.array([addr], np.uint64), None, 1, False)
    s = segs[0]
    return bytes(s.arr[int(s.off[0]):int(s.off[0]) + n])


def _cstring(st, op, t, addr):
    out = b""
    while True:
        chunk = _read_bytes(st, op, t, addr + len(out), 1)
        if chunk == b"\0" or len(out) > 4096:
            return out.decode(errors="replace")
        out += chunk


def _printf(st, op, t, fmt_addr, args_addr):
    fmt = _cstring(st, op, t, fmt_addr)
    out, pos, off = [], 0, 0
    for m in _FMT.finditer(fmt):
        out.append(fmt[pos:m.start()])
        pos = m.end()
        flags, width, prec, length, conv = m.groups()
        if conv == "%":
            out.append("%")
            continue
        if conv in "fFeEgGaA":
            size, kind = 8, "d"
        elif conv in "sp":
            size, kind = 8, "Q"
        elif length in ("ll", "l", "z", "j", "t"):
            size, kind = 8, "q" if conv in "di" else "Q"
        else:
            size, kind = 4, "i" if conv in "dic" else "I"
        off = -(-off // size) * size
        raw = _read_bytes(st, op, t, args_addr + off, size)
        off += size
        import struct
        v = struct.unpack("<" + kind, raw)[0]
        if conv == "s":
            out.append(_cstring(st, op, t, v))
            continue
        if conv == "p":
            out.append(f"0x{v:x}")
            continue
        spec = "%" + (flags or "") + (width or "") + (f".{prec}" if prec else "") + \
            {"u": "d", "i": "d"}.get(conv, conv)
        if conv == "c":
            v = chr(v & 0xFF)
        out.append(spec % v)
    out.append(fmt[pos:])
    return "".join(out)
