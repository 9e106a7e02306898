"""Hopper's asynchronous copies: mbarrier, cp.async.bulk (1-D and tensor, with tensor maps), setmaxnreg.

- An mbarrier lives at a shared-memory address; its state (expected arrivals, pending arrivals,
  transaction count, completed phases) is kept here per block, keyed by that address.
  A phase completes when its pending arrivals and its transaction count are both zero.
- A bulk copy into shared memory lands at once and completes its bytes on the mbarrier; who may read
  them, and when, is `ordering.py`'s: a thread that has observed that phase (its own try_wait/test_wait,
  or another's through a barrier).
- `mbarrier.try_wait` blocks until the phase completes (allowed by the PTX ISA: it returns true);
  threads still waiting when nothing else can run are a deadlock, reported as
  "mbarrier never completed: expected N bytes, got M"; a kernel that ends with transaction bytes still
  expected on an mbarrier is named too (`BulkState.finish`).
- Tensor maps: the 128-byte parameter `grader.tensor_map` encodes for the emulator (`tensor_maps.py`);
  boxes are zero-filled out of bounds, 32/64/128-byte swizzles XOR the 16-byte chunk index (address
  bits 4-6) with the 128-byte row index (bits 7-9) of the absolute shared address, as the hardware does.
- Bulk stores (shared -> global) write at once, but their source bytes count as being read until the
  issuing thread's `cp.async.bulk.wait_group.read N` (or `wait_group N`) has retired their group
  (`commit_group` closes one): a shared-memory write to them before that is an error naming the write
  and the store (`BulkState.check_write`, called by `ordering` for every checked shared-memory write).
"""
from __future__ import annotations

import numpy as np

from grader.emulator import memory, ordering, tensor_maps
from grader.emulator.machine import NORMAL, WSYNC, EmulatorFault, Op
from grader.emulator.operands import Unsupported, address, reader, writer
from grader.emulator.ops.control import build_nop
from grader.emulator.ops.memory_access import build_cp_async, resolve
from grader.emulator.ops.table import builder
from grader.messages import say


class Barrier:
    __slots__ = ("count", "pending", "tx", "phase", "expected", "got", "init_pc", "col", "rel_cur", "rel_done",
                 "tx_pc")

    def __init__(self, count, pc, col):
        self.count = self.pending = count
        self.tx = self.expected = self.got = 0
        self.phase = 0  # completed phases
        self.init_pc = pc
        self.col = col  # its column in ordering.Ordering.K
        self.rel_cur = self.rel_done = None  # what the arrivals of the current / completed phases released
        self.tx_pc = -1  # the last expect_tx on it

    def settle(self):
        if self.pending == 0 and self.tx == 0:
            self.phase += 1
            self.pending = self.count
            self.expected = self.got = 0
            if self.rel_cur is not None:
                r = self.rel_done
                self.rel_done = self.rel_cur if r is None else np.maximum(
                    self.rel_cur, np.pad(r, (0, max(0, self.rel_cur.size - r.size)))[:self.rel_cur.size])
                self.rel_cur = None


class BulkState:
    """Per chunk: the mbarriers (by absolute offset in `st.shared`) and the bulk stores still reading."""

    def __init__(self, st):
        self.bars: dict[int, Barrier] = {}
        self.reading = np.full(st.shared.size, -1, np.int32)  # per shared byte: the bulk store reading it
        self.stores: list = []  # store id -> (thread, op)
        self.open: dict[int, list[int]] = {}  # thread -> its stores since its last commit_group
        self.groups: dict[int, list[list[int]]] = {}  # thread -> its committed groups, oldest first

    def store(self, thread: int, op, offs) -> None:
        sid = len(self.stores)
        self.stores.append((thread, op))
        self.reading[offs] = sid
        self.open.setdefault(thread, []).append(sid)

    def commit(self, threads) -> None:
        for t in threads:
            self.groups.setdefault(int(t), []).append(self.open.pop(int(t), []))

    def wait_read(self, threads, pending: int) -> None:
        """Each thread's committed groups beyond the newest `pending` have read their bytes."""
        for t in threads:
            groups = self.groups.get(int(t), [])
            while len(groups) > pending:
                done = groups.pop(0)
                if done:
                    hit = np.isin(self.reading, done)
                    self.reading[hit] = -1

    def check_write(self, st, op, t, byte0):
        hit = self.reading[byte0]
        if (hit >= 0).any():
            i = int(np.flatnonzero(hit >= 0)[0])
            thread, sop = self.stores[int(hit[i])]
            raise EmulatorFault(say("emu.tma_store_source", where=op.where(), who=st.who(int(t[i])),
                                    offset=int(byte0[i]) % st.Sp, store=sop.where(), storer=st.who(thread)))

    def finish(self, st) -> None:
        """At the end of the chunk: an mbarrier still expecting transaction bytes never got them."""
        for key, b in self.bars.items():
            if b.tx:
                where = st.prog.code[b.tx_pc].where() if b.tx_pc >= 0 else "expect_tx"
                block = say("emu.block", block=st.block_of(int(key // st.Sp * st.bthreads)))
                raise EmulatorFault(say("emu.tx_missing", offset=key % st.Sp, block=block,
                                        init=st.prog.code[b.init_pc].where(), expected=b.expected, phase=b.phase,
                                        where=where, got=b.got))


def bulk_state(st) -> BulkState:
    if getattr(st, "bulk", None) is None:
        st.bulk = BulkState(st)
    return st.bulk


def _shared_offsets(st, op, sel, addr_fn, rsel, size=8):
    """Absolute offsets in st.shared of shared::cta (or generic) addresses, checked."""
    a = np.asarray(addr_fn(st, rsel), np.uint64)
    a = np.broadcast_to(a, sel.shape).copy()
    gen = a >= np.uint64(memory.SHARED_WINDOW)
    a[gen] -= np.uint64(memory.SHARED_WINDOW)
    return resolve(st, op, sel, a, "shared", size, False)[0].off


def _bar(st, op, key, sel_t):
    b = bulk_state(st).bars.get(int(key))
    if b is None:
        raise EmulatorFault(say("emu.no_mbarrier", where=op.where(), who=st.who(int(sel_t)), offset=int(key) % st.Sp))
    return b


# ---- mbarrier -----------------------------------------------------------------------------------

@builder("mbarrier")
def build_mbarrier(prog, inst):
    parts = inst.parts
    kind = parts[1]
    ops = inst.operands
    if kind == "init":
        at, _ = address(prog, ops[0])
        count = reader(prog, ops[1], "u32")

        def fn(st, rsel):
            sel = st.idx(rsel)
            keys = _shared_offsets(st, op, sel, at, rsel)
            cnt = np.broadcast_to(np.asarray(count(st, rsel)), sel.shape)
            for k, c in zip(keys, cnt):
                if not 1 <= int(c) < 1 << 20:
                    raise EmulatorFault(say("emu.mbarrier_count", where=op.where(), count=int(c)))
                o = ordering.of(st)
                bulk_state(st).bars[int(k)] = Barrier(int(c), op.pc, o.column(k) if o is not None else 0)
        op = Op(NORMAL, fn, inst)
        return op
    if kind == "inval":
        at, _ = address(prog, ops[0])

        def fn(st, rsel):
            for k in _shared_offsets(st, op, st.idx(rsel), at, rsel):
                bulk_state(st).bars.pop(int(k), None)
        op = Op(NORMAL, fn, inst)
        return op
    if kind in ("arrive", "expect_tx", "arrive_drop"):
        return _arrive(prog, inst)
    if kind in ("try_wait", "test_wait"):
        return _wait(prog, inst)
    raise Unsupported(inst.opcode)


def _arrive(prog, inst):
    parts, ops = inst.parts, inst.operands
    tx_only = parts[1] == "expect_tx"
    with_tx = tx_only or "expect_tx" in parts
    drop = parts[1] == "arrive_drop"
    if "noComplete" in parts:
        raise Unsupported(inst.opcode)
    if tx_only:
        dest, at_text, rest = None, ops[0], ops[1:]
    else:
        dest = None if ops[0].strip() == "_" else writer(prog, ops[0], "b64")
        at_text, rest = ops[1], ops[2:]
    at, _ = address(prog, at_text)
    amount = reader(prog, rest[0], "u32") if rest else None  # tx bytes, or the arrival count

    def fn(st, rsel):
        sel = st.idx(rsel)
        keys = _shared_offsets(st, op, sel, at, rsel)
        n = np.broadcast_to(np.asarray(amount(st, rsel)) if amount else np.uint32(1), sel.shape)
        state = np.zeros(sel.size, np.uint64)
        for i, (k, v) in enumerate(zip(keys, n)):
            b = _bar(st, op, k, sel[i])
            state[i] = b.phase
            if with_tx:
                b.tx += int(v)
                b.expected += int(v)
                b.tx_pc = op.pc
            if not tx_only:
                if st.order is not None:
                    st.order.release(int(sel[i]), b)
                arrivals = 1 if with_tx or amount is None else int(v)
                if arrivals > b.pending:
                    raise EmulatorFault(say("emu.arrivals", where=op.where(), who=st.who(int(sel[i])), arrivals=arrivals,
                                            pending=b.pending, count=b.count))
                b.pending -= arrivals
                if drop:
                    b.count -= 1
                b.settle()
        if dest is not None:
            dest(st, rsel, state)
    op = Op(NORMAL, fn, inst)
    return op


def _wait(prog, inst):
    parts, ops = inst.parts, inst.operands
    parity = "parity" in parts
    blocking = parts[1] == "try_wait"
    d = writer(prog, ops[0], "pred")
    at, _ = address(prog, ops[1])
    token = reader(prog, ops[2], "u32" if parity else "b64")

    def complete(st, rsel):
        sel = st.idx(rsel)
        keys = _shared_offsets(st, op, sel, at, rsel)
        tok = np.broadcast_to(np.asarray(token(st, rsel)).astype(np.int64), sel.shape)
        phases = np.array([_bar(st, op, k, sel[i]).phase for i, k in enumerate(keys)], np.int64)
        # parity P: the phase of parity P completed when the current (incomplete) phase's parity is not P
        done = (phases & 1) != (tok & 1) if parity else phases != tok
        return keys, phases, done

    def fn(st, rsel):
        keys, phases, done = complete(st, rsel)
        if st.order is not None and done.any():
            sel = st.idx(rsel)
            bars = bulk_state(st).bars
            for k in set(keys[done].tolist()):
                st.order.observe(sel[done & (keys == k)], bars[k])
        d(st, rsel, done)

    if not blocking:
        return Op(NORMAL, fn, inst)

    def ready(st, sel):
        _, _, done = complete(st, sel)
        return sel[done], sel[~done]
    op = Op(WSYNC, fn, inst, ready=ready)
    op.stuck = never_completed
    return op


def never_completed(st, op, sel) -> str:
    """The deadlock message for threads stuck in mbarrier.try_wait."""
    at, _ = address(st.prog, op.inst.operands[1])
    key = int(_shared_offsets(st, op, sel[:1], at, sel[:1])[0])
    b = _bar(st, op, key, sel[0])
    why = []
    if b.tx:
        at = say("emu.at", loc=st.prog.code[b.tx_pc].inst.loc) if b.tx_pc >= 0 and st.prog.code[b.tx_pc].inst.loc else ""
        why.append(say("emu.tx_short", expected=b.expected, at=at, got=b.got))
    if b.pending:
        why.append(say("emu.arrivals_missing", pending=b.pending, count=b.count))
    return say("emu.mbarrier_stuck", where=op.where(), who=st.who(int(sel[0])), more=sel.size - 1, phase=b.phase,
               offset=key % st.Sp, why="; ".join(why))


# ---- setmaxnreg ---------------------------------------------------------------------------------

@builder("setmaxnreg")
def build_setmaxnreg(prog, inst):
    n = int(inst.operands[0], 0)
    if n % 8 or not 24 <= n <= 256:
        raise EmulatorFault(say("emu.setmaxnreg", text=inst.text, loc=inst.loc, count=n))
    return Op(NORMAL, lambda st, sel: None, inst)


@builder("fence")
def build_fence(prog, inst):
    """fence.proxy.async(.shared::cta): the thread's generic-proxy shared-memory stores so far become
    visible to the async proxy (`ordering`); other fences order nothing the emulator reorders."""
    parts = inst.parts
    if parts[1:3] != ["proxy", "async"] or len(parts) > 3 and not parts[3].startswith("shared"):
        return build_nop(prog, inst)

    def fn(st, sel):
        if st.order is not None:
            st.order.fence(st.idx(sel))
    return Op(NORMAL, fn, inst)


# ---- cp.async.bulk ------------------------------------------------------------------------------

@builder("cp")
def build_cp(prog, inst):
    """cp.async.bulk (1-D, tensor, commit / wait_group, prefetch); the other cp forms (cp.async) are
    memory_access's."""
    parts = inst.parts
    if len(parts) < 3 or parts[2] != "bulk":
        return build_cp_async(prog, inst)
    if len(parts) > 3 and parts[3] == "commit_group":
        return Op(NORMAL, lambda st, sel: bulk_state(st).commit(st.idx(sel)), inst)
    if len(parts) > 3 and parts[3] == "wait_group":  # .read or not: the stores' bytes were written at issue
        pending = reader(prog, inst.operands[0], "u32")

        def wait(st, sel):
            n = int(np.asarray(pending(st, sel)).ravel()[0])
            bulk_state(st).wait_read(st.idx(sel), n)
        return Op(NORMAL, wait, inst)
    if "prefetch" in parts:
        return Op(NORMAL, lambda st, sel: None, inst)
    tensor = len(parts) > 3 and parts[3] == "tensor"
    to_shared = parts[5 if tensor else 3].startswith("shared")
    if tensor:
        return _tensor(prog, inst, to_shared)
    if not to_shared or "mbarrier::complete_tx::bytes" not in parts:
        raise Unsupported(inst.opcode)
    return _bulk_1d(prog, inst)


def _land(st, op, sel_t, bar_key, shared_offs, data):
    """Write a copy's bytes at absolute shared offsets and complete them on its mbarrier."""
    b = _bar(st, op, bar_key, sel_t)
    if st.order is not None:
        st.order.land(op, int(sel_t), shared_offs, bar_key, b)
    st.shared[shared_offs] = data
    if st.check and st.S:
        st.sh_init[shared_offs] = True
        st.sh_w[np.unique(shared_offs // 4)] = -1
    b.tx -= data.size
    b.got += data.size
    b.settle()


def _bulk_1d(prog, inst):
    dst, _ = address(prog, inst.operands[0])
    src, _ = address(prog, inst.operands[1])
    size = reader(prog, inst.operands[2], "u32")
    bar, _ = address(prog, inst.operands[3])

    def fn(st, rsel):
        sel = st.idx(rsel)
        n = np.broadcast_to(np.asarray(size(st, rsel)), sel.shape)
        srcs = np.broadcast_to(np.asarray(src(st, rsel), np.uint64), sel.shape)
        dsts = _shared_offsets(st, op, sel, dst, rsel, 16)
        keys = _shared_offsets(st, op, sel, bar, rsel)
        for i in range(sel.size):
            nb = int(n[i])
            if nb % 16 or int(srcs[i]) % 16:
                raise EmulatorFault(say("emu.bulk_size", where=op.where(), size=nb))
            s = resolve(st, op, sel[i:i + 1], srcs[i:i + 1], "global", 1, False)[0]
            if int(s.off[0]) + nb > s.arr.size:
                raise EmulatorFault(say("emu.bulk_oob", where=op.where(), size=nb))
            resolve(st, op, sel[i:i + 1], np.uint64([int(dsts[i]) % st.Sp + nb - 16]), "shared", 16, True)
            _land(st, op, sel[i], keys[i], int(dsts[i]) + np.arange(nb),
                  s.arr[int(s.off[0]):int(s.off[0]) + nb].copy())
    op = Op(NORMAL, fn, inst)
    return op


def _swizzle(offs, mode):
    """Absolute shared byte offsets -> swizzled ones (mode: the swizzle span in bytes, 0 for none)."""
    if not mode:
        return offs
    mask = {32: 1, 64: 3, 128: 7}[mode]
    return offs ^ (((offs >> 7) & mask) << 4)


def _tensor(prog, inst, to_shared):

    rank = int(inst.parts[4][0])
    ops = inst.operands
    # [tensorMap, {c0, c1, ...}] — the operand list was split at commas, braces included
    text = ", ".join(ops)
    if to_shared:
        dst_text, rest = ops[0], text[len(ops[0]) + 2:]
    else:
        rest = text
    inner = rest[rest.index("[") + 1:rest.index("]")]
    tmap_text, coords_text = inner.split(",", 1)
    coords = [reader(prog, c.strip(" {}"), "s32") for c in coords_text.split(",")]
    tmap, _ = address(prog, f"[{tmap_text.strip()}]")
    after = [s.strip() for s in rest[rest.index("]") + 1:].split(",") if s.strip()]
    if to_shared:
        dst, _ = address(prog, dst_text)
        bar, _ = address(prog, after[0])
    else:
        src_sh, _ = address(prog, after[0])
    if len(coords) != rank:
        raise Unsupported(inst.opcode)

    def fn(st, rsel):
        sel = st.idx(rsel)
        maps = np.broadcast_to(np.asarray(tmap(st, rsel), np.uint64), sel.shape)
        cs = [np.broadcast_to(np.asarray(c(st, rsel)).astype(np.int64), sel.shape) for c in coords]
        sh = _shared_offsets(st, op, sel, dst if to_shared else src_sh, rsel, 16)
        keys = _shared_offsets(st, op, sel, bar, rsel) if to_shared else None
        for i in range(sel.size):
            raw = _map_bytes(st, op, sel[i:i + 1], maps[i:i + 1])
            try:
                m = tensor_maps.decode(raw)
            except ValueError as e:
                raise EmulatorFault(say("emu.tensor_map", where=op.where(), error=e)) from None
            if m.rank != rank:
                raise EmulatorFault(say("emu.map_rank", where=op.where(), rank=rank, map_rank=m.rank))
            start = [int(c[i]) for c in cs]
            gidx, inside = m.box_elements(start)  # element offsets into the tensor, and which are in bounds
            nbytes = gidx.size * m.elem
            base = int(sh[i])
            rel = base % st.Sp  # the block's own shared address: what the hardware's swizzle follows
            if rel % 128:
                raise EmulatorFault(say("emu.tma_align", where=op.where(), offset=rel))
            resolve(st, op, sel[i:i + 1], np.uint64([rel + nbytes - 16]), "shared", 16, True)
            offs = (base - rel) + _swizzle(rel + np.arange(nbytes, dtype=np.int64), m.swizzle)
            s = resolve(st, op, sel[i:i + 1], np.uint64([m.base]), "global", 1, False)[0]
            byte_idx = (gidx[:, None] * m.elem + np.arange(m.elem)).ravel() + int(s.off[0])
            ok = np.repeat(inside, m.elem)
            if (byte_idx[ok] >= s.arr.size).any():
                raise EmulatorFault(say("emu.map_outside", where=op.where()))
            if to_shared:
                data = np.where(ok, s.arr[np.where(ok, byte_idx, 0)], 0).astype(np.uint8)
                _land(st, op, sel[i], keys[i], offs, data)
            else:
                if st.order is not None:
                    st.order.async_read(op, sel[i:i + 1], offs[::16], offs[::4] >> 2, "the source of a TMA store")
                s.arr[byte_idx[ok]] = st.shared[offs[ok]]
                bulk_state(st).store(int(sel[i]), op, offs)
    op = Op(NORMAL, fn, inst)
    return op


def _map_bytes(st, op, sel, addr):
    """The 128 bytes of a tensor map: a kernel parameter (its param address) or in global memory."""
    a = int(addr[0])
    if a + 128 <= st.launch.params.size - 16:
        return st.launch.params[a:a + 128].tobytes()
    s = resolve(st, op, sel, addr, "global", 64, False)[0]
    return s.arr[int(s.off[0]):int(s.off[0]) + 128].tobytes()
