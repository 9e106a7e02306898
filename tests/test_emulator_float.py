"""Emulator: float32/64, half and bfloat16 arithmetic with PTX's rounding modes, conversions, and the
.approx instructions within the PTX ISA's stated bounds. Expectations are bit patterns worked out by
hand (comments give the reasoning)."""
import numpy as np
import pytest

from grader.emulator.testing import hexf, run_ptx

INF, FMAX = 0x7F800000, 0x7F7FFFFF


def f32(body):
    """Run a body leaving a float32 in %f2; its bits."""
    return int(run_ptx(body + " mov.b32 %r2, %f2;", threads=1)[0])


CASES = [
    # fma rounds once: (1 + 2^-12)^2 - (1 + 2^-11) = 2^-24 exactly; mul then add gives 0.
    ("fma.rn.f32 single rounding", "fma.rn.f32 %f2, 0f3F800800, 0f3F800800, 0fBF801000;", 0x33800000),
    ("mul then add rounds twice", "mul.rn.f32 %f3, 0f3F800800, 0f3F800800; add.f32 %f2, %f3, 0fBF801000;", 0),
    # exact = 1 + 2^-23 + 2^-24 - 2^-60: just below the midpoint, so 1 + 2^-23. Rounding to float64 first
    # lands on the midpoint and then ties to even (1 + 2^-22): the emulator must not.
    ("fma.rn.f32 no double rounding", "fma.rn.f32 %f2, 0f39800020, 0f397FFFC0, 0f3F800001;", 0x3F800001),
    ("fma.rm.f32", "fma.rm.f32 %f2, 0f3F800000, 0f3F800000, 0f30800000;", 0x3F800000),   # 1 + 2^-30 down
    ("fma.rp.f32", "fma.rp.f32 %f2, 0f3F800000, 0f3F800000, 0f30800000;", 0x3F800001),   # ... up
    ("add.rz.f32", "add.rz.f32 %f2, 0f3F800000, 0f33C00000;", 0x3F800000),               # 1 + 1.5 * 2^-24
    ("add.rn.f32 rounds up", "add.rn.f32 %f2, 0f3F800000, 0f33C00000;", 0x3F800001),
    ("add.rm.f32 negative", "add.rm.f32 %f2, 0fBF800000, 0fB0800000;", 0xBF800001),      # -1 - 2^-30 down
    ("sub.f32", "sub.f32 %f2, 0f40400000, 0f3F800000;", 0x40000000),                      # 3 - 1
    ("mul.rn.f32 overflow", "mul.rn.f32 %f2, 0f7F000000, 0f40000000;", INF),
    ("mul.rz.f32 overflow saturates", "mul.rz.f32 %f2, 0f7F000000, 0f40800000;", FMAX),
    ("div.rn.f32 1/3", "div.rn.f32 %f2, 0f3F800000, 0f40400000;", 0x3EAAAAAB),
    ("sqrt.rn.f32 2", "sqrt.rn.f32 %f2, 0f40000000;", 0x3FB504F3),
    ("rcp.rn.f32 3", "rcp.rn.f32 %f2, 0f40400000;", 0x3EAAAAAB),
    ("add.ftz flushes a subnormal", "add.ftz.f32 %f2, 0f00000001, 0f00000000;", 0),
    ("add keeps a subnormal", "add.f32 %f2, 0f00000001, 0f00000000;", 1),
    ("add.sat.f32", "add.sat.f32 %f2, 0f3F800000, 0f3F800000;", 0x3F800000),
    ("min.f32 ignores NaN", "min.f32 %f2, 0f7FFFFFFF, 0f3F800000;", 0x3F800000),
    ("max.NaN.f32 propagates", "max.NaN.f32 %f3, 0f7FFFFFFF, 0f3F800000; testp.notanumber.f32 %p1, %f3; "
                               "selp.f32 %f2, 0f3F800000, 0f00000000, %p1;", 0x3F800000),
    ("neg/abs.f32", "neg.f32 %f3, 0f3F800000; abs.f32 %f4, %f3; add.f32 %f2, %f3, %f4;", 0),
    ("cvt.rn.f32.s32 rounds", "cvt.rn.f32.s32 %f2, 16777217;", 0x4B800000),              # 2^24 + 1 -> 2^24
    ("cvt.rz.f32.s32", "cvt.rz.f32.s32 %f2, 16777219;", 0x4B800001),                    # 2^24 + 3 -> +2
    ("cvt.rn.f32.u64 big", "mov.u64 %rd6, 9007199254740993; cvt.rn.f32.u64 %f2, %rd6;", 0x5A000000),
    ("cvt.sat.f32.f32", "cvt.sat.f32.f32 %f2, 0f3FC00000;", 0x3F800000),
    ("cvt.sat.f32.f32 NaN", "cvt.sat.f32.f32 %f2, 0f7FFFFFFF;", 0),
    ("cvt.rni.f32.f32 ties to even", "cvt.rni.f32.f32 %f2, 0f40200000;", 0x40000000),  # 2.5 -> 2
    ("cvt.rn.f32.f64", "cvt.rn.f32.f64 %f2, 0d3FF0000010000000;", 0x3F800000),  # 1 + 2^-28 -> 1
    ("cvt.rp.f32.f64", "cvt.rp.f32.f64 %f2, 0d3FF0000010000000;", 0x3F800001),
    ("f64 fma exact", "fma.rn.f64 %fd1, 0d3FF0000004000000, 0d3FF0000004000000, 0dBFF0000008000000; "
                      "cvt.rn.f32.f64 %f2, %fd1;", 0x25800000),       # (1 + 2^-26)^2 - (1 + 2^-25) = 2^-52
    ("f64 div", "div.rn.f64 %fd1, 0d3FF0000000000000, 0d4008000000000000; mul.f64 %fd2, %fd1, 0d4008000000000000;"
                "cvt.rn.f32.f64 %f2, %fd2;", 0x3F800000),
]


@pytest.mark.parametrize("body, expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_float_instruction(body, expected):
    assert f32(body) == expected


def i32(body):
    return int(run_ptx(body, threads=1)[0])


INT_CASES = [
    ("cvt.rzi.s32.f32", "cvt.rzi.s32.f32 %r2, 0fC02CCCCD;", (-2) & 0xFFFFFFFF),          # -2.7
    ("cvt.rni.s32.f32 ties to even", "cvt.rni.s32.f32 %r2, 0f40600000;", 4),              # 3.5
    ("cvt.rmi.s32.f32", "cvt.rmi.s32.f32 %r2, 0fBF000000;", 0xFFFFFFFF),                 # -0.5
    ("cvt.rzi.s32.f32 saturates", "cvt.rzi.s32.f32 %r2, 0f501502F9;", 0x7FFFFFFF),       # 1e10
    ("cvt.rzi.u32.f32 of negative", "cvt.rzi.u32.f32 %r2, 0fC0000000;", 0),
    ("cvt.rzi.s32.f32 NaN", "cvt.rzi.s32.f32 %r2, 0f7FFFFFFF;", 0),
    # float16: 1 + 2^-11 is the midpoint of 1 and 1 + 2^-10: ties to even (1.0); 1 + 3 * 2^-11 goes up
    ("cvt.rn.f16.f32 tie", "cvt.rn.f16.f32 %h1, 0f3F801000; cvt.u32.u16 %r2, %h1;", 0x3C00),
    ("cvt.rn.f16.f32 tie up", "cvt.rn.f16.f32 %h1, 0f3F803000; cvt.u32.u16 %r2, %h1;", 0x3C02),
    ("cvt.rn.f16.f32 overflow", "cvt.rn.f16.f32 %h1, 0f477FF000; cvt.u32.u16 %r2, %h1;", 0x7C00),   # 65520
    ("cvt.rz.f16.f32 overflow", "cvt.rz.f16.f32 %h1, 0f477FF000; cvt.u32.u16 %r2, %h1;", 0x7BFF),
    ("cvt.rn.f16.f32 subnormal", "cvt.rn.f16.f32 %h1, 0f33800000; cvt.u32.u16 %r2, %h1;", 0x0001),  # 2^-24
    ("cvt.f32.f16", "mov.b16 %h1, 15360; cvt.f32.f16 %f1, %h1; mov.b32 %r2, %f1;", 0x3F800000),
    ("cvt.rn.bf16.f32 tie", "cvt.rn.bf16.f32 %h1, 0f3F808000; cvt.u32.u16 %r2, %h1;", 0x3F80),
    ("cvt.rn.bf16.f32 tie up", "cvt.rn.bf16.f32 %h1, 0f3F818000; cvt.u32.u16 %r2, %h1;", 0x3F82),
    ("cvt.rz.bf16.f32", "cvt.rz.bf16.f32 %h1, 0f3F81FFFF; cvt.u32.u16 %r2, %h1;", 0x3F81),
    ("cvt.f32.bf16", "mov.b16 %h1, 16258; cvt.f32.bf16 %f1, %h1; mov.b32 %r2, %f1;", 0x3F820000),
    ("cvt.rn.f16x2.f32", "cvt.rn.f16x2.f32 %r2, 0f40000000, 0f3F800000;", 0x40003C00),   # hi = a, lo = b
    ("cvt.rn.bf16x2.f32", "cvt.rn.bf16x2.f32 %r2, 0f40000000, 0f3F800000;", 0x40003F80),
    # half arithmetic: one rounding to the half type
    ("add.f16 tie", "mov.b16 %h1, 15360; mov.b16 %h2, 4096; add.f16 %h3, %h1, %h2; cvt.u32.u16 %r2, %h3;",
     0x3C00),                                                                             # 1 + 2^-11
    ("fma.rn.f16", "mov.b16 %h1, 15361; mov.b16 %h2, 15361; mov.b16 %h3, 48129; fma.rn.f16 %h4, %h1, %h2, %h3;"
                   "cvt.u32.u16 %r2, %h4;", 0x1401),  # (1+2^-10)^2 - (1+2^-10) = 2^-10 + 2^-20, exact
    ("mul.f16x2", "mul.f16x2 %r2, 1073757184, 1073757184;", 0x44003C00),                  # {2,1}*{2,1}
    ("fma.rn.bf16", "mov.b16 %h1, 16256; mov.b16 %h2, 16384; mov.b16 %h3, 16256; fma.rn.bf16 %h4, %h1, %h2, %h3;"
                    "cvt.u32.u16 %r2, %h4;", 0x4040),                                     # 1 * 2 + 1 = 3
    ("add.bf16x2", "add.bf16x2 %r2, 1065369472, 1065369472;", 0x40004000),                # {1,1}+{1,1}
    ("neg.f16", "mov.b16 %h1, 15360; neg.f16 %h2, %h1; cvt.u32.u16 %r2, %h2;", 0xBC00),
    ("abs.bf16", "mov.b16 %h1, 49024; abs.bf16 %h2, %h1; cvt.u32.u16 %r2, %h2;", 0x3F80),
    ("setp.ne.f32 NaN is false", "setp.ne.f32 %p1, 0f7FFFFFFF, 0f3F800000; selp.u32 %r2, 1, 0, %p1;", 0),
    ("setp.neu.f32 NaN is true", "setp.neu.f32 %p1, 0f7FFFFFFF, 0f3F800000; selp.u32 %r2, 1, 0, %p1;", 1),
    ("setp.nan.f32", "setp.nan.f32 %p1, 0f7FFFFFFF, 0f3F800000; selp.u32 %r2, 1, 0, %p1;", 1),
    ("setp.lt.f16", "mov.b16 %h1, 15360; mov.b16 %h2, 16384; setp.lt.f16 %p1, %h1, %h2; selp.u32 %r2, 1, 0, %p1;", 1),
    ("testp.subnormal", "testp.subnormal.f32 %p1, 0f00000010; selp.u32 %r2, 1, 0, %p1;", 1),
]


@pytest.mark.parametrize("body, expected", [c[1:] for c in INT_CASES], ids=[c[0] for c in INT_CASES])
def test_conversion_and_half(body, expected):
    assert i32(body) == expected


def test_approx_exact_points():
    assert f32(f"ex2.approx.ftz.f32 %f2, {hexf(3.0)};") == 0x41000000     # 8
    assert f32(f"lg2.approx.f32 %f2, {hexf(8.0)};") == 0x40400000         # 3
    assert f32(f"rsqrt.approx.f32 %f2, {hexf(4.0)};") == 0x3F000000       # 0.5
    assert f32(f"rcp.approx.ftz.f32 %f2, {hexf(4.0)};") == 0x3E800000     # 0.25
    assert f32("tanh.approx.f32 %f2, 0f00000000;") == 0
    assert f32("lg2.approx.f32 %f2, 0f00000000;") == 0xFF800000            # -inf


@pytest.mark.parametrize("op, exact, lo, hi, rel, ulps", [
    ("ex2.approx.ftz.f32", np.exp2, -20, 20, 0, 2.5),
    ("lg2.approx.ftz.f32", np.log2, 2.0, 1e3, 2.0**-22, 0),
    ("rsqrt.approx.ftz.f32", lambda x: 1 / np.sqrt(x), 1e-3, 1e3, 2.0**-22.9, 0),
    ("rcp.approx.ftz.f32", lambda x: 1 / x, 1e-3, 1e3, 0, 1),
    ("tanh.approx.f32", np.tanh, -5, 5, 2.0**-11, 0),
    ("sin.approx.f32", np.sin, -3, 3, 0, 0),
    ("cos.approx.f32", np.cos, -3, 3, 0, 0),
])
def test_approx_within_ptx_bounds(op, exact, lo, hi, rel, ulps):
    x = np.linspace(lo, hi, 64).astype(np.float32)
    out = run_ptx(f"ld.global.f32 %f1, [%rd4]; {op} %f2, %f1; mov.b32 %r2, %f2;", threads=64, inp=x)
    got = out.view(np.float32).astype(np.float64)
    ref = exact(x.astype(np.float64))
    if op.startswith(("sin", "cos")):
        bound = 2.0**-20.5 * np.ones_like(ref)                                  # absolute, in [-pi, pi]
    else:
        bound = rel * np.abs(ref) + ulps * np.spacing(np.abs(ref).astype(np.float32)).astype(np.float64)
    assert (np.abs(got - ref) <= bound).all()
