"""Warp-level instructions: shfl.sync, vote.sync, activemask, match.sync, redux.sync; and when the
warp-synchronous instructions of other modules (bar.warp.sync, ldmatrix, mma.sync) may proceed."""
from __future__ import annotations

import numpy as np

from grader.emulator.machine import WSYNC, EmulatorFault, Op
from grader.emulator.operands import Unsupported, immediate, np_type, reader, writer
from grader.emulator.ops.table import builder, normal
from grader.messages import say


def warp_sync_op(prog, inst, mask_reader, fn):
    def ready(st, sel):
        if sel.size == st.n or st.whole_warps(sel):  # every lane of every warp is here
            return sel, None
        need = np.asarray(mask_reader(st, sel)).astype(np.uint32) & st.warp_exists(sel)
        present = st.warp_present(sel)
        ok = (need & ~present) == 0
        if ok.all():
            return sel, None
        # lanes that exited count as arrived (they never will)
        ex = st.exited_mask(sel)
        ok = (need & ~(present | ex)) == 0
        return sel[ok], sel[~ok]
    return Op(WSYNC, fn, inst, ready=ready)


def full_warps(st, op, sel):
    if not st.whole_warps(sel):
        raise EmulatorFault(say("emu.aligned", where=op.where()))


def register_sel(st, sel):
    """sel for reading registers: None (no gather) when every thread of the chunk executes."""
    return None if sel.size == st.n else sel


def collective_ready(st, sel):
    if sel.size == st.n or st.whole_warps(sel):  # every thread of the chunk, or of its warps, is here
        return sel, None
    present = st.warp_present(sel)
    need = st.warp_exists(sel) & ~st.exited_mask(sel)
    ok = (need & ~present) == 0
    if ok.all():
        return sel, None
    return sel[ok], sel[~ok]


@builder("shfl")
def build_shfl(prog, inst):
    parts = inst.parts
    if "sync" not in parts:
        raise Unsupported(say("emu.unsup.only", opcode=inst.opcode, only="shfl.sync"))
    mode = parts[2]
    dests = inst.operands[0].split("|")
    d = writer(prog, dests[0])
    dp = writer(prog, dests[1]) if len(dests) > 1 else None
    src_slot = inst.operands[1]
    a_full = reader(prog, src_slot, "b32")
    b = reader(prog, inst.operands[2], "u32")
    c = reader(prog, inst.operands[3], "u32")
    mask = reader(prog, inst.operands[4], "b32")
    from grader.emulator.machine import EmulatorFault
    # constant lane offset and clamp: each lane's source, once, for whole warps all shuffling
    bi, ci = immediate(inst.operands[2], "u32"), immediate(inst.operands[3], "u32")
    if bi is not None and ci is not None:
        lane32 = np.arange(32, dtype=np.int64)
        j32, p32 = _shfl_source(mode, lane32, np.int64(bi) & 31, np.int64(ci))
        delta32, sources = j32 - lane32, {}  # per number of threads: each one's source minus itself

    def fn(st, sel):
        if bi is not None and ci is not None and st.whole_warps(sel):
            m = sel.size
            if m not in sources:
                sources[m] = np.tile(delta32, m // 32)
            rsel = None if m == st.n else sel
            vals = a_full(st, None)
            d(st, rsel, np.asarray(vals)[sel + sources[m]] if np.ndim(vals) else vals)
            if dp is not None:
                dp(st, rsel, np.tile(p32, m // 32))
            return
        lane = st.lane[sel].astype(np.int64)
        j, pval = _shfl_source(mode, lane, np.asarray(b(st, sel)).astype(np.int64) & 31,
                               np.asarray(c(st, sel)).astype(np.int64))
        src = sel - lane + j
        st.mark[sel] = True
        ok = (src < st.n) & (src >= 0)
        srcc = np.where(ok, src, sel)
        ok &= st.mark[srcc] & (st.wkey[srcc] == st.wkey[sel])
        st.mark[sel] = False
        if not ok.all():
            bad = int(np.flatnonzero(~ok)[0])
            t = int(sel[bad])
            raise EmulatorFault(say("emu.shuffle_lane", text=inst.text, loc=inst.loc, who=st.who(t), lane=int(j[bad])))
        vals = a_full(st, None)
        d(st, sel, np.asarray(vals)[srcc] if np.ndim(vals) else vals)
        if dp is not None:
            dp(st, sel, pval)
    return warp_sync_op(prog, inst, mask, fn)


def _shfl_source(mode, lane, bv, cv):
    """(the lane each lane reads, whether it is in range: the predicate) of shfl.sync `mode` with
    b = bv (lane offset, mask or index) and c = cv (clamp value and segment mask)."""
    segmask = (cv >> 8) & 31
    cval = cv & 31
    maxlane = (lane & segmask) | (cval & ~segmask)
    minlane = lane & segmask
    if mode == "up":
        j = lane - bv
        pval = j >= maxlane
    elif mode == "down":
        j = lane + bv
        pval = j <= maxlane
    elif mode == "bfly":
        j = lane ^ bv
        pval = j <= maxlane
    else:
        j = minlane | (bv & ~segmask)
        pval = j <= maxlane
    return np.where(pval, j, lane), pval


@builder("vote")
def build_vote(prog, inst):
    parts = inst.parts
    if "sync" not in parts:
        raise Unsupported(say("emu.unsup.only", opcode=inst.opcode, only="vote.sync"))
    mode = parts[2]
    d = writer(prog, inst.operands[0])
    p = reader(prog, inst.operands[1], "pred")
    mask = reader(prog, inst.operands[2], "b32")

    def fn(st, sel):
        pv = np.asarray(p(st, sel), bool)
        pv = np.broadcast_to(pv, sel.shape)
        m = np.asarray(mask(st, sel)).astype(np.uint32)
        ballot = st.warp_present(sel[pv]) if pv.any() else None
        # per-thread ballot over the threads of its warp that voted true
        bits = np.zeros(sel.size, np.uint32)
        if ballot is not None:
            w_true = st.wkey[sel[pv]]
            w_all = st.wkey[sel]
            pos = np.searchsorted(w_true, w_all)
            posc = np.minimum(pos, w_true.size - 1)
            bits = np.where(w_true[posc] == w_all, ballot[posc], 0).astype(np.uint32)
        bits &= m
        if mode == "ballot":
            d(st, sel, bits)
        elif mode == "all":
            d(st, sel, (bits & m & st.warp_present(sel)) == (m & st.warp_present(sel)))
        elif mode == "any":
            d(st, sel, bits != 0)
        elif mode == "uni":
            pres = m & st.warp_present(sel)
            d(st, sel, (bits == 0) | (bits == pres))
        else:
            raise Unsupported(inst.opcode)
    return warp_sync_op(prog, inst, mask, fn)


@builder("activemask")
def build_activemask(prog, inst):
    d = writer(prog, inst.operands[0])
    return normal(lambda st, sel: d(st, sel, st.warp_present(st.idx(sel))), inst)


@builder("match")
def build_match(prog, inst):
    parts = inst.parts
    mode, t = parts[1], parts[-1]
    dests = inst.operands[0].split("|")
    d = writer(prog, dests[0])
    dp = writer(prog, dests[1]) if len(dests) > 1 else None
    a = reader(prog, inst.operands[1], t)
    mask = reader(prog, inst.operands[2], "b32")

    def fn(st, sel):
        v = np.broadcast_to(np.asarray(a(st, sel)), sel.shape)
        m = np.asarray(mask(st, sel)).astype(np.uint32)
        w = st.wkey[sel]
        bit = (np.uint32(1) << st.lane[sel]).astype(np.uint32)
        key = np.stack([w.astype(np.uint64), v.astype(np.uint64)], 1)
        _, inv = np.unique(key, axis=0, return_inverse=True)
        inv = inv.ravel()
        grp = np.zeros(inv.max() + 1, np.uint32)
        np.bitwise_or.at(grp, inv, bit)
        same = grp[inv] & m
        if mode == "any":
            d(st, sel, same)
        else:
            present = st.warp_present(sel) & m
            allsame = same == present
            d(st, sel, np.where(allsame, present, np.uint32(0)))
            if dp is not None:
                dp(st, sel, allsame)
    return warp_sync_op(prog, inst, mask, fn)


@builder("redux")
def build_redux(prog, inst):
    parts = inst.parts
    if "sync" not in parts:
        raise Unsupported(inst.opcode)
    redop, t = parts[2], parts[-1]
    if t not in ("u32", "s32", "b32"):
        raise Unsupported(inst.opcode)
    d = writer(prog, inst.operands[0])
    a = reader(prog, inst.operands[1], t)
    mask = reader(prog, inst.operands[2], "b32")
    ufunc = {"add": np.add, "min": np.minimum, "max": np.maximum, "and": np.bitwise_and,
             "or": np.bitwise_or, "xor": np.bitwise_xor}[redop]
    dt = np_type(t)

    def fn(st, sel):
        v = np.broadcast_to(np.asarray(a(st, sel), dt), sel.shape)
        w = st.wkey[sel]
        starts = np.r_[0, np.flatnonzero(np.diff(w)) + 1]
        acc = v.astype(np.int64) if redop == "add" else v
        seg = ufunc.reduceat(acc, starts)
        d(st, sel, np.repeat(seg, np.diff(np.r_[starts, sel.size])).astype(dt))
    return warp_sync_op(prog, inst, mask, fn)
