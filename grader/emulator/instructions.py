"""Every instruction the emulator knows: the builders of ops.py (arithmetic, control, warp-level), memops
(loads, stores, atomics, cp.async, ldmatrix, mma.sync), async_copy (mbarrier, TMA) and wgmma, registered
by importing them; `decode` turns a PTX instruction into an executable Op."""
from grader.emulator import async_copy, ops, wgmma

decode = ops.decode
__all__ = ["decode", "async_copy", "wgmma"]
