"""Emulator: integer and bit instructions, compares and conversions, against hand-computed values."""
import numpy as np
import pytest

from grader.emulator.testing import run_ptx

M32 = 0xFFFFFFFF

CASES = [
    # (name, body computing %r2, expected uint32 in thread 0)
    ("add.s32 wraps", "add.s32 %r2, 2147483647, 1;", 0x80000000),
    ("sub.u32 wraps", "sub.u32 %r2, 0, 1;", M32),
    ("add.sat.s32 clamps", "add.sat.s32 %r2, 2147483647, 5;", 0x7FFFFFFF),
    ("mul.lo.s32", "mul.lo.s32 %r2, -3, 7;", (-21) & M32),
    ("mul.hi.s32", "mul.hi.s32 %r2, -3, 1073741824;", M32),          # -3 * 2^30 >> 32 = -1
    ("mul.hi.u32", "mul.hi.u32 %r2, 4294967295, 4294967295;", 0xFFFFFFFE),
    ("mul.wide.s32 low", "mul.wide.s32 %rd6, -2, 3; cvt.u32.u64 %r2, %rd6;", (-6) & M32),
    ("mul.wide.s32 high", "mul.wide.s32 %rd6, -2, 3; mov.b64 {%r3, %r2}, %rd6;", M32),
    ("mul.wide.u32 high", "mul.wide.u32 %rd6, 4294967295, 2; mov.b64 {%r3, %r2}, %rd6;", 1),
    ("mul.hi.u64", "mov.u64 %rd6, -1; mul.hi.u64 %rd7, %rd6, %rd6; cvt.u32.u64 %r2, %rd7;", 0xFFFFFFFE),
    ("mul.hi.s64", "mov.u64 %rd6, -1; mul.hi.s64 %rd7, %rd6, 5; cvt.u32.u64 %r2, %rd7;", M32),
    ("mad.lo.s32", "mad.lo.s32 %r2, 6, 7, -2;", 40),
    ("mad.wide.u32", "mov.u64 %rd6, 10; mad.wide.u32 %rd7, 65536, 65536, %rd6; mov.b64 {%r3, %r2}, %rd7;", 1),
    ("mul24.lo.u32", "mul24.lo.u32 %r2, 16777217, 3;", 3),                # only the low 24 bits count
    ("div.s32 truncates", "div.s32 %r2, -7, 2;", (-3) & M32),
    ("rem.s32 keeps the sign", "rem.s32 %r2, -7, 2;", M32),
    ("div.u32", "div.u32 %r2, 4294967295, 16;", 0x0FFFFFFF),
    ("div.u64", "mov.u64 %rd6, 1000000000000; div.u64 %rd7, %rd6, 1000; cvt.u32.u64 %r2, %rd7;", 1000000000),
    ("rem.u32", "rem.u32 %r2, 100, 7;", 2),
    ("shl clamps at 32", "shl.b32 %r2, 1, 40;", 0),
    ("shr.s32 fills the sign", "shr.s32 %r2, -8, 40;", M32),
    ("shr.u32", "shr.u32 %r2, 2147483648, 31;", 1),
    ("shl.b64 across halves", "mov.u64 %rd6, 1; shl.b64 %rd7, %rd6, 33; mov.b64 {%r3, %r2}, %rd7;", 2),
    ("shf.l.wrap", "shf.l.wrap.b32 %r2, 2147483648, 1, 1;", 3),         # hi:lo = 1:0x80000000 << 1
    ("shf.r.clamp", "shf.r.clamp.b32 %r2, 0, 1, 40;", 1),                # (1:0) >> 32 (clamped)
    ("bfe.u32", "bfe.u32 %r2, -1412623820, 8, 8;", 0x12),               # 0xABCD1234
    ("bfe.s32 sign-extends", "bfe.s32 %r2, 61440, 12, 4;", M32),        # field 0xF -> -1
    ("bfi.b32", "bfi.b32 %r2, 15, 305419896, 8, 4;", 0x12345F78),
    ("prmt.b32", "prmt.b32 %r2, 50462976, 117835012, 20800;", 0x05010400),  # 0x03020100, 0x07060504, 0x5140
    ("prmt.b32 sign replicate", "prmt.b32 %r2, 128, 0, 8;", 0x808080FF),  # selector 8: byte 0's sign
    ("popc", "popc.b32 %r2, 61680;", 8),
    ("popc.b64", "mov.u64 %rd6, -1; popc.b64 %r2, %rd6;", 64),
    ("clz", "clz.b32 %r2, 1;", 31),
    ("clz of 0", "clz.b32 %r2, 0;", 32),
    ("brev", "brev.b32 %r2, 1;", 0x80000000),
    ("bfind.u32", "bfind.u32 %r2, 1024;", 10),
    ("bfind of 0", "bfind.u32 %r2, 0;", M32),
    ("lop3 xor3", "lop3.b32 %r2, 240, 204, 170, 150;", 0xF0 ^ 0xCC ^ 0xAA),
    ("and/or/xor/not", "and.b32 %r3, 12, 10; or.b32 %r4, %r3, 1; xor.b32 %r5, %r4, 255; not.b32 %r2, %r5;",
     ~((((12 & 10) | 1) ^ 255)) & M32),
    ("min.s32", "min.s32 %r2, -1, 1;", M32),
    ("min.u32", "min.u32 %r2, -1, 1;", 1),
    ("max.s32", "max.s32 %r2, -5, -9;", (-5) & M32),
    ("abs/neg.s32", "abs.s32 %r3, -9; neg.s32 %r2, %r3;", (-9) & M32),
    ("setp.lt.s32 vs u32", "setp.lt.s32 %p1, -1, 1; setp.lt.u32 %p2, -1, 1; selp.u32 %r3, 2, 0, %p1; "
                           "selp.u32 %r4, 1, 0, %p2; or.b32 %r2, %r3, %r4;", 2),
    ("setp with and and !p", "setp.eq.s32 %p1, 1, 1; setp.ne.and.s32 %p2|%p3, 1, 2, !%p1; "
                             "selp.u32 %r3, 1, 0, %p2; selp.u32 %r4, 2, 0, %p3; or.b32 %r2, %r3, %r4;", 0),
    ("setp.hs.u64", "mov.u64 %rd6, -1; setp.hs.u64 %p1, %rd6, 5; selp.u32 %r2, 7, 9, %p1;", 7),
    ("cvt.s64.s32 sign-extends", "cvt.s64.s32 %rd6, -1; mov.b64 {%r3, %r2}, %rd6;", M32),
    ("cvt.u64.u32 zero-extends", "cvt.u64.u32 %rd6, -1; mov.b64 {%r3, %r2}, %rd6;", 0),
    ("cvt.u32.u64 truncates", "mov.u64 %rd6, 4294967301; cvt.u32.u64 %r2, %rd6;", 5),
    ("cvt.sat.s16.s32", "cvt.sat.s16.s32 %h1, 40000; cvt.s32.s16 %r2, %h1;", 32767),
    ("cvt.s32.s16", "mov.b16 %h1, 65535; cvt.s32.s16 %r2, %h1;", M32),
    ("mov pack/unpack b16", "mov.b32 {%h1, %h2}, 305419896; mov.b32 %r2, {%h2, %h1};", 0x56781234),
    ("xor.pred / not.pred", "setp.eq.s32 %p1, 1, 1; not.pred %p2, %p1; xor.pred %p3, %p1, %p2; "
                            "selp.u32 %r2, 1, 0, %p3;", 1),
]


@pytest.mark.parametrize("body, expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_integer_instruction(body, expected):
    assert int(run_ptx(body, threads=1)[0]) == expected


def test_per_thread_values_and_special_registers():
    out = run_ptx("mov.u32 %r3, %laneid; mov.u32 %r4, %ntid.x; mad.lo.s32 %r2, %r3, 1000, %r4;", threads=40)
    lane = np.arange(40) % 32
    np.testing.assert_array_equal(out, lane * 1000 + 40)


def test_2d_block_and_grid_indices():
    body = ("mov.u32 %r3, %tid.y; mov.u32 %r4, %ctaid.x; mov.u32 %r5, %nctaid.x; "
            "mad.lo.s32 %r6, %r3, 100, %r4; mad.lo.s32 %r2, %r6, 10, %r5;"
            "mov.u32 %r7, %tid.x; mov.u32 %r8, %ntid.x; mad.lo.s32 %r9, %r3, %r8, %r7;"
            "mul.wide.u32 %rd6, %r4, 8; cvt.u64.u32 %rd7, %r9; add.s64 %rd8, %rd6, %rd7;"
            "shl.b64 %rd8, %rd8, 2; add.s64 %rd3, %rd1, %rd8;")
    out = run_ptx(body, threads=(4, 2), grid=3, out_size=24)
    ty = np.tile(np.repeat(np.arange(2), 4), 3)
    bx = np.repeat(np.arange(3), 8)
    np.testing.assert_array_equal(out, (ty * 100 + bx) * 10 + 3)
