"""Each PTX instruction decoded once into an `Op`: a numpy function over the threads that execute it.

`decode(prog, inst)` dispatches on the base opcode (`table.py`); modifiers (rounding, .ftz, .sat, types)
are read then, not at run time. An opcode or form without a builder raises `Unsupported` when the kernel
is loaded, naming the instruction and its CUDA source line. One module per family, each registering
its opcodes with `@table.builder` (an opcode registered twice raises):

- arith: integer and float arithmetic, the .approx functions; floats: the float forms they share
- bits: logic, shifts, bit fields, prmt, lop3; comparison: setp, selp, slct; convert: mov, cvt, cvta
- control: bra, ret, trap, no-ops; barriers: bar / barrier (named too); warp: shfl, vote, match, redux
- memory_access: ld, st, atom / red, cp.async, ldmatrix; printf: call (vprintf)
- async_copy: mbarrier, cp.async.bulk (TMA), fence.proxy.async, setmaxnreg
- tensor_cores: mma.sync and wgmma
"""
from grader.emulator.ops import (arith, async_copy, barriers, bits, comparison, control, convert,  # noqa: F401
                                 memory_access, printf, tensor_cores, warp)
from grader.emulator.ops.table import decode

__all__ = ["decode"]
