"""A kernel ready to run: registers given slots, variables laid out in their state spaces, every
instruction decoded once; and the cupy-like module / kernel objects that launch it.
"""
from __future__ import annotations

import itertools
import os
import re
import sys
import warnings

import numpy as np

from grader.emulator import machine, memory, ptx
from grader.emulator.machine import NORMAL, EmulatorFault, Launch, Op, State, run_chunk
from grader.emulator.operands import Unsupported
from grader.emulator.values import storage
from grader.messages import say

CALL_PARAM_BASE = 1 << 20        # offsets of call-site .param variables (printf arguments)
REG_BUDGET = 96 << 20            # bytes of registers per chunk of blocks
MAX_CHUNK_THREADS = 1 << 17
DEFAULT_SMEM = 48 << 10          # dynamic + static shared memory without opting in
MAX_SMEM = 227 << 10             # sm_90 / sm_80 opt-in limit per block


class EmulatorWarning(UserWarning):
    """Something a GPU would not report: a shared-memory race, a read of uninitialised shared memory."""


def _align(x, a):
    return -(-x // a) * a


_NAME = re.compile(r"(?<![\w$.%@#])%?[A-Za-z_$][\w$@#]*")


def _flatten(module: ptx.Module, fn: ptx.Function):
    """fn's instructions with every call to a .func of the module expanded in place (its registers,
    labels and locals renamed per call site, its parameters mapped to the caller's .param variables,
    its `ret` a branch to the end of the copy): (instructions, labels, registers, locals)."""
    insts, labels, regs, locals_ = [], {}, dict(fn.regs), list(fn.locals)
    count = itertools.count()

    def rewrite(text, mapping):
        return _NAME.sub(lambda m: mapping.get(m.group(0), m.group(0)), text) if mapping else text

    def expand(f, mapping, end, stack):
        at = {}
        for name, idx in f.labels.items():
            at.setdefault(idx, []).append(mapping.get(name, name))
        for i, inst in enumerate(f.body):
            for name in at.get(i, ()):
                labels[name] = len(insts)
            guard = rewrite(inst.guard, mapping) if inst.guard else None
            ops = [rewrite(o, mapping) for o in inst.operands]
            if inst.parts[0] == "call":
                names = [o.strip() for o in ops]
                target = next(o for o in names if not o.startswith("("))
                callee = module.functions.get(target)
                if callee is not None and not callee.extern:
                    if target in stack or len(stack) > 16:
                        raise Unsupported(say("emu.unsup.recursive", target=target))
                    if guard:
                        raise Unsupported(say("emu.unsup.predicated", target=target))
                    tag = f"#{next(count)}"
                    rets = [x.strip() for x in names[0].strip("()").split(",")] if names[0].startswith("(") else []
                    args = [x.strip() for o in names[names.index(target) + 1:] for x in o.strip("()").split(",")
                            if x.strip()]
                    m2 = {r: r + tag for r in callee.regs}
                    regs.update({r + tag: t for r, t in callee.regs.items()})
                    for v in callee.locals:
                        m2[v.name] = v.name + tag
                        locals_.append(ptx.Var(v.name + tag, v.space, v.dtype, v.size, v.align, v.init))
                    m2.update({lab: lab + tag for lab in callee.labels})
                    m2.update({p.name: a for p, a in zip(callee.params, args)})
                    m2.update({p.name: r for p, r in zip(callee.rets, rets)})
                    done = f"$return{tag}"
                    expand(callee, m2, done, stack + [target])
                    labels[done] = len(insts)
                    continue
            if end is not None and inst.parts[0] == "ret":
                insts.append(ptx.Inst("bra.uni", [end], guard, inst.loc, f"{inst.text} (return from a call)",
                                      inst.func))
                continue
            insts.append(ptx.Inst(inst.opcode, ops, guard, inst.loc, inst.text, inst.func))
        for name in at.get(len(f.body), ()):
            labels[name] = len(insts)

    expand(fn, {}, None, [fn.name])
    return insts, labels, regs, locals_


class Program:
    def __init__(self, module: ptx.Module, fn: ptx.Function, globals_: dict):
        self.module, self.fn, self.name = module, fn, fn.name
        flat_error = None
        try:
            body, self.labels, regs, self.locals = _flatten(module, fn)
        except Unsupported as e:  # the kernel stops at its first instruction, saying why
            body, self.labels, regs, self.locals = [], {}, dict(fn.regs), list(fn.locals)
            flat_error = e
        self.reg_slot: dict[str, int] = {}
        self.reg_types: list[np.dtype] = []
        for name, t in regs.items():
            self.reg_slot[name] = len(self.reg_types)
            self.reg_types.append(storage(t) if t != "b128" else np.dtype(np.uint64))
        self.symbols: dict[str, int] = dict(globals_)
        # kernel parameters
        off = 0
        self.params = []
        for p in fn.params:
            off = _align(off, max(p.align, 1))
            self.symbols[p.name] = off
            self.params.append((p, off))
            off += p.size
        self.param_bytes = off
        # shared: module-level, then this function's (demoted) variables, then dynamic
        off, dyn_align, self.dynamic = 0, 16, []
        for v in list(module.shared) + [v for v in self.locals if v.space == "shared"]:
            if v.size == 0:
                self.dynamic.append(v)
                dyn_align = max(dyn_align, v.align)
                continue
            off = _align(off, v.align)
            self.symbols[v.name] = off
            off += v.size
        self.static_shared = off
        self.dynamic_offset = _align(off, dyn_align)
        for v in self.dynamic:
            self.symbols[v.name] = self.dynamic_offset
        off = 0
        for v in self.locals:
            if v.space == "local":
                off = _align(off, v.align)
                self.symbols[v.name] = off
                off += v.size
        self.local_bytes = off
        off = 0
        for v in self.locals:
            if v.space == "param":
                off = _align(off, max(v.align, 8))
                self.symbols[v.name] = CALL_PARAM_BASE + off
                off += v.size
        self.call_param_base = CALL_PARAM_BASE
        self.call_param_bytes = off
        self.code: list[Op] = []
        self.unsupported: list[str] = []
        for pc, inst in enumerate(body):
            try:
                from grader.emulator.ops import decode
                op = decode(self, inst)
            except Unsupported as e:
                op = _unsupported(inst, str(e))
                self.unsupported.append(f"{inst.text} ({inst.loc}): {e}")
            op.pc = pc
            self.code.append(op)
        if flat_error is not None:
            call = next((i for i in fn.body if i.parts[0] == "call"), fn.body[0])
            self.code.append(_unsupported(call, str(flat_error)))
            self.unsupported.append(str(flat_error))
        ret = ptx.Inst("ret", [], None, None, "(end of kernel)", fn.name)
        end = Op(machine.EXIT, None, ret)
        end.pc = len(self.code)
        self.code.append(end)
        self.regs_bytes = sum(t.itemsize for t in self.reg_types)

    # ---- used by the decoders ----
    def reg(self, name: str):
        if name not in self.reg_slot:
            raise Unsupported(say("emu.unsup.register", name=name))
        s = self.reg_slot[name]
        return s, self.reg_types[s]

    def symbol(self, name: str):
        return self.symbols.get(name.strip())

    def label(self, name: str) -> int:
        if name not in self.labels:
            raise Unsupported(say("emu.unsup.label", name=name))
        return self.labels[name]

    def is_call_param(self, a) -> bool:
        return bool(np.any(np.asarray(a) >= CALL_PARAM_BASE))

    # ---- launching ----
    def pack(self, args) -> bytes:
        if len(args) != len(self.params):
            raise TypeError(say("emu.arg_count", kernel=self.name, count=len(self.params), given=len(args)))
        buf = bytearray(self.param_bytes)
        for i, ((p, off), a) in enumerate(zip(self.params, args)):
            raw = _arg_bytes(a, p, i, self.name)
            buf[off:off + len(raw)] = raw
        return bytes(buf)


def _arg_bytes(a, p, i, kname) -> bytes:
    what = f"argument {i} of {kname} (.param .{p.dtype} {p.name}, {p.size} bytes)"
    if isinstance(a, memory.DeviceArray):
        raw = np.uint64(a.ptr).tobytes()
    elif hasattr(a, "data") and hasattr(a, "__cuda_array_interface__"):
        raise TypeError(say("emu.cupy_array", what=what))
    elif isinstance(a, np.generic):
        raw = a.tobytes()
    elif isinstance(a, bool):
        raw = np.bool_(a).tobytes()
    elif isinstance(a, int):
        raw = np.int64(a).tobytes()
    elif isinstance(a, float):
        raw = np.float64(a).tobytes()
    elif isinstance(a, (bytes, bytearray, np.ndarray)):
        raw = bytes(a) if not isinstance(a, np.ndarray) else a.tobytes()
    else:
        raise TypeError(say("emu.cannot_pass", what=what, kind=type(a).__name__))
    if len(raw) != p.size:
        raise TypeError(say("emu.arg_size", what=what, size=len(raw),
                            kind=type(a).__name__ + (" " + str(a.dtype) if hasattr(a, "dtype") else "")))
    return raw


def _unsupported(inst, why):
    def fn(st, sel):
        raise EmulatorFault(say("emu.unsupported", why=why, text=inst.text, loc=inst.loc))
    return Op(NORMAL, fn, inst)


def _dim3(x, what) -> tuple[int, int, int]:
    if isinstance(x, (int, np.integer)):
        x = (int(x),)
    x = tuple(int(v) for v in x)
    if not 1 <= len(x) <= 3 or any(v < 1 for v in x):
        raise ValueError(say("emu.dims", what=what, value=x))
    return x + (1,) * (3 - len(x))


class Kernel:
    """Like cupy.RawKernel: `kernel(grid, block, args, shared_mem=0)` runs the whole grid."""

    def __init__(self, module: "Module", name: str):
        self.module = module
        self.name = name
        self._prog = None
        self.max_dynamic_shared_size_bytes = 0

    @property
    def program(self) -> Program:
        if self._prog is None:
            fn = self.module.parsed.functions[self.name]
            self._prog = Program(self.module.parsed, fn, self.module.global_addrs)
        return self._prog

    @property
    def shared_size_bytes(self) -> int:
        return self.program.static_shared

    @property
    def local_size_bytes(self) -> int:
        return self.program.local_bytes

    @property
    def max_threads_per_block(self) -> int:
        m = self.program.fn.maxntid
        return int(np.prod(m)) if m else 1024

    def __call__(self, grid, block, args, shared_mem: int = 0, **kwargs):
        return launch(self, grid, block, args, shared_mem)


class Module:
    """Like cupy.RawModule over NVRTC's PTX."""

    def __init__(self, ptx_text: str, path: str = ""):
        self.ptx = ptx_text
        self.path = path
        self.parsed = ptx.parse(ptx_text)
        self._buffers = []
        self.global_addrs = {}
        for v in self.parsed.globals:
            buf = memory.Buffer(max(v.size, 1), v.name)
            if v.init:
                buf.data[:len(v.init)] = np.frombuffer(v.init, np.uint8)
            self._buffers.append(buf)
            self.global_addrs[v.name] = buf.addr
        self._kernels = {}
        self.code = ""  # the CUDA source, as cupy.RawModule keeps it

    def get_function(self, name: str) -> Kernel:
        fn = self.parsed.functions.get(name)
        if fn is None or not fn.is_entry:
            known = ", ".join(n for n, f in self.parsed.functions.items() if f.is_entry)
            raise KeyError(say("emu.no_kernel", module=self.path or "module", name=name, known=known))
        if name not in self._kernels:
            self._kernels[name] = Kernel(self, name)
        return self._kernels[name]

    def get_global(self, name: str):
        if name not in self.global_addrs:
            raise KeyError(say("emu.no_global", name=name))
        buf = next(b for b in self._buffers if b.addr == self.global_addrs[name])
        return memory.DeviceArray(buf, (buf.nbytes,), np.uint8)

    def compile(self):
        return self


#: The last launch: statistics, warnings, printf output, instruction counts.
last_launch: Launch | None = None


def _checks_enabled() -> bool:
    return os.environ.get("COURSE_EMULATOR_CHECKS", "1") != "0"


def _stats_enabled() -> bool:
    return os.environ.get("COURSE_EMULATOR_STATS", "1") != "0"


def launch(kernel: Kernel, grid, block, args, shared_mem: int = 0) -> Launch:
    global last_launch
    prog = kernel.program
    grid, block = _dim3(grid, "grid"), _dim3(block, "block")
    bthreads = block[0] * block[1] * block[2]
    if bthreads > kernel.max_threads_per_block or block[2] > 64:
        raise EmulatorFault(say("emu.block_limit", kernel=kernel.name, block=block, threads=bthreads,
                                limit=kernel.max_threads_per_block))
    if grid[1] > 65535 or grid[2] > 65535 or grid[0] > 2**31 - 1:
        raise EmulatorFault(say("emu.grid_limit", kernel=kernel.name, grid=grid))
    smem = prog.static_shared + int(shared_mem)
    limit = max(DEFAULT_SMEM, min(MAX_SMEM, prog.static_shared + kernel.max_dynamic_shared_size_bytes))
    if smem > limit:
        raise EmulatorFault(say("emu.smem_limit", kernel=kernel.name, smem=smem, static=prog.static_shared,
                                dynamic=shared_mem, limit=limit, most=MAX_SMEM))
    params = prog.pack(args)
    run = Launch(grid, block, params, int(shared_mem), _checks_enabled(), {} if _stats_enabled() else None)
    run.warps_per_pc = [0] * len(prog.code)
    if shared_mem and prog.dynamic_offset != prog.static_shared:
        pass  # dynamic shared memory starts at its aligned offset; the padding counts as static
    total = grid[0] * grid[1] * grid[2]
    per_thread = max(prog.regs_bytes, 1)
    chunk = max(1, min(MAX_CHUNK_THREADS, REG_BUDGET // per_thread) // bthreads)
    with np.errstate(all="ignore"):
        for first in range(0, total, chunk):
            st = State(prog, run, first, min(chunk, total - first))
            run_chunk(st, prog.code)
            if getattr(st, "bulk", None) is not None and st.check:
                st.bulk.finish(st)
            if st._cp is not None and st._cp.pending:
                op = st._cp.pending[0][0]
                run.warn(("cp.async", op.pc), say("emu.cp_async_dropped", where=op.where()))
    last_launch = run
    run.kernel = kernel.name
    run.program = prog
    if run.printed:
        sys.stdout.write("".join(run.printed))
        sys.stdout.flush()
    races = [msg for key, msg in run.warnings.items() if key[0] == "race"]
    if races:  # a race is a bug even when this run's order happened to give the right answer
        more = say("emu.more_races", count=len(races) - 1) if len(races) > 1 else ""
        raise EmulatorFault(say("emu.race_in", kernel=kernel.name, race=races[0], more=more))
    for msg in run.warnings.values():
        warnings.warn(EmulatorWarning(msg), stacklevel=3)
    return run
