"""The async proxy as the hardware orders it: which thread may touch the shared bytes that TMA, cp.async
and wgmma write or read, and when.

The emulator completes a TMA load at issue and a cp.async at its wait, so a kernel that reads too early
often still gets the right bytes; these checks name the read instead. Each thread carries what it has
observed (`Ordering.K`, a small vector clock per thread): per mbarrier of its block (by shared offset),
how many of its phases it has seen complete, and per warpgroup of its block, how many of that warpgroup's
wgmma groups it knows retired. Knowledge travels as on the hardware:
- `mbarrier.try_wait/test_wait` that succeeds: the phase, and what the arrivals of completed phases
  released (an `mbarrier.arrive` releases the arriving thread's knowledge);
- `bar.sync` / `barrier.sync` (named or not): the union of what the threads that meet know, and what
  `bar.arrive`s on that barrier released;
- `wgmma.wait_group N`: the warpgroup's own groups but the newest N.

Checked (each an `EmulatorFault` naming the instructions and their source lines):
- a read (`ld.shared`, `ldmatrix`, a wgmma descriptor operand, a TMA store's source) of bytes a bulk copy
  wrote, by a thread that has not observed the phase of the mbarrier the copy completes on (for wgmma:
  every thread of the warpgroup); a read of bytes a `cp.async` has not yet landed (its thread's
  `cp.async.wait_group` lands them; other threads see them after a barrier, the race check's rule);
- the async proxy (wgmma operand, TMA store source) reading bytes that a generic-proxy store wrote with no
  `fence.proxy.async` by the writing thread since, or that another warp wrote with no barrier between;
- a bulk copy, or a store, into bytes that a wgmma group still reads, by a thread that does not know
  `wgmma.wait_group` retired that group (a stage released before the wait).
"""
from __future__ import annotations

import numpy as np

from grader.emulator.faults import EmulatorFault
from grader.messages import say

_NONE = np.int32(-1)


def uses_async_proxy(prog) -> bool:
    """Whether the program has instructions that read shared memory through the async proxy (wgmma with a
    descriptor, TMA stores): then generic-proxy stores are tracked until a fence.proxy.async."""
    v = getattr(prog, "_async_reader", None)
    if v is None:
        v = prog._async_reader = any(
            "wgmma.mma_async" in op.inst.opcode or
            (op.inst.opcode.startswith("cp.async.bulk") and ".global.shared" in op.inst.opcode)
            for op in prog.code)
    return v


def start(st) -> "Ordering | None":
    """The ordering state of a chunk: made at once where the program reads through the async proxy (its
    stores must be tracked from the start), else at the first asynchronous instruction (`of`)."""
    return Ordering(st) if st.check and st.S and uses_async_proxy(st.prog) else None


def of(st) -> "Ordering | None":
    """The chunk's ordering state, made now if it is not yet (None when the checks are off)."""
    if st.order is None and st.check and st.S:
        st.order = Ordering(st)
    return st.order


class Ordering:
    def __init__(self, st):
        self.st = st
        self.W = -(-st.bthreads // 128)   # warpgroups per block: the first W columns of K
        self.K = None                     # [thread, column] what each thread observed (made on first use)
        self.cols: dict[int, int] = {}    # mbarrier shared offset (in its block) -> column of K
        self.named = None                 # [block * 16 + id, column] released by bar.arrive
        size = st.shared.size
        self.tma = None                   # per shared byte: the bulk copy that wrote it last, or -1
        self.copy_col = np.zeros(64, np.int32)   # per bulk copy: its mbarrier's column, the phase it completes
        self.copy_ph = np.zeros(64, np.int64)
        self.copies: list = []            # per bulk copy: (op, thread, mbarrier key, mbarrier init pc)
        self.cp = None                    # per shared byte: pc + 1 of the cp.async still copying it, or 0
        self.gw = np.full(size // 4 + 1, _NONE, np.int32) if uses_async_proxy(st.prog) else None
        self.rd_wg = None                 # per 16-byte chunk: the warpgroup (in its block) of the last wgmma
        self.rd_g = None                  # reading it, that wgmma's group, its pc
        self.rd_pc = None

    # ---- what threads know ------------------------------------------------------------------------

    def knowledge(self):
        if self.K is None:
            self.K = np.zeros((self.st.n, self.W + max(8, len(self.cols))), np.int64)
        return self.K

    def column(self, key: int) -> int:
        """The column of K for the mbarrier at absolute shared offset `key`."""
        local = int(key) % self.st.Sp
        c = self.cols.get(local)
        if c is None:
            c = self.cols[local] = self.W + len(self.cols)
            K = self.knowledge()
            if c >= K.shape[1]:
                self.K = np.concatenate((K, np.zeros((K.shape[0], K.shape[1]), np.int64)), axis=1)
        return c

    def release(self, thread: int, bar) -> None:
        """An mbarrier.arrive by `thread`: what it knows goes with the phase it completes."""
        k = self.knowledge()[thread]
        r = bar.rel_cur
        if r is None or r.size < k.size:
            bar.rel_cur = k.copy() if r is None else np.maximum(k, np.pad(r, (0, k.size - r.size)))
        else:
            np.maximum(r[:k.size], k, out=r[:k.size])

    def observe(self, threads: np.ndarray, bar) -> None:
        """These threads saw the mbarrier's latest phase complete (try_wait / test_wait returned true)."""
        K = self.knowledge()
        c = bar.col
        K[threads, c] = np.maximum(K[threads, c], bar.phase)
        if bar.rel_done is not None:
            r = bar.rel_done[:K.shape[1]]
            K[threads, :r.size] = np.maximum(K[threads, :r.size], r)

    def sync(self, sel: np.ndarray, keys: np.ndarray, named: bool) -> None:
        """Threads `sel` (sorted) passed a barrier together, per key (block, or block * 16 + id for a
        named barrier, whose bar.arrive releases join in): each learns what the others knew."""
        if self.K is None:
            return
        K = self.K
        order = np.argsort(keys, kind="stable")
        ks = keys[order]
        starts = np.flatnonzero(np.r_[True, ks[1:] != ks[:-1]])
        who = sel[order]
        merged = np.maximum.reduceat(K[who], starts, axis=0)
        if named and self.named is not None:
            extra = self.named[ks[starts]]
            merged[:, :extra.shape[1]] = np.maximum(merged[:, :extra.shape[1]], extra)
            self.named[ks[starts]] = 0
        K[who] = np.repeat(merged, np.diff(np.r_[starts, ks.size]), axis=0)

    def arrive_named(self, sel: np.ndarray, keys: np.ndarray) -> None:
        """bar.arrive: the arriving threads' knowledge waits for the bar.sync it completes."""
        if self.K is None:
            return
        if self.named is None or self.named.shape[1] < self.K.shape[1]:
            old = self.named
            self.named = np.zeros((self.st.nblk * 16, self.K.shape[1]), np.int64)
            if old is not None:
                self.named[:, :old.shape[1]] = old
        np.maximum.at(self.named, keys, self.K[sel])

    def retired(self, threads: np.ndarray, count: np.ndarray) -> None:
        """wgmma.wait_group: the first `count` groups of these threads' warpgroup have retired."""
        K = self.knowledge()
        c = self.st.ltid[threads] // 128
        K[threads, c] = np.maximum(K[threads, c], count)

    # ---- bulk copies (TMA) --------------------------------------------------------------------------

    def land(self, op, thread: int, offs: np.ndarray, key: int, bar) -> None:
        """A bulk copy issued by `thread` writes the shared bytes `offs`, completing on mbarrier `bar`."""
        st = self.st
        if self.rd_wg is not None:
            self._refill(op, thread, offs)
        if self.tma is None:
            self.tma = np.full(st.shared.size, _NONE, np.int32)
        cid = len(self.copies)
        if cid == self.copy_col.size:
            self.copy_col = np.concatenate((self.copy_col, self.copy_col))
            self.copy_ph = np.concatenate((self.copy_ph, self.copy_ph))
        self.copy_col[cid] = bar.col
        self.copy_ph[cid] = bar.phase
        self.copies.append((op, thread, int(key), bar.init_pc))
        self.tma[offs] = cid
        if self.gw is not None:
            self.gw[offs[::4] >> 2] = _NONE  # (offs: whole 16-byte chunks)

    def _unseen(self, t: np.ndarray, byte0: np.ndarray):
        """Positions of the accesses (thread t, byte byte0) of bytes a bulk copy wrote whose phase the
        thread has not observed."""
        cid = self.tma[byte0]
        hit = cid >= 0
        if not hit.any():
            return None
        i = np.flatnonzero(hit)
        c = cid[i]
        K = self.knowledge()
        bad = K[t[i], self.copy_col[c]] <= self.copy_ph[c]
        return i[bad] if bad.any() else None

    def _unseen_message(self, reader: str, thread: int, byte: int, cid: int) -> str:
        st = self.st
        cop, issuer, key, init_pc = self.copies[cid]
        phase = int(self.copy_ph[cid])
        return say("emu.unseen", reader=reader, offset=byte % st.Sp, copy=cop.where(), issuer=st.who(issuer),
                   who=st.who(thread), phase=phase, barrier=key % st.Sp, init=st.prog.code[init_pc].where(),
                   parity=phase % 2)

    # ---- cp.async -----------------------------------------------------------------------------------

    def cp_issue(self, op, off: np.ndarray, size: int) -> None:
        if self.cp is None:
            self.cp = np.zeros(self.st.shared.size, np.int32)
        self.cp[(off[:, None] + np.arange(size)).ravel()] = op.pc + 1

    def cp_land(self, off: np.ndarray, size: int) -> None:
        if self.cp is not None:
            self.cp[(off[:, None] + np.arange(size)).ravel()] = 0

    # ---- generic-proxy accesses (ld / st / ldmatrix / atom / cp.async's landing) --------------------

    def shared(self, op, t: np.ndarray, byte0: np.ndarray, size: int, write: bool) -> None:
        """Every checked shared-memory access of `size` bytes at absolute offsets byte0 by threads t."""
        st = self.st
        if write:
            if self.tma is not None:
                self.tma[(byte0[:, None] + np.arange(size)).ravel() if size > 1 else byte0] = _NONE
            if self.gw is not None:
                if size > 4:
                    self.gw[(byte0[:, None] + np.arange(0, size, 4)).ravel() >> 2] = np.repeat(t, size // 4)
                else:
                    self.gw[byte0 >> 2] = t
            if self.rd_wg is not None:
                self._rewrite(op, t, byte0)
            if getattr(st, "bulk", None) is not None:
                st.bulk.check_write(st, op, t, byte0)
            return
        if self.tma is not None:
            bad = self._unseen(t, byte0)
            if bad is not None:
                i = int(bad[0])
                raise EmulatorFault(self._unseen_message(say("emu.by", where=op.where(), who=st.who(int(t[i]))), int(t[i]),
                                                         int(byte0[i]), int(self.tma[byte0[i]])))
        if self.cp is not None:
            pc = self.cp[byte0]
            if pc.any():
                i = int(np.flatnonzero(pc)[0])
                cop = st.prog.code[int(pc[i]) - 1]
                raise EmulatorFault(say("emu.cp_async_wait", where=op.where(), who=st.who(int(t[i])),
                                        offset=int(byte0[i]) % st.Sp, copy=cop.where()))

    # ---- the async proxy reading shared memory (wgmma operands, TMA store sources) -----------------

    def async_read(self, op, threads: np.ndarray, chunks: np.ndarray, words: np.ndarray, what: str) -> None:
        """The async proxy reads shared memory for `threads` (a warpgroup, or a TMA store's issuing thread):
        `chunks`, a byte of each 16-byte chunk it reads, and `words`, each word (absolute offsets / 4). Every
        bulk copy's phase must be observed by all the threads, every generic store fenced by its writer and
        separated from them by a barrier."""
        st = self.st
        t0 = int(threads[0])
        if self.tma is not None:
            cid = self.tma[chunks]
            hit = cid >= 0
            if hit.any():
                c = cid[hit]
                K = self.knowledge()
                t1 = int(threads[-1]) + 1  # (a warpgroup: consecutive threads)
                low = (K[t0:t1] if t1 - t0 == threads.size else K[threads]).min(axis=0)
                bad = low[self.copy_col[c]] <= self.copy_ph[c]
                if bad.any():
                    j = int(np.flatnonzero(bad)[0])
                    col, ph = int(self.copy_col[c[j]]), int(self.copy_ph[c[j]])
                    who = threads[np.flatnonzero(self.K[threads, col] <= ph)[0]]
                    raise EmulatorFault(self._unseen_message(f"{op.where()}, {what},", int(who),
                                                             int(chunks[hit][j]), int(c[j])))
        if self.gw is None:
            return
        last = st.sh_w[words]
        generic = last >= 0  # written by a store (a bulk copy's bytes have none)
        if not generic.any():
            return
        words, last = words[generic], last[generic]
        w = self.gw[words]
        unfenced = w >= 0
        if unfenced.any():
            i = int(np.flatnonzero(unfenced)[0])
            raise EmulatorFault(say("emu.unfenced", reader=self._reader(op, threads, what),
                                    offset=int(words[i]) * 4 % st.Sp, who=st.who(int(w[i])),
                                    writer=self._writer(int(words[i]))))
        span = 4 if threads.size > 1 else 1  # the reader's warps: its warpgroup's, or its own
        me = int(st.accessor[t0])
        same = (last >= 0) & ((last >> 6) == me >> 6) & ((last & 63) // span != (me & 63) // span)
        if same.any():
            i = int(np.flatnonzero(same)[0])
            raise EmulatorFault(say("emu.no_barrier", reader=self._reader(op, threads, what),
                                    offset=int(words[i]) * 4 % st.Sp, writer=self._writer(int(words[i]))))

    def _reader(self, op, threads, what) -> str:
        warpgroup = say("emu.its_warpgroup") if threads.size > 1 else ""
        return say("emu.reader", where=op.where(), who=self.st.who(int(threads[0])), warpgroup=warpgroup, what=what)

    def _writer(self, word: int) -> str:
        pc = int(self.st.sh_wpc[word])
        return self.st.prog.code[pc].where() if pc >= 0 else say("emu.a_store")

    def fence(self, threads: np.ndarray) -> None:
        """fence.proxy.async by `threads`: their generic-proxy stores so far are visible to the async proxy."""
        if self.gw is None:
            return
        mark = np.zeros(self.st.n + 1, bool)
        mark[threads + 1] = True
        self.gw[mark[self.gw + 1]] = _NONE

    # ---- wgmma reading a stage, and its refill ------------------------------------------------------

    def wgmma_reads(self, op, threads: np.ndarray, offs: np.ndarray, group: int) -> None:
        """An mma_async of the warpgroup `threads` (group `group`) reads the shared bytes offs until the
        wait_group that retires that group."""
        st = self.st
        if self.rd_wg is None:
            chunks = st.shared.size // 16 + 1
            self.rd_wg = np.full(chunks, -1, np.int16)
            self.rd_g = np.zeros(chunks, np.int64)
            self.rd_pc = np.zeros(chunks, np.int32)
        ch = offs >> 4
        self.rd_wg[ch] = st.ltid[threads[0]] // 128
        self.rd_g[ch] = group
        self.rd_pc[ch] = op.pc

    def _pending(self, t: np.ndarray, chunks: np.ndarray):
        """Positions of (thread t, chunk) where a wgmma group reading the chunk is not known retired."""
        wg = self.rd_wg[chunks]
        hit = wg >= 0
        if not hit.any():
            return None
        i = np.flatnonzero(hit)
        bad = self.knowledge()[t[i], wg[i]] <= self.rd_g[chunks[i]]
        return i[bad] if bad.any() else None

    def _pending_message(self, writer: str, chunk: int) -> str:
        st = self.st
        rop = st.prog.code[int(self.rd_pc[chunk])]
        return say("emu.pending", writer=writer, offset=chunk * 16 % st.Sp, reader=rop.where(),
                   warpgroup=int(self.rd_wg[chunk]), group=int(self.rd_g[chunk]))

    def _refill(self, op, thread: int, offs: np.ndarray) -> None:
        ch = np.unique(offs >> 4)
        bad = self._pending(np.full(ch.size, thread), ch)
        if bad is not None:
            raise EmulatorFault(self._pending_message(say("emu.bulk_copy_by", where=op.where(), who=self.st.who(thread)),
                                                      int(ch[bad[0]])))

    def _rewrite(self, op, t: np.ndarray, byte0: np.ndarray) -> None:
        bad = self._pending(t, byte0 >> 4)
        if bad is not None:
            i = int(bad[0])
            raise EmulatorFault(self._pending_message(say("emu.by", where=op.where(), who=self.st.who(int(t[i]))),
                                                      int(byte0[i]) >> 4))
