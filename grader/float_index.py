"""Thread indices that go through a float: right up to 2^24 elements, wrong past it (no GPU needed).

A float holds every integer only up to 2^24, so `int i = (int)(blockIdx.x * (float)blockDim.x +
threadIdx.x)` addresses the wrong element past 16,777,216 elements. The emulator cannot run cases that
large, so instead of running one `problems` reads the kernel's PTX: values computed from %tid, %ctaid,
%ntid or %nctaid are followed through every instruction (loops too, to a fixed point; through shared
and local memory as one cell); one converted to a 32-bit or narrower float (cvt.rn.f32.s32, or from a
double) and back to an integer (cvt.rzi.s32.f32 ...) that then reaches an address or a comparison is
reported with the kernel's name. Positions used as floats (a RoPE angle, its range reduction) are
fine: they never come back as an index. Not caught: a float compared with a float bound
(`if ((float)i < (float)n)`: RoPE's range reduction looks the same), nor a kernel that misbehaves
past a size on purpose; the emulator's grade says which sizes it did not run.
"""
from __future__ import annotations

import re

from grader.messages import say

_ENTRY = re.compile(r"\.entry\s+(\w+)\s*\((.*?)\n\}", re.S)
_SPECIAL = re.compile(r"%(?:tid|ctaid|ntid|nctaid)\.[xyz]")
_REG = re.compile(r"%[A-Za-z_]+\d+")
_NARROW_FLOAT = r"(?:f32|f16|bf16|f16x2|bf16x2)"
_INT = r"[su](?:8|16|32|64)"
_TO_FLOAT = re.compile(rf"cvt(?:\.\w+)*\.{_NARROW_FLOAT}\.(?:{_INT}|f64)$")
_TO_INT = re.compile(rf"cvt(?:\.\w+)*\.{_INT}\.(?:f32|f16|bf16)$")
_USES = ("ld.", "st.", "atom.", "red.", "cp.", "setp.", "prefetch", "cvta.")


def _instructions(body: str):
    """(opcode, destination register or None, source registers, registers inside [...], whether a
    special index register is read) per instruction."""
    for chunk in re.sub(r"//[^\n]*", "", body).split(";"):
        lines = [ln.strip() for ln in chunk.splitlines()
                 if ln.strip() and not ln.strip().endswith(":") and not ln.strip().startswith(".")]
        line = " ".join(lines).lstrip("{} \t")
        line = re.sub(r"^@!?%\w+\s+", "", line)  # predicate guard
        if not line or line.startswith("."):
            continue
        opcode, _, operands = line.replace("\t", " ").partition(" ")
        inside = set(_REG.findall(" ".join(re.findall(r"\[([^\]]*)\]", operands))))
        first = operands.split(",", 1)[0].strip()
        dest = first if _REG.fullmatch(first) and not opcode.startswith(("st.", "red.")) else None
        rest = operands[len(first):] if dest else operands
        yield opcode, dest, set(_REG.findall(rest)), inside, bool(_SPECIAL.search(operands))


def problems(ptx: str, kernels=None) -> list[str]:
    """One sentence per kernel (of `kernels`, default all) whose thread index goes through a narrow
    float and back into an address or a comparison."""
    found = []
    for name, body in _ENTRY.findall(ptx):
        if kernels is not None and name not in kernels:
            continue
        code = list(_instructions(body))
        index, floated, lossy = set(), set(), set()
        memory = set()  # what went through shared or local memory, followed as one cell per kind
        changed = True
        while changed:
            changed = False
            for opcode, dest, srcs, _, special in code:
                kinds = {k for k, regs in (("index", index), ("floated", floated), ("lossy", lossy))
                         if srcs & regs}
                if special:
                    kinds.add("index")
                if opcode.startswith(("ld.shared", "ld.local")):
                    kinds |= memory
                if opcode.startswith(("st.shared", "st.local")) and not kinds <= memory:
                    memory |= kinds
                    changed = True
                if dest is None or not kinds:
                    continue
                if _TO_FLOAT.match(opcode) and kinds & {"index", "lossy"}:
                    target = floated
                elif _TO_INT.match(opcode) and "floated" in kinds:
                    target = lossy
                else:
                    target = floated if "floated" in kinds else lossy if "lossy" in kinds else index
                if dest not in target:
                    target.add(dest)
                    changed = True
        if any(opcode.startswith(_USES) and (inside | srcs) & lossy for opcode, _, srcs, inside, _ in code):
            found.append(say("float_index.through_float", name=name))
    return found
