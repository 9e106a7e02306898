"""Running a decoded kernel over a grid: the scheduler, the per-chunk state and the memory spaces.

Execution model (see README.md):
- Blocks run in chunks (as many whole blocks as fit a register budget). Every thread of a chunk has its
  own program counter; threads at the same PC form a *group*, executed as one numpy operation.
- The scheduler runs the group with the smallest PC. Structured code therefore reconverges where it
  rejoins (the branch's post-dominator comes later in the code than both paths). A group that takes a
  backward branch while other groups can run waits until they cannot (spin loops on a flag another
  warp or block sets make progress, as on a GPU).
- Warp-synchronous instructions (shfl.sync, vote.sync, match.sync, bar.warp.sync) proceed for a warp
  only when every lane named in the member mask has arrived; bar.sync proceeds for a block only when
  all its threads that have not exited have arrived. Threads still waiting when nothing else can run
  are a deadlock: a barrier reached by part of a block, or a mask naming lanes that never come.
"""
from __future__ import annotations

import re

import numpy as np

from grader.emulator import memory, memstats, ordering
from grader.emulator.faults import EmulatorFault  # noqa: F401 - where the interpreter's modules take it
from grader.emulator.operands import Unsupported
from grader.messages import say

NORMAL, BRA, EXIT, BAR, WSYNC = range(5)
LANES = np.arange(32, dtype=np.uint32)


class Op:
    __slots__ = ("kind", "fn", "guard", "target", "inst", "ready", "pc", "elem_size", "stuck", "_where")

    def __init__(self, kind, fn, inst, target=None, ready=None):
        self.kind, self.fn, self.inst, self.target, self.ready = kind, fn, inst, target, ready
        self.guard = None
        self.pc = 0
        self.elem_size = 0
        self.stuck = None  # why threads waiting here can never go on (a deadlock message), if it knows
        self._where = None

    def where(self) -> str:
        """The instruction (long register lists cut, e.g. a wgmma's 64 accumulators) and its source line."""
        if self._where is None:
            loc = say("emu.at", loc=self.inst.loc) if self.inst.loc is not None else ""
            text = re.sub(r"\{(%\w+), (%\w+)(, %\w+){4,}\}", r"{\1, \2, ...}", self.inst.text)
            self._where = f"`{text}`{loc}"
        return self._where


def _merge(a, b, n=0):
    """The union of two disjoint sorted sets of threads (None: all of them); None when it has all n."""
    if a is None or b is None:
        return None
    if a.size == 0:
        return b
    if b.size == 0:
        return a
    out = np.concatenate((a, b))
    out.sort(kind="stable")
    return None if out.size == n else out


class State:
    """One chunk of whole blocks in flight."""

    def __init__(self, prog, launch, first_block: int, nblk: int):
        self.prog = prog
        self.launch = launch
        self.first_block = first_block
        self.nblk = nblk
        bx, by, bz = launch.block
        self.bthreads = bx * by * bz
        self.n = n = nblk * self.bthreads
        self.regs = [None] * len(prog.reg_types)
        self.all = np.arange(n, dtype=np.int64)   # every thread (never modified: shared by callers)
        # per-thread indices from one block's (tiled) and one value per block (repeated): no division over
        # the chunk's threads, which cost half of a simple kernel's launch
        one, blocks = np.arange(self.bthreads, dtype=np.int64), np.arange(nblk, dtype=np.int64)

        def tiled(x, dt):
            return np.tile(x.astype(dt), nblk)

        def per_block(x, dt):
            return np.repeat(x.astype(dt), self.bthreads)

        self.blk = per_block(blocks, np.int64)
        self.ltid = tiled(one, np.int64)
        self.lane = tiled(one % 32, np.uint32)
        self.wpb = -(-self.bthreads // 32)
        self.warp_in_block = tiled(one // 32, np.int32)
        self.wkey = per_block(blocks * self.wpb, np.int64) + tiled(one // 32, np.int64)
        self.nwarps = nblk * self.wpb
        gb = first_block + blocks
        gx, gy, gz = launch.grid
        self._special = {
            "tid.x": tiled(one % bx, np.uint32),
            "tid.y": tiled((one // bx) % by, np.uint32),
            "tid.z": tiled(one // (bx * by), np.uint32),
            "ntid.x": bx, "ntid.y": by, "ntid.z": bz,
            "ctaid.x": per_block(gb % gx, np.uint32),
            "ctaid.y": per_block((gb // gx) % gy, np.uint32),
            "ctaid.z": per_block(gb // (gx * gy), np.uint32),
            "nctaid.x": gx, "nctaid.y": gy, "nctaid.z": gz,
            "laneid": self.lane, "warpid": tiled(one // 32, np.uint32), "nwarpid": self.wpb,
            "smid": 0, "nsmid": 1, "gridid": 0,
            "dynamic_smem_size": launch.shared_mem,
            "total_smem_size": prog.static_shared + launch.shared_mem,
        }
        self.S = (prog.dynamic_offset if launch.shared_mem else prog.static_shared) + launch.shared_mem
        self.Sp = -(-self.S // 16) * 16           # row stride: every block's shared memory 16-aligned
        self.shared = np.zeros(nblk * self.Sp + 16, np.uint8)
        self.shared_row = self.blk * self.Sp      # each thread's block's shared memory in `shared`
        self.L = prog.local_bytes
        self.Lp = -(-self.L // 16) * 16
        self.local = np.zeros(n * self.Lp + 16, np.uint8)
        self.Pp = -(-prog.call_param_bytes // 16) * 16
        self.cparam = np.zeros(n * self.Pp + 16, np.uint8)
        self._cp = None
        self.exited = np.zeros(n, bool)
        self.exit_pc = np.full(n, -1, np.int64)
        self.mark = np.zeros(n, bool)
        self.epoch = np.zeros(nblk, np.int64)  # barriers each block has passed
        self.accessor = self.warp_in_block.astype(np.int64)  # epoch * 64 + warp: who accesses shared memory
        self.check = launch.checks
        if self.check and self.S:
            # the shadow of shared memory: per word, its last writer and reader (accessor; reader
            # epoch * 64 + 63: several warps; -1: none) and writing instruction; per byte, written yet
            words = nblk * self.Sp // 4 + 4
            self.sh_init = np.zeros(nblk * self.Sp + 16, bool)
            self.sh_w = np.full(words, -1, np.int64)
            self.sh_r = np.full(words, -1, np.int64)
            self.sh_wpc = np.full(words, -1, np.int32)
        self.clock = 0
        self._runs = (None, None)
        self.order = ordering.start(self)  # who may read what async copies wrote (made at need)

    def barrier(self, blocks):
        """These blocks passed a barrier: their shared-memory accesses start a new epoch."""
        self.epoch[blocks] += 1
        self.accessor = self.epoch[self.blk] * 64 + self.warp_in_block

    def zeros(self, slot):
        return np.zeros(self.n, self.prog.reg_types[slot])

    def special(self, name):
        if name in self._special:
            return self._special[name]
        if name in ("clock", "clock64", "clock_hi", "globaltimer", "globaltimer_lo", "globaltimer_hi"):
            self.clock += 1000
            return np.uint64(self.clock)
        lane = self.lane.astype(np.uint64)
        if name == "lanemask_eq":
            return (np.uint64(1) << lane).astype(np.uint32)
        if name == "lanemask_lt":
            return ((np.uint64(1) << lane) - np.uint64(1)).astype(np.uint32)
        if name == "lanemask_le":
            return ((np.uint64(1) << (lane + np.uint64(1))) - np.uint64(1)).astype(np.uint32)
        if name == "lanemask_gt":
            return (~((np.uint64(1) << (lane + np.uint64(1))) - np.uint64(1))).astype(np.uint32)
        if name == "lanemask_ge":
            return (~((np.uint64(1) << lane) - np.uint64(1))).astype(np.uint32)
        raise Unsupported(say("emu.unsup.special", name=name))

    def idx(self, sel):
        return self.all if sel is None else sel

    def who(self, thread: int) -> str:
        """'block (x,y,z) thread (x,y,z)' of a chunk thread index, in the lessons' language."""
        return say("emu.who", block=self.block_of(thread), thread=self.thread_in_block(thread))

    def block_of(self, thread: int) -> tuple[int, int, int]:
        """The (x, y, z) of the block a chunk thread index belongs to."""
        return tuple(int(self._special[f"ctaid.{c}"][thread]) for c in "xyz")

    def thread_in_block(self, thread: int) -> tuple[int, int, int]:
        """The (x, y, z) of a chunk thread index within its block."""
        return tuple(int(self._special[f"tid.{c}"][thread]) for c in "xyz")

    def warp_runs(self, t: np.ndarray):
        """For sorted threads t: (their warps, True where a warp starts, the other positions, threads per
        warp, each thread's warp numbered from 0 times 2^32, a dict for the caller's own memos). The last
        answer is kept: one set of threads runs many instructions in a row."""
        if self._runs[0] is not t:
            w = self.wkey[t]
            first = np.empty(t.size, bool)
            first[:1] = True
            np.not_equal(w[1:], w[:-1], out=first[1:])
            lanes = np.diff(np.append(np.flatnonzero(first), t.size))
            self._runs = (t, (w, first, ~first[1:], lanes, (np.cumsum(first) - 1) << 32, {}))
        return self._runs[1]

    def whole_warps(self, sel: np.ndarray) -> bool:
        """Whether the sorted threads sel are whole warps: all 32 lanes of every warp they touch."""
        if sel.size == self.n:
            return self.bthreads % 32 == 0
        return sel.size % 32 == 0 and bool((self.lane[sel].reshape(-1, 32) == LANES).all())

    def warp_present(self, idx: np.ndarray) -> np.ndarray:
        """For each thread in idx (sorted), the bit mask of its warp's lanes that are in idx."""
        bits = (np.uint32(1) << self.lane[idx]).astype(np.uint32)
        w = self.wkey[idx]
        starts = np.flatnonzero(np.diff(w)) + 1
        starts = np.concatenate(([0], starts))
        seg = np.bitwise_or.reduceat(bits, starts)
        lens = np.diff(np.concatenate((starts, [idx.size])))
        return np.repeat(seg, lens)

    def warp_exists(self, idx: np.ndarray) -> np.ndarray:
        """Bit mask of the lanes that exist (inside the block) in each thread's warp."""
        first = (self.ltid[idx] // 32) * 32
        count = np.minimum(32, self.bthreads - first).astype(np.uint64)
        return ((np.uint64(1) << count) - np.uint64(1)).astype(np.uint32)

    def exited_mask(self, idx: np.ndarray) -> np.ndarray:
        """Bit mask of exited lanes in each thread's warp."""
        return self.warp_present_full(self.exited)[idx]

    def warp_present_full(self, flags: np.ndarray) -> np.ndarray:
        bits = np.where(flags, np.uint32(1) << self.lane, np.uint32(0)).astype(np.uint32)
        nw = self.nblk * self.wpb
        acc = np.zeros(nw, np.uint32)
        np.bitwise_or.at(acc, self.wkey, bits)
        return acc[self.wkey]


class Launch:
    def __init__(self, grid, block, params: bytes, shared_mem: int, checks: bool, stats):
        self.grid, self.block, self.params = grid, block, np.frombuffer(params + b"\0" * 16, np.uint8)
        self.shared_mem = shared_mem
        self.checks = checks
        self.counts = stats  # {(pc, "global" | "shared"): memory statistics}, None when off: read .stats
        self.pending: dict = {}  # accesses whose statistics are counted later, in batches (ops/memory_access)
        self.pending_size = 0
        self.mem = memory.snapshot()
        self.mem_bases = [int(b) for b in self.mem[0]]  # for bisect
        self.warnings: dict[tuple, str] = {}
        self.printed: list[str] = []
        self.instructions = 0      # warp instructions executed (one per warp with a thread executing)
        self.thread_instructions = 0
        self.warps_per_pc: list[int] = []  # warp instructions executed, per instruction (program.launch sizes it)

    def warn(self, key, msg):
        self.warnings.setdefault(key, msg)

    @property
    def stats(self) -> dict | None:
        """Per memory instruction (pc, "global" | "shared"): its statistics; None when they are off."""
        if self.pending:
            memstats.count_pending(self)
        return self.counts


def run_chunk(st: State, code: list) -> None:
    groups: dict[int, object] = {0: None}
    waiting: dict[int, object] = {}
    deferred: dict[int, object] = {}   # groups that just branched backwards while others could run
    launch = st.launch
    n_inst = 0
    n_thr = 0
    per_pc = launch.warps_per_pc
    counted, warps = None, 0  # the last set of threads whose warps were counted, and how many
    while True:
        if not groups:
            if deferred:
                groups, deferred = deferred, groups
                continue
            if not waiting:
                break
            # lanes that exited since these started waiting count as arrived now: retry once
            if not any(code[p].ready(st, w)[0].size for p, w in waiting.items()):
                _deadlock(st, code, waiting)
            groups, waiting = waiting, {}
            continue
        pc = min(groups)
        sel = groups.pop(pc)
        if pc in waiting:
            sel = _merge(sel, waiting.pop(pc), st.n)
        if pc in deferred:
            sel = _merge(sel, deferred.pop(pc), st.n)
        op = code[pc]
        run = sel
        if op.guard is not None:
            slot, neg = op.guard
            p = st.regs[slot]
            if p is None:
                p = np.zeros(st.n, bool)
            p = p if sel is None else p[sel]
            if neg:
                p = ~p
            if p.all():
                run = sel
            elif not p.any():
                run = np.empty(0, np.int64)
            else:
                run = np.flatnonzero(p) if sel is None else sel[p]
        if run is None:
            k = st.n
            n_inst += st.nwarps
            per_pc[pc] += st.nwarps
        else:
            k = run.size
            if k:
                if run is not counted:  # a set of threads often runs several instructions in a row
                    w = st.wkey[run]
                    counted, warps = run, 1 + int(np.count_nonzero(w[1:] != w[:-1]))
                n_inst += warps
                per_pc[pc] += warps
        n_thr += k
        kind = op.kind
        if kind == NORMAL:
            if k:
                op.fn(st, run)
            _add(groups, pc + 1, sel, st.n)
        elif kind == BRA:
            # A backward branch yields to the other groups, waiting ones included (a spin loop must let
            # the thread it waits for progress; threads of one loop with different trip counts then meet
            # at a PC and run on together); a forward one keeps the smallest-PC order.
            dest = deferred if op.target <= pc and (groups or deferred) else groups
            if run is sel:
                _add(dest, op.target, sel, st.n)
            else:
                if k:
                    _add(dest, op.target, run, st.n)
                rest = _minus(st, sel, run)
                if rest is None or rest.size:
                    _add(groups, pc + 1, rest, st.n)
        elif kind == EXIT:
            if k:
                r = st.idx(run)
                st.exited[r] = True
                st.exit_pc[r] = pc
            if run is not sel:
                rest = _minus(st, sel, run)
                if rest is None or rest.size:
                    _add(groups, pc + 1, rest, st.n)
        elif kind == BAR or kind == WSYNC:
            if run is not sel:  # a guarded barrier: those with a false guard just move on
                rest = _minus(st, sel, run)
                if rest is None or rest.size:
                    _add(groups, pc + 1, rest, st.n)
            if not k:
                continue
            ready, wait = op.ready(st, st.idx(run))
            if ready is not None and ready.size:
                op.fn(st, ready)
                _add(groups, pc + 1, None if ready.size == st.n else ready, st.n)
            if wait is not None and wait.size:
                waiting[pc] = _merge(waiting.get(pc, np.empty(0, np.int64)), wait)
        else:
            raise AssertionError(kind)
    launch.instructions += n_inst
    launch.thread_instructions += n_thr


def _add(groups, pc, sel, n=0):
    if pc in groups:
        groups[pc] = _merge(groups[pc], sel, n)
    else:
        groups[pc] = sel


def _minus(st, sel, run):
    """The threads of sel not in run (a subset of sel)."""
    if run is not None and run.size == 0:
        return sel
    if sel is None:
        keep = np.ones(st.n, bool)
        keep[run] = False
        return np.flatnonzero(keep)
    if run is None:
        return np.empty(0, np.int64)
    return np.setdiff1d(sel, run, assume_unique=True)


def _deadlock(st: State, code, waiting) -> None:
    pc = min(waiting)
    sel = waiting[pc]
    op = code[pc]
    t = int(sel[0])
    blk = st.blk[t]
    if op.kind == BAR and op.stuck is None:
        in_blk = (st.blk == blk)
        arrived = int(np.count_nonzero(st.blk[sel] == blk))
        total = int(np.count_nonzero(in_blk))
        gone = np.flatnonzero(in_blk & st.exited)
        where = ""
        if gone.size:
            epc = int(st.exit_pc[gone[0]])
            where = say("emu.exited", count=gone.size, thread=st.thread_in_block(int(gone[0])),
                        where=code[epc].where())
        others = sorted(set(waiting) - {pc})
        if others:
            where += say("emu.other_barrier", where=code[others[0]].where())
        raise EmulatorFault(say("emu.partial_barrier", where=op.where(), arrived=arrived, total=total,
                                block=say("emu.block", block=st.block_of(t)), more=where))
    if op.stuck is not None:
        raise EmulatorFault(op.stuck(st, op, sel))
    raise EmulatorFault(say("emu.warp_sync", where=op.where(), who=st.who(t), more=sel.size - 1))
