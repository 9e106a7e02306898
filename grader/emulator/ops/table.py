"""The instruction table: each base opcode (`add`, `ld`, `wgmma` ...) and the one function that builds its
`Op`, registered by `@builder` in the module of its family; `decode` looks an instruction up."""
from __future__ import annotations

from grader.emulator.machine import NORMAL, Op
from grader.emulator.operands import Unsupported
from grader.messages import say

BUILDERS = {}


def builder(*names):
    """Register the decorated function as the builder of these opcodes; an opcode registered twice raises
    (one builder per opcode: a family that handles some forms of another's opcode calls it)."""
    def deco(f):
        taken = [f"{n} (by {BUILDERS[n].__module__}.{BUILDERS[n].__name__})" for n in names if n in BUILDERS]
        if taken:
            raise ValueError(f"{f.__module__}.{f.__name__}: opcode already registered: {', '.join(taken)}")
        for n in names:
            BUILDERS[n] = f
        return f
    return deco


def decode(prog, inst) -> Op:
    """The instruction as an `Op`, its modifiers read once; `Unsupported` for an opcode without a builder."""
    base = inst.parts[0]
    b = BUILDERS.get(base)
    if b is None:
        raise Unsupported(say("emu.unsup.instruction", opcode=inst.opcode))
    op = b(prog, inst)
    if inst.guard is not None:
        g = inst.guard
        slot, _ = prog.reg(g.lstrip("!"))
        op.guard = (slot, g.startswith("!"))
    return op


def normal(fn, inst):
    """An Op that runs `fn` for the threads at it, in any grouping."""
    return Op(NORMAL, fn, inst)


def operand_type(inst) -> str:
    """The instruction's type: its last modifier (`.s32` of `add.s32`)."""
    return inst.parts[-1]
