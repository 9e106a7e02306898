"""Operands resolved once at decode time: registers to slots, immediates to numpy scalars, symbols to
addresses. Each becomes a small function of (state, sel): sel is None (every thread of the chunk) or a
sorted index array of the threads executing the instruction.
"""
from __future__ import annotations

import re

import numpy as np

from grader.emulator.values import NP_TYPES, parse_number
from grader.messages import say

_SPECIAL = re.compile(r"^%(tid|ntid|ctaid|nctaid)\.([xyz])$|^%(laneid|warpid|nwarpid|smid|nsmid|gridid|"
                      r"clock|clock64|globaltimer|lanemask_eq|lanemask_lt|lanemask_le|lanemask_gt|"
                      r"lanemask_ge|dynamic_smem_size|total_smem_size|clock_hi|globaltimer_lo|"
                      r"globaltimer_hi)$")


class Unsupported(Exception):
    """An instruction or operand form the emulator does not implement."""


def np_type(t: str) -> np.dtype:
    return np.dtype(NP_TYPES[t])


def _cast(v, dt: np.dtype):
    """Reinterpret (same width) or convert (other width: truncate / extend) to dt."""
    if v.dtype == dt:
        return v
    if v.dtype.itemsize == dt.itemsize and dt.kind != "b" and v.dtype.kind != "b":
        return v.view(dt)
    if dt.kind == "b":
        return v != 0
    if v.dtype.kind == "f" or dt.kind == "f":
        # a float held in a wider/narrower register: go through bits of the register's width
        raise Unsupported(say("emu.unsup.register_as", held=v.dtype, read=dt))
    return v.astype(dt)


def reader(prog, text: str, t: str):
    """f(state, sel) -> array (or numpy scalar) of the PTX type t."""
    text = text.strip()
    dt = np_type(t) if t in NP_TYPES else np.dtype(np.uint32)
    neg = text.startswith("!")
    if neg:
        text = text[1:]
    if text.startswith("%") or text in prog.reg_slot:
        m = _SPECIAL.match(text)
        if m:
            name = text[1:]
            return _special_reader(name, dt)
        slot, sdt = prog.reg(text)
        if sdt.kind == "b" and dt.kind != "b":
            def rd(st, sel, slot=slot):
                r = st.regs[slot]
                if r is None:
                    r = st.zeros(slot)
                return (r if sel is None else r[sel]).astype(dt)
            return rd
        if neg:
            def rd(st, sel, slot=slot):
                r = st.regs[slot]
                if r is None:
                    r = st.zeros(slot)
                return ~(r if sel is None else r[sel])
            return rd
        if sdt == dt:
            def rd(st, sel, slot=slot):
                r = st.regs[slot]
                if r is None:
                    r = st.zeros(slot)
                return r if sel is None else r[sel]
            return rd
        if sdt.itemsize == dt.itemsize and dt.kind != "b":
            def rd(st, sel, slot=slot):
                r = st.regs[slot]
                if r is None:
                    r = st.zeros(slot)
                return (r if sel is None else r[sel]).view(dt)
            return rd
        if dt.kind == "f":
            raise Unsupported(say("emu.unsup.read_as", text=text, held=sdt, read=t))

        def rd(st, sel, slot=slot):
            r = st.regs[slot]
            if r is None:
                r = st.zeros(slot)
            return _cast(r if sel is None else r[sel], dt)
        return rd
    v = immediate(text, t)
    if v is not None:
        return lambda st, sel, v=v: v
    sym = prog.symbol(text.split("+")[0].strip())
    if sym is not None:
        off = int(text.split("+")[1], 0) if "+" in text else 0
        v = np.array(sym + off).astype(dt)[()] if dt.kind in "iu" else np.uint64(sym + off)
        return lambda st, sel, v=v: v
    raise Unsupported(say("emu.unsup.operand", text=text))


_NUMBER = re.compile(r"^[-+]?(0[xXfFdD][0-9a-fA-F]+|\d+(\.\d*)?([eE][-+]?\d+)?)U?$")


def immediate(text: str, t: str):
    """An immediate operand's value as a numpy scalar of the PTX type t; None for any other operand."""
    text = text.strip()
    if not _NUMBER.match(text):
        return None
    return parse_number(text, t if t in NP_TYPES else "u32")


def _special_reader(name: str, dt: np.dtype):
    def rd(st, sel):
        v = st.special(name)
        if isinstance(v, np.ndarray) and sel is not None:
            v = v[sel]
        return _cast(np.asarray(v), dt) if isinstance(v, np.ndarray) else dt.type(v)
    return rd


def writer(prog, text: str, t: str | None = None):
    """f(state, sel, value): store into a register (or discard into `_`)."""
    text = text.strip()
    if text == "_":
        return lambda st, sel, v: None
    if not text.startswith("%") and text not in prog.reg_slot:
        raise Unsupported(say("emu.unsup.destination", text=text))
    slot, sdt = prog.reg(text)

    def wr(st, sel, v, slot=slot, sdt=sdt):
        v = np.asarray(v)
        if v.dtype != sdt:
            if sdt.kind == "b":
                v = v != 0
            elif v.dtype.itemsize == sdt.itemsize and v.dtype.kind != "b":
                v = v.view(sdt)
            elif v.dtype.kind == "f":
                v = v.view(f"u{v.dtype.itemsize}").astype(sdt)
            else:
                v = v.astype(sdt)
        if sel is None:
            if v.ndim == 0 or v.shape[0] != st.n:
                v = np.full(st.n, v, sdt)
            st.regs[slot] = v
        else:
            r = st.regs[slot]
            if r is None:
                r = st.regs[slot] = np.zeros(st.n, sdt)
            r[sel] = v
    return wr


_ADDR = re.compile(r"^\[\s*([^\]+]+?)\s*(?:\+\s*(-?\s*(?:0[xX][0-9a-fA-F]+|\d+)))?\s*\]$")


def address(prog, text: str):
    """[reg+imm] / [sym+imm] / [imm] -> (f(state, sel) -> uint64 addresses, symbol or None)."""
    m = _ADDR.match(text.strip())
    if not m:
        raise Unsupported(say("emu.unsup.address", text=text))
    base, off = m.group(1), int(m.group(2).replace(" ", ""), 0) if m.group(2) else 0
    if base.startswith("%") or base in prog.reg_slot:
        slot, sdt = prog.reg(base)

        def rd(st, sel, slot=slot, off=off):
            r = st.regs[slot]
            if r is None:
                r = st.zeros(slot)
            a = (r if sel is None else r[sel]).astype(np.uint64)
            return a + np.uint64(off & 0xFFFFFFFFFFFFFFFF) if off else a
        return rd, None
    if re.match(r"^-?(0[xX][0-9a-fA-F]+|\d+)$", base):
        v = np.uint64(int(base, 0) + off)
        return (lambda st, sel: v), None
    sym = prog.symbol(base)
    if sym is None:
        raise Unsupported(say("emu.unsup.symbol", base=base, text=text))
    v = np.uint64(sym + off)
    return (lambda st, sel: v), base
