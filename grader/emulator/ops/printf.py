"""call: only vprintf (NVRTC inlines the kernel's own functions, or `call` is expanded when the kernel is
decoded); the format and its arguments read from device memory, printed in thread order after the launch."""
from __future__ import annotations

import re
import struct

import numpy as np

from grader.emulator.machine import NORMAL, Op
from grader.emulator.operands import Unsupported
from grader.emulator.ops.memory_access import resolve
from grader.emulator.ops.table import builder
from grader.messages import say


_FMT = re.compile(r"%([-+ #0]*)(\d+|\*)?(?:\.(\d+|\*))?(hh|h|ll|l|z|j|t)?([diouxXcsfFeEgGaAp%])")


@builder("call")
def build_call(prog, inst):
    ops = inst.operands
    # call{.uni} (ret), func, (params)  |  call{.uni} func, (params)
    names = [o.strip() for o in ops]
    func = next(o for o in names if not o.startswith("("))
    params = [o.strip("() ") for o in names[names.index(func) + 1:]]
    params = [p for q in params for p in q.split(",") if p.strip()]
    if func != "vprintf":
        raise Unsupported(say("emu.unsup.call", func=func))
    fmt_param, args_param = (prog.symbol(p.strip()) for p in params[:2])
    ret = names[0].strip("()") if names[0].startswith("(") else None
    ret_addr = prog.symbol(ret) if ret else None
    op = Op(NORMAL, None, inst)

    def fn(st, sel):
        sel = st.idx(sel)
        fmt_ptr = st.cparam.view(np.uint64)[(sel * st.Pp + fmt_param - st.prog.call_param_base) // 8]
        arg_ptr = st.cparam.view(np.uint64)[(sel * st.Pp + args_param - st.prog.call_param_base) // 8]
        for i, t in enumerate(sel):
            st.launch.printed.append(_printf(st, op, int(t), int(fmt_ptr[i]), int(arg_ptr[i])))
        if ret_addr is not None:
            st.cparam.view(np.uint32)[(sel * st.Pp + ret_addr - st.prog.call_param_base) // 4] = 0
    op.fn = fn
    return op


def _read_bytes(st, op, t, addr, n):
    segs = resolve(st, op, np.array([t]), np.array([addr], np.uint64), None, 1, False)
    s = segs[0]
    return bytes(s.arr[int(s.off[0]):int(s.off[0]) + n])


def _cstring(st, op, t, addr):
    out = b""
    while True:
        chunk = _read_bytes(st, op, t, addr + len(out), 1)
        if chunk == b"\0" or len(out) > 4096:
            return out.decode(errors="replace")
        out += chunk


def _printf(st, op, t, fmt_addr, args_addr):
    fmt = _cstring(st, op, t, fmt_addr)
    out, pos, off = [], 0, 0
    for m in _FMT.finditer(fmt):
        out.append(fmt[pos:m.start()])
        pos = m.end()
        flags, width, prec, length, conv = m.groups()
        if conv == "%":
            out.append("%")
            continue
        if conv in "fFeEgGaA":
            size, kind = 8, "d"
        elif conv in "sp":
            size, kind = 8, "Q"
        elif length in ("ll", "l", "z", "j", "t"):
            size, kind = 8, "q" if conv in "di" else "Q"
        else:
            size, kind = 4, "i" if conv in "dic" else "I"
        off = -(-off // size) * size
        raw = _read_bytes(st, op, t, args_addr + off, size)
        off += size
        import struct
        v = struct.unpack("<" + kind, raw)[0]
        if conv == "s":
            out.append(_cstring(st, op, t, v))
            continue
        if conv == "p":
            out.append(f"0x{v:x}")
            continue
        spec = "%" + (flags or "") + (width or "") + (f".{prec}" if prec else "") + \
            {"u": "d", "i": "d"}.get(conv, conv)
        if conv == "c":
            v = chr(v & 0xFF)
        out.append(spec % v)
    out.append(fmt[pos:])
    return "".join(out)
