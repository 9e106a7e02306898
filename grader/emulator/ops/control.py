"""Control: bra, ret / exit, trap, and the instructions that change nothing the emulator models (membar,
fences other than fence.proxy.async, nanosleep, prefetch, griddepcontrol, createpolicy ...)."""
from __future__ import annotations

import numpy as np

from grader.emulator.machine import BRA, EXIT, EmulatorFault, Op
from grader.emulator.operands import Unsupported, writer
from grader.emulator.ops.table import builder, normal
from grader.messages import say


@builder("bra", "brx")
def build_bra(prog, inst):
    if inst.parts[0] == "brx":
        raise Unsupported(inst.opcode)
    op = Op(BRA, None, inst)
    op.target = prog.label(inst.operands[-1])
    return op


@builder("ret", "exit")
def build_ret(prog, inst):
    return Op(EXIT, None, inst)  # only kernels are decoded: calls other than printf are unsupported


@builder("trap", "brkpt")
def build_trap(prog, inst):
    def fn(st, sel):
        t = int(st.idx(sel)[0])
        raise EmulatorFault(say("emu.trap", opcode=inst.opcode, who=st.who(t), loc=inst.loc))
    return normal(fn, inst)


@builder("membar", "nanosleep", "prefetch", "prefetchu", "griddepcontrol", "pmevent",
         "discard", "applypriority", "createpolicy")
def build_nop(prog, inst):
    if inst.parts[0] == "createpolicy":
        d = writer(prog, inst.operands[0])
        return normal(lambda st, sel: d(st, sel, np.uint64(0)), inst)
    return normal(lambda st, sel: None, inst)
