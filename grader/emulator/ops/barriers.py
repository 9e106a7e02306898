"""Barriers: bar.sync / barrier.sync (with a thread count), named barriers (bar.sync / bar.arrive id,
count: they meet per block and id), bar.red.popc/and/or, bar.warp.sync."""
from __future__ import annotations

import numpy as np

from grader.emulator.machine import BAR, Op
from grader.emulator.operands import Unsupported, reader, writer
from grader.emulator.ops.table import builder, normal
from grader.emulator.ops.warp import warp_sync_op
from grader.messages import say


@builder("bar", "barrier")
def build_bar(prog, inst):
    parts = inst.parts
    if parts[1] == "warp":  # bar.warp.sync membermask
        return warp_sync_op(prog, inst, reader(prog, inst.operands[0], "b32"), lambda st, sel: None)
    kind = parts[1] if len(parts) > 1 else "sync"
    if kind in ("aligned",):
        kind = "sync"
    if kind == "arrive" and len(inst.operands) == 2:
        return _bar_arrive(prog, inst)
    if kind not in ("sync", "red") and not (parts[0] == "barrier" and "sync" in parts):
        raise Unsupported(say("emu.unsup.only", opcode=inst.opcode,
                                  only="bar.sync / barrier.sync / bar.red / bar.arrive id, count"))
    if len(inst.operands) > 1 and kind == "sync":
        count = reader(prog, inst.operands[1], "u32")
    else:
        count = None
    red = None
    if kind == "red":
        redop = parts[2]
        d = writer(prog, inst.operands[0])
        p = reader(prog, inst.operands[-1], "pred")
        red = (redop, d, p)

    # a named barrier (bar.sync id, count): threads meet per (block, id), 16 barriers per block
    ident = reader(prog, inst.operands[0], "u32") if count is not None else None

    def ready(st, sel):
        blk = st.blk[sel]
        key = blk.astype(np.int64)
        if ident is not None:
            key = _named_key(st, sel, ident)
        arrived = np.bincount(key, minlength=st.nblk * 16 if ident is not None else st.nblk)
        if ident is not None:
            arrived = arrived + _named_credits(st)  # threads that passed it with bar.arrive
        # every thread of the block must arrive: one that exited never will (undefined in CUDA,
        # reported here as a barrier reached by part of the block)
        need = st.bthreads if count is None else int(np.asarray(count(st, sel[:1])).ravel()[0])
        done = arrived[key] >= need
        return sel[done], sel[~done]

    def fn(st, sel):
        blocks = np.unique(st.blk[sel])
        st.barrier(blocks)
        if st.order is not None:  # what each thread observed of async copies, shared at the barrier
            st.order.sync(sel, _named_key(st, sel, ident) if ident is not None else st.blk[sel], ident is not None)
        if ident is not None:  # the arrivals this completion used up
            key = _named_key(st, sel, ident)
            need = int(np.asarray(count(st, sel[:1])).ravel()[0])
            keys, here = np.unique(key, return_counts=True)
            credits = _named_credits(st)
            credits[keys] = np.maximum(credits[keys] - (need - here), 0)
        if red is not None:
            redop, d, p = red
            pv = np.asarray(p(st, sel), bool)
            blk = st.blk[sel]
            cnt = np.bincount(blk, weights=pv, minlength=st.nblk)
            tot = np.bincount(blk, minlength=st.nblk)
            if redop == "popc":
                d(st, sel, cnt[blk].astype(np.uint32))
            elif redop == "and":
                d(st, sel, cnt[blk] == tot[blk])
            else:
                d(st, sel, cnt[blk] > 0)
    op = Op(BAR, fn, inst, ready=ready)
    if ident is not None:
        def stuck(st, op, sel):
            t = int(sel[0])
            keys = _named_key(st, sel, ident)
            bar = int(keys[0]) % 16
            need = int(np.asarray(count(st, sel[:1])).ravel()[0])
            credits = int(_named_credits(st)[keys[0]])
            here = int(np.count_nonzero(keys == keys[0]))
            return say("emu.named_stuck", bar=bar, where=op.where(), need=need, here=here, who=st.who(t),
                       credits=credits)
        op.stuck = stuck
    return op


def _named_key(st, sel, ident) -> np.ndarray:
    """Per thread of `sel`: block * 16 + the named barrier's id (`ident` reads it)."""
    ids = np.broadcast_to(np.asarray(ident(st, sel)).astype(np.int64) % 16, sel.shape)
    return st.blk[sel].astype(np.int64) * 16 + ids


def _named_credits(st) -> np.ndarray:
    """Per (block, barrier id): threads that arrived with bar.arrive and were not yet used by a bar.sync."""
    if getattr(st, "named_credits", None) is None:
        st.named_credits = np.zeros(st.nblk * 16, np.int64)
    return st.named_credits


def _bar_arrive(prog, inst):
    """bar.arrive id, count: count this thread in named barrier `id` without waiting (the producer side of
    a producer/consumer pair; bar.sync id, count on the other side completes once `count` threads came)."""
    ident = reader(prog, inst.operands[0], "u32")

    def fn(st, sel):
        keys = _named_key(st, st.idx(sel), ident)
        np.add.at(_named_credits(st), keys, 1)
        if st.order is not None:
            st.order.arrive_named(st.idx(sel), keys)
    return normal(fn, inst)
