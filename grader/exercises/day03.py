"""Day 3: PTX inline asm, the GPU's approximate math, and warp shuffles.

The approximate instructions are not correctly rounded, so their checks allow each one the error that
the PTX ISA states for it (APPROX_BOUNDS), measured against numpy in float64 on the same float32 input.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from grader import bench, checks, device
from grader.exercises import Exercise
from grader.messages import say
from grader.references.tolerances import assert_within, ulp
from grader.technique import Technique

# ---- error bounds -------------------------------------------------------------------------------

@dataclass(frozen=True)
class Approx:
    """One approximate PTX instruction: what it computes, where it is checked, and the error the PTX ISA
    allows it, against numpy's float64 value at the same float32 input (`exact`):
    |got - exact| <= rel * |exact| + ulps * ulp(exact), except inside `abs_inside`, where the bound
    is absolute: |got - exact| <= rel."""
    op: int                      # the ptx_math kernel's `op` argument
    ptx: str
    exact: Callable[[np.ndarray], np.ndarray]
    domain: tuple[float, float]
    log_uniform: bool            # sample log-uniformly (every binade of the domain equally often)
    signed: bool                 # and give each input a random sign
    rel: float = 0.0
    ulps: float = 0.0
    abs_inside: tuple[float, float] | None = None
    bound: str = ""              # the catalogue's words for the bound (grader/messages.py)

    @property
    def stated(self) -> str:
        """The bound as the ISA states it, and the largest error seen, in the lessons' language."""
        return say(self.bound)

    def allowed(self, x: np.ndarray, exact: np.ndarray) -> np.ndarray:
        bound = self.rel * np.abs(exact) + self.ulps * ulp(exact)
        if self.abs_inside is not None:
            lo, hi = self.abs_inside
            bound = np.where((x > lo) & (x < hi), self.rel, bound)
        return bound


# The bounds are the PTX ISA's (PTX ISA 9.1, "Floating Point Instructions", each instruction's notes).
# Every float32 of each checked domain was run on an H100 (2026-11) against a float64 reference; the
# largest error seen is given beside each bound ("seen"): all within, tanh by far. One ulp of a float
# is 2^-24 to 2^-23 of its value.
APPROX_BOUNDS: dict[str, Approx] = {
    # "2 ulp from the correctly rounded result", which may itself be 0.5 ulp from the exact value.
    "exp2": Approx(0, "ex2.approx.ftz.f32", np.exp2, (-20.0, 20.0), False, False, ulps=2.5,
                   bound="day03.bound.exp2"),
    # log2(x) is near 0 for x near 1, where only an absolute bound can hold.
    "log2": Approx(1, "lg2.approx.ftz.f32", np.log2, (1e-3, 1e3), True, False, rel=2.0**-22,
                   abs_inside=(0.5, 2.0), bound="day03.bound.log2"),
    "rsqrt": Approx(2, "rsqrt.approx.ftz.f32", lambda x: 1.0 / np.sqrt(x), (1e-3, 1e3), True, False,
                    rel=2.0**-22.9, bound="day03.bound.rsqrt"),
    "rcp": Approx(3, "rcp.approx.ftz.f32", lambda x: 1.0 / x, (1e-3, 1e3), True, True, ulps=1.0,
                  bound="day03.bound.rcp"),
    # About 11 correct bits: fine for activations and fp16 / bf16 outputs, not for fp32 math.
    "tanh": Approx(4, "tanh.approx.f32", np.tanh, (-5.0, 5.0), False, False, rel=2.0**-11,
                   bound="day03.bound.tanh"),
    # Derived from the two above, not stated by the ISA. e^x = ex2(x * log2e): rounding the product
    # (2^-24 relative) and log2e itself (2^-24) each move the exponent by up to |x| 2^-24, which is a
    # relative error of |x| 2^-24 in e^x: 2 * 10 * 2^-24 over the domain, on top of ex2's 2.5 ulp.
    "exp": Approx(5, "ex2.approx.ftz.f32 of x * log2e", np.exp, (-10.0, 10.0), False, False,
                  rel=20 * 2.0**-24, ulps=2.5, bound="day03.bound.exp"),
    # ln x = lg2(x) * ln2: lg2's 2^-22 scaled by ln2 < 1, plus the product's rounding and that of ln2
    # (2^-24 + 2^-25 of |ln x|): under 2^-21, absolute inside (0.5, 2) as for lg2.
    "log": Approx(6, "lg2.approx.ftz.f32 times ln2", np.log, (1e-3, 1e3), True, False, rel=2.0**-21,
                  abs_inside=(0.5, 2.0), bound="day03.bound.log"),
}


# ---- exercise 1: PTX math -----------------------------------------------------------------------

def _launch_1d(n: int, block: int = 256, max_blocks: int = 1024):
    return (max(1, min(max_blocks, -(-n // block))),), (block,)


def sample(spec: Approx, rng: np.random.Generator, n: int) -> np.ndarray:
    """n float32 inputs in the spec's domain; its two ends come first (if n allows)."""
    lo, hi = spec.domain
    if spec.log_uniform:
        x = np.exp(rng.uniform(np.log(lo), np.log(hi), n))
    else:
        x = rng.uniform(lo, hi, n)
    if spec.signed:
        x *= rng.choice((-1.0, 1.0), n)
    ends = np.array([lo, hi])[:n]
    x[:ends.size] = ends
    return x.astype(np.float32)


def check_ptx_math(module, seed: int, op: str, n: int) -> None:
    if op not in APPROX_BOUNDS:
        raise ValueError(say("arg.one_of", what="op", value=op, known=", ".join(APPROX_BOUNDS)))
    spec = APPROX_BOUNDS[op]
    x = sample(spec, np.random.default_rng(seed), n)
    out = device.empty(n, "float32")
    grid, block = _launch_1d(n)
    device.launch(module.get_function("ptx_math"), grid, block,
                  (device.asarray(x), out, np.int32(n), np.int32(spec.op)), what=f"ptx_math ({op})")
    exact = spec.exact(x.astype(np.float64))
    assert_within(device.to_host(out), exact, spec.allowed(x, exact), inputs=x, seed=seed,
                  name=say("name.day03.ptx_math", op=op, ptx=spec.ptx, n=n, stated=spec.stated))


# Throughput of exp: the math library's expf, the intrinsic __expf, and the bare ex2.approx. Each thread
# runs four independent chains v = f(-v) (v stays in (0, 1]); four chains give each warp independent
# work while one SFU result is pending.
EXP_SOURCE = r"""
#include <course/math.cuh>
struct LibExpf { COURSE_INLINE float operator()(float x) const { return expf(x); } };
struct FastExpf { COURSE_INLINE float operator()(float x) const { return __expf(x); } };
struct PtxExp2 { COURSE_INLINE float operator()(float x) const { return course::math::ptx_exp2(x); } };

template <typename F>
__device__ void chains(float* out, int iters) {
  F f;
  float a = threadIdx.x * 1e-3f, b = a + 0.25f, c = a + 0.5f, d = a + 0.75f;
  for (int i = 0; i < iters; ++i) { a = f(-a); b = f(-b); c = f(-c); d = f(-d); }
  out[course::global_thread_id()] = a + b + c + d;  // stored, so that nothing is optimised away
}
extern "C" __global__ void exp_expf(float* out, int iters) { chains<LibExpf>(out, iters); }
extern "C" __global__ void exp_fast_expf(float* out, int iters) { chains<FastExpf>(out, iters); }
extern "C" __global__ void exp_ptx_exp2(float* out, int iters) { chains<PtxExp2>(out, iters); }
"""
EXP_KERNELS = {"expf (math library)": "exp_expf", "__expf (intrinsic)": "exp_fast_expf",
               "ptx_exp2 (ex2.approx.ftz)": "exp_ptx_exp2"}


def bench_exp(modules: dict, quick: bool = False) -> bench.Report:
    """exp evaluations per second against the number of threads in the grid.

    The metric is "Texp/s": 10^12 exp evaluations per second, carried in Measurement.flops (one "flop"
    per exp). The ceiling is the bare ex2.approx.ftz (one MUFU.EX2 per exp), measured in the same run.
    `modules` (the student's ptx_math, already checked by the runner) is not timed: one exp per 8
    bytes moved is memory-bound, so this compiles its own compute-bound loops (EXP_SOURCE).
    """
    cp = device.require_gpu()
    module = device.load_source(EXP_SOURCE, "exp_throughput.cu")
    iters, block = 256, 256
    threads = [1 << k for k in ((14, 17, 20) if quick else (12, 14, 16, 18, 20, 22))]
    out = device.empty(threads[-1])
    report = bench.Report("exp throughput (4 chains of 256 exps per thread)", "threads in the grid", "Texp/s",
                          ceiling_name="the ex2.approx rate")
    for label, name in EXP_KERNELS.items():
        kernel = module.get_function(name)
        report.series[label] = [
            bench.measure(label, lambda t=t, k=kernel: k((t // block,), (block,), (out, np.int32(iters))),
                          size=t, flops=4.0 * iters * t) for t in threads]
    ceiling = report.series.pop("ptx_exp2 (ex2.approx.ftz)")
    report.ceiling = [bench.Measurement("ex2.approx.ftz (ceiling)", m.size, m.ms, flops=m.flops)
                      for m in ceiling]
    try:
        p = device.properties()
        clock_khz = cp.cuda.Device().attributes["ClockRate"]
        peak = 16 * p["sms"] * clock_khz * 1e3 / 1e12  # 16 MUFU results per clock per SM (sm_80, sm_90)
        report.notes.append(say("day03.sfu_peak", sms=p["sms"], ghz=f"{clock_khz / 1e6:.2f}", peak=f"{peak:.2f}"))
    except Exception:  # noqa: BLE001 - the note is optional
        pass
    return report


# ---- exercise 2: warp reduction -----------------------------------------------------------------

WARP_SUM_RTOL = 1e-6  # of the group's sum of |x|: five float additions per lane, each within 2^-24


def check_warp_reduce(module, seed: int, n: int) -> None:
    """Normal floats; the device copy of x runs on to the end of the last group with +inf, so a lane
    past n that reads x instead of joining with the identity (0, -inf) turns its group's sum and max
    into inf."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(n, dtype=np.float32)
    groups = -(-n // 32)
    padded = np.zeros(groups * 32)
    padded[:n] = x
    padded = padded.reshape(groups, 32)
    exact_sum, abs_sum = padded.sum(axis=1), np.abs(padded).sum(axis=1)
    exact_max = np.where(np.arange(groups * 32).reshape(groups, 32) < n, padded, -np.inf).max(axis=1)

    sums, maxes = device.empty(groups, "float32"), device.empty(groups, "float32")
    lanes = device.empty((groups, 32, 2), "float32")
    x_dev = device.asarray(np.concatenate([x, np.full(groups * 32 - n, np.inf, np.float32)]))
    device.launch(module.get_function("warp_reduce"), (-(-groups // 8),), (256,),
                  (x_dev, sums, maxes, lanes, np.int32(n)), what="warp_reduce")
    exact = checks.Tolerance(0.0, 0.0, False)  # max is exact: no rounding anywhere
    assert_within(device.to_host(sums), exact_sum, WARP_SUM_RTOL * abs_sum, seed=seed,
                  name=say("name.day03.sums", n=n))
    checks.assert_close(device.to_host(maxes), exact_max, tol=exact, seed=seed,
                        name=say("name.day03.maxes", n=n))
    got = device.to_host(lanes)
    assert_within(got[..., 0], np.repeat(exact_sum[:, None], 32, 1),
                  WARP_SUM_RTOL * abs_sum[:, None], seed=seed,
                  name=say("name.day03.all_sum", n=n))
    checks.assert_close(got[..., 1], np.repeat(exact_max[:, None], 32, 1), tol=exact, seed=seed,
                        name=say("name.day03.all_max", n=n))


# ---- exercise 3: GELU (tanh approximation) ------------------------------------------------------

SUFFIX = {"float32": "f32", "float16": "f16"}
GELU_C = np.sqrt(2.0 / np.pi)


def gelu_tanh_reference(x: np.ndarray) -> np.ndarray:
    """float64 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) with numpy's (exact) tanh."""
    x = x.astype(np.float64)
    return 0.5 * x * (1.0 + np.tanh(GELU_C * (x + 0.044715 * x**3)))


# The bound, per element. tanh.approx is off by up to rel * |tanh(u)| <= rel, and gelu multiplies that by
# 0.5 x: |error| <= 0.5 |x| rel_tanh. Float rounding of u and of 0.5 x (1 + t) adds a few ulp of at most
# |x| (|gelu(x)| <= |x|): 2^-20 |x|. fp16 adds the rounding of the result: half an ulp, at most
# 2^-11 |gelu(x)|, and near 0 one step of the fp16 subnormals, 2^-24. No relative
# bound can hold: for x = -3, 1 + tanh(u) is about 0.01, so a 2^-11 error in tanh is a 5% error in
# gelu; nor can a norm bound on a few elements (n = 1 is one relative error).
GELU_PER_ABS_X = 0.5 * APPROX_BOUNDS["tanh"].rel + 2.0**-20


def __getattr__(name: str) -> str:
    """GELU_ALLOWED, the GELU check's bound in words, in the lessons' language (the lesson plots it)."""
    if name == "GELU_ALLOWED":
        return say("day03.gelu_allowed")
    raise AttributeError(name)


def check_gelu_tanh(module, seed: int, n: int, dtype: str) -> None:
    if dtype not in SUFFIX:
        raise ValueError(say("arg.one_of", what="dtype", value=dtype, known=", ".join(SUFFIX)))
    x = (3 * np.random.default_rng(seed).standard_normal(n)).astype(device.dtype(dtype))
    out = device.empty(n, dtype)
    vec = 16 // device.dtype(dtype).itemsize
    grid, block = _launch_1d(-(-n // vec), max_blocks=4096)
    device.launch(module.get_function(f"gelu_tanh_{SUFFIX[dtype]}"), grid, block,
                  (out, device.asarray(x), np.int64(n)), what=f"gelu_tanh_{SUFFIX[dtype]}")
    exact = gelu_tanh_reference(x)
    allowed, why = GELU_PER_ABS_X * np.abs(x.astype(np.float64)), say("day03.gelu_allowed")
    if dtype == "float16":
        allowed, why = allowed + 2.0**-11 * np.abs(exact) + 2.0**-24, why + say("day03.to_fp16")
    assert_within(device.to_host(out), exact, allowed, inputs=x, seed=seed,
                  name=say("name.day03.gelu", dtype=dtype, n=n, why=why))


# ---- exercise 4: type punning, float <-> bfloat16 by bits -------------------------------------

def bf16_bits_reference(x: np.ndarray) -> np.ndarray:
    """The bfloat16 nearest to each float32 (ties to even) as its 16 bits in uint32, computed on the
    integers; NaN inputs give a quiet NaN of the same sign (0x40 set in the mantissa)."""
    u = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    rounded = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16) & 0xFFFF
    nan = (u & 0x7FFFFFFF) > 0x7F800000
    return np.where(nan, (u >> 16) | 0x40, rounded).astype(np.uint32)


def bf16_bits_input(rng: np.random.Generator, n: int) -> np.ndarray:
    """Floats over every binade, and the cases that catch a wrong rounding: exact ties with an even and an
    odd kept part, the values next to them, the largest floats (round up to inf), subnormals, +-0, +-inf,
    NaNs (one whose payload sits in the low 16 bits only: truncating would make it an infinity)."""
    x = (rng.choice((-1.0, 1.0), n) * np.exp2(rng.uniform(-130, 128, n))).astype(np.float32)
    special = np.array([0x3F808000, 0x3F818000, 0x3F808001, 0x3F807FFF, 0xBF818000, 0x7F7FFFFF, 0x7F7F8000,
                        0x7F7F7FFF, 0x00000001, 0x00018000, 0x80000000, 0x00000000, 0x7F800000, 0xFF800000,
                        0x7FC00000, 0x7F800001, 0xFF800001], np.uint32).view(np.float32)
    k = min(n, special.size)
    x[rng.permutation(n)[:k]] = special[:k]
    return x


def check_bf16_bits(module, seed: int, n: int) -> None:
    x = bf16_bits_input(np.random.default_rng(seed), n)
    expected = bf16_bits_reference(x)
    bits, packed, packed_hw = device.empty(n, "uint32"), device.empty(n // 2, "uint32"), device.empty(n // 2, "uint32")
    back = device.empty(n, "float32")
    grid, block = _launch_1d(n)
    device.launch(module.get_function("bf16_bits"), grid, block,
                  (device.asarray(x), bits, back, packed, packed_hw, np.int64(n)), what="bf16_bits")
    replay = checks.replay(seed)
    got = device.to_host(bits)
    is_nan = ((expected & 0x7FFF) > 0x7F80)
    # a NaN may come back as any NaN; every other value bit for bit
    wrong = np.flatnonzero(np.where(is_nan, ((got & 0x7FFF) <= 0x7F80) | (got > 0xFFFF), got != expected))
    if wrong.size:
        i = wrong[0]
        xb = int(x.view(np.uint32)[i])
        hint = (say("day03.toward_zero") if got[i] == xb >> 16 and got[i] != expected[i]
                else say("day03.tie") if xb & 0xFFFF == 0x8000 else "")
        raise AssertionError(say("day03.bits", n=n, wrong=wrong.size, i=i, x=repr(x[i]), bits=f"{xb:#010x}",
                                 expected=f"{expected[i]:#06x}", got=f"{int(got[i]):#x}", hint=hint, replay=replay))
    exact_back = (expected.astype(np.uint32) << 16).view(np.float32)
    got_back = device.to_host(back)
    bad = np.flatnonzero(~((got_back.view(np.uint32) == exact_back.view(np.uint32)) |
                           (np.isnan(got_back) & np.isnan(exact_back))))
    if bad.size:
        i = bad[0]
        raise AssertionError(say("day03.back", n=n, wrong=bad.size, i=i, bits=f"{expected[i]:#06x}",
                                 expected=repr(exact_back[i]), got=repr(got_back[i]), replay=replay))
    pairs = expected[0:2 * (n // 2):2] | expected[1:2 * (n // 2):2] << 16
    for name, arr in (("packed", packed), ("packed_hw", packed_hw)):
        got = device.to_host(arr)
        half_nan = [((pairs >> s) & 0x7FFF) > 0x7F80 for s in (0, 16)]
        same = np.ones(got.shape, bool)
        for s, nan in zip((0, 16), half_nan):
            g, e = (got >> s) & 0xFFFF, (pairs >> s) & 0xFFFF
            same &= np.where(nan, (g & 0x7FFF) > 0x7F80, g == e)
        bad = np.flatnonzero(~same)
        if bad.size:
            j = bad[0]
            swapped = ((got[j] >> 16) | (got[j] << 16)) & 0xFFFFFFFF == pairs[j]
            raise AssertionError(say(
                "day03.packed", name=name, n=n, wrong=bad.size, words=n // 2, j=j, i0=2 * j, x0=repr(x[2 * j]),
                i1=2 * j + 1, x1=repr(x[2 * j + 1]), expected=f"{int(pairs[j]):#010x}", got=f"{int(got[j]):#010x}",
                swapped=say("day03.swapped") if swapped else "", replay=replay))


PTX_MATH_TECHNIQUE = Technique(
    "your own inline PTX for each SFU instruction (asm with ex2/lg2/rsqrt/rcp/tanh .approx)",
    require=(r"MUFU\.EX2", r"MUFU\.LG2", r"MUFU\.RSQ", r"MUFU\.RCP", r"MUFU\.TANH"),
    source_require=tuple((rf'asm\s*(volatile\s*)?\(\s*"{ins}\.approx', f"asm statement with {ins}.approx (my_{fn})")
                         for ins, fn in (("ex2", "exp2"), ("lg2", "log2"), ("rsqrt", "rsqrt"), ("rcp", "rcp"),
                                         ("tanh", "tanh"))),
    source_forbid=((r"\b(__)?(exp2|exp|exp10|log2|log|log10|rsqrt|sqrt|tanh|pow)f?\s*\(|__fdividef|__fdiv_r[nzdu]|"
                    r"__frcp_r[nzdu]|__frsqrt_rn|__fsqrt_r[nzdu]", "a math-library call (exp2f, log2f, rsqrtf, "
                    "__fdividef, tanhf, ...) instead of inline asm"),
                   (r"course::math|\bptx_(exp2|log2|rsqrt|rcp|tanh)\s*\(", "course::math's wrappers")))

WARP_REDUCE_TECHNIQUE = Technique(
    "a butterfly of register exchanges (your shfl.sync.bfly in inline asm), no shared memory",
    require=(r"SHFL\.BFLY",), forbid=(r"STS\b", r"LDS\b", r"ATOMS"),
    source_require=((r'asm\s*(volatile\s*)?\(\s*"shfl\.sync\.bfly\.b32', "asm statement with shfl.sync.bfly.b32"),),
    source_forbid=((r"__shfl\w*_sync|course::math::shfl|__reduce_\w+_sync|cub::",
                    "the library's shuffles or reductions (__shfl_xor_sync, course::math::shfl_xor_sync, cub)"),))

GELU_TECHNIQUE = Technique(
    "tanh.approx on the SFU (MUFU.TANH) and 16-byte accesses (LDG.E.128)",
    require=(r"MUFU\.TANH", r"LDG\.E\.128"),
    source_require=((r'asm\s*(volatile\s*)?\(\s*"tanh\.approx\.f32', "asm statement with tanh.approx.f32"),),
    source_forbid=((r"\b(__)?tanhf?\s*\(|course::math", "tanhf or course::math's ptx_tanh"),))

BF16_TECHNIQUE = Technique(
    "the conversion done on the bits (__float_as_uint and integer rounding) and cvt.rn.bf16x2.f32 in asm",
    source_require=((r"__float_as_uint|__float_as_int", "__float_as_uint (the float's bits)"),
                    (r'asm\s*(volatile\s*)?\(\s*"cvt\.rn\.bf16x2\.f32', "asm statement with cvt.rn.bf16x2.f32")),
    source_forbid=((r"__float2bfloat16|__bfloat162float|__floats2bfloat162|__float22bfloat162|cuda_bf16|"
                    r"__nv_bfloat16", "the library's bfloat16 conversions or types"),))


EXERCISES = (
    Exercise("day03", "ptx_math", "ptx_math.cu", "PTX inline asm: ex2, lg2, rsqrt, rcp, tanh, their errors",
             check_ptx_math,
             tuple({"op": op, "n": n} for op in APPROX_BOUNDS for n in (1, 1000, (1 << 20) + 3)),
             bench=bench_exp, technique=(PTX_MATH_TECHNIQUE,)),
    Exercise("day03", "warp_reduce", "warp_reduce.cu", "butterfly warp reduction (sum, max) with shuffles",
             check_warp_reduce, tuple({"n": n} for n in (1, 31, 32, 33, 1000, (1 << 20) + 5)),
             technique=(WARP_REDUCE_TECHNIQUE,)),
    Exercise("day03", "gelu_tanh", "gelu_tanh.cu", "GELU (tanh form) on tanh.approx, fp32 and fp16",
             check_gelu_tanh,
             tuple({"n": n, "dtype": dt} for dt in SUFFIX for n in (1, 7, 8, 9, 1000, 4097, (1 << 20) + 3)),
             technique=(GELU_TECHNIQUE,)),
    Exercise("day03", "bf16_bits", "bf16_bits.cu", "type punning: float <-> bfloat16 by bits, packed pairs",
             check_bf16_bits, tuple({"n": n} for n in (1, 2, 17, 33, 1000, 4097, (1 << 20) + 1)),
             technique=(BF16_TECHNIQUE,)),
)
