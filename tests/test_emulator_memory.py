"""Emulator: state spaces, vector accesses, atomics, cp.async, ldmatrix + mma.sync, printf, and what
it reports that a GPU does not (out of bounds, races, uninitialised reads, coalescing, bank conflicts,
unsupported instructions)."""
import numpy as np
import pytest

from grader import emulator
from grader.emulator import EmulatorFault, EmulatorWarning
from grader.emulator.testing import run_ptx

SMEM = ".shared .align 16 .b8 smem[4096];"


def test_vector_loads_and_stores():
    x = np.arange(128, dtype=np.float32) * 1.5
    body = """
    mul.wide.u32 %rd6, %r1, 16;
    add.s64 %rd7, %rd2, %rd6;
    ld.global.nc.v4.f32 {%f1, %f2, %f3, %f4}, [%rd7];
    add.f32 %f5, %f1, %f4;
    add.s64 %rd8, %rd1, %rd6;
    st.global.v4.f32 [%rd8], {%f5, %f2, %f3, %f1};"""
    got = run_ptx(body, threads=32, inp=x, out_dtype=np.float32, out_size=128, result=None).reshape(32, 4)
    v = x.reshape(32, 4)
    np.testing.assert_array_equal(got, np.stack([v[:, 0] + v[:, 3], v[:, 1], v[:, 2], v[:, 0]], 1))


def test_v2_u16_and_u8_widths():
    x = np.arange(64, dtype=np.uint16) * 1001
    body = """
    mul.wide.u32 %rd6, %r1, 4;
    add.s64 %rd7, %rd2, %rd6;
    ld.global.v2.u16 {%h1, %h2}, [%rd7];
    ld.global.u8 %r3, [%rd7+1];
    cvt.u32.u16 %r4, %h2;
    mad.lo.s32 %r2, %r3, 65536, %r4;"""
    got = run_ptx(body, inp=x)
    np.testing.assert_array_equal(got, (x[0::2] >> 8).astype(np.uint32) * 65536 + x[1::2])


def test_static_dynamic_local_const_and_generic():
    module = ".const .align 4 .b32 table[4] = {10, 20, 30, 40};\n.extern .shared .align 16 .b8 dyn[];"
    body = """
    and.b32 %r3, %r1, 3;
    mul.wide.u32 %rd6, %r3, 4;
    mov.u64 %rd7, table;
    add.s64 %rd8, %rd7, %rd6;
    ld.const.u32 %r4, [%rd8];                 // table[tid % 4]
    mov.u64 %rd9, dyn;
    mul.wide.u32 %rd10, %r1, 4;
    add.s64 %rd11, %rd9, %rd10;
    st.shared.u32 [%rd11], %r4;
    mov.u64 %rd12, depot;
    st.local.u32 [%rd12+4], %r1;              // a per-thread local slot
    cvta.local.u64 %rd13, %rd12;
    ld.u32 %r5, [%rd13+4];                    // read back through a generic address
    bar.sync 0;
    cvta.shared.u64 %rd14, %rd11;
    ld.u32 %r6, [%rd14];                      // generic address of shared memory
    add.s32 %r2, %r6, %r5;"""
    got = run_ptx(body, threads=64, module_decls=module, decls=SMEM + "\n.local .align 8 .b8 depot[8];",
                  shared_mem=256)
    np.testing.assert_array_equal(got, np.array([10, 20, 30, 40])[np.arange(64) % 4] + np.arange(64))


OOB = """
    .loc 1 42 7
    ld.global.u32 %r2, [%rd4+4];"""
FILE = '.file 1 "/course/days/day01/vector_add.cu"'


def test_out_of_bounds_global_read_names_line_block_and_thread():
    x = np.zeros(32, np.uint32)
    body = OOB.replace(".loc", "setp.ne.u32 %p1, %r1, 31;\n    @%p1 bra OK;\n    .loc") + "\nOK:"
    src_module = FILE + "\n"
    with pytest.raises(EmulatorFault) as e:
        run_ptx(body.replace("OK:", "OK:\n    mov.u32 %r2, 0;"), inp=x, module_decls=src_module)
    msg = str(e.value)
    assert "out-of-bounds global read of 4 bytes" in msg
    assert "block (0, 0, 0) thread (31, 0, 0)" in msg and "vector_add.cu:42" in msg
    assert "0 bytes past the end of a 128-byte allocation" in msg or "past the end" in msg


def test_out_of_bounds_shared_and_misaligned():
    body = "mov.u64 %rd6, smem; st.shared.u32 [%rd6+4096], %r1; mov.u32 %r2, 0;"
    with pytest.raises(EmulatorFault, match="out-of-bounds shared-memory write.*4096 bytes of shared"):
        run_ptx(body, threads=1, decls=SMEM)
    with pytest.raises(EmulatorFault, match="misaligned address"):
        run_ptx("ld.global.u32 %r2, [%rd1+2];", threads=1)


def test_atomics_serialise_and_return_old_values():
    body = """
    atom.global.add.u32 %r2, [%rd1+256], 1;      // out[64]: a counter every thread increments
    atom.global.add.f32 %f1, [%rd1+260], 0f3F800000;
    atom.global.inc.u32 %r3, [%rd1+264], 3;      // wraps after 3
    atom.global.max.s32 %r4, [%rd1+268], %r1;
    atom.global.cas.b32 %r5, [%rd1+272], 0, 77;  // only the first thread swaps
    red.global.add.u32 [%rd1+276], %r1;
    st.global.b32 [%rd3], %r2;"""
    out = run_ptx(body, threads=64, out_size=80, result=None)
    np.testing.assert_array_equal(np.sort(out[:64]), np.arange(64))
    assert out[64] == 64 and out[65].view(np.float32) == 64.0
    assert out[66] == 64 % 4 and out[67] == 63 and out[68] == 77 and out[69] == np.arange(64).sum()


def test_shared_atomics():
    body = """
    mov.u64 %rd6, smem;
    setp.eq.u32 %p1, %r1, 0;
    @%p1 st.shared.u32 [%rd6], 0;
    bar.sync 0;
    and.b32 %r3, %r1, 7;
    atom.shared.add.u32 %r4, [%rd6], %r3;
    bar.sync 0;
    ld.shared.u32 %r2, [%rd6];"""
    np.testing.assert_array_equal(run_ptx(body, threads=128, decls=SMEM), np.full(128, 16 * 28))


RACE = """
    mov.u64 %rd6, smem;
    mul.wide.u32 %rd7, %r1, 4;
    add.s64 %rd8, %rd6, %rd7;
    st.shared.u32 [%rd8], %r1;
    {BARRIER}
    add.s32 %r3, %r1, 32;
    and.b32 %r3, %r3, 63;
    mul.wide.u32 %rd9, %r3, 4;
    add.s64 %rd10, %rd6, %rd9;
    ld.shared.u32 %r2, [%rd10];"""


def test_race_between_warps_is_an_error_and_a_barrier_fixes_it():
    with pytest.raises(EmulatorFault, match="shared-memory race: `ld.shared.u32"):
        run_ptx(RACE.replace("{BARRIER}", ""), threads=64, decls=SMEM)
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = run_ptx(RACE.replace("{BARRIER}", "bar.sync 0;"), threads=64, decls=SMEM)
    np.testing.assert_array_equal(got, (np.arange(64) + 32) % 64)


def test_uninitialised_shared_read_is_reported():
    with pytest.warns(EmulatorWarning, match="uninitialised shared memory"):
        run_ptx("mov.u64 %rd6, smem; ld.shared.u32 %r2, [%rd6+64];", threads=32, decls=SMEM)


def test_coalescing_and_bank_conflict_statistics():
    x = np.zeros(64 * 32, np.float32)
    body = """
    ld.global.f32 %f1, [%rd4];                      // pc of a coalesced load: 4 sectors per warp
    mul.wide.u32 %rd6, %r1, 128;
    add.s64 %rd7, %rd2, %rd6;
    ld.global.f32 %f2, [%rd7];                      // stride 32 floats: 32 sectors per warp
    mov.u64 %rd8, smem;
    add.s64 %rd9, %rd8, %rd6;
    st.shared.f32 [%rd9], %f1;                      // stride 32 words: one bank, 32-way conflict
    mul.wide.u32 %rd10, %r1, 4;
    add.s64 %rd11, %rd8, %rd10;
    st.shared.f32 [%rd11+8192], %f2;                // consecutive words: conflict-free
    mov.u32 %r2, 0;"""
    run_ptx(body, threads=64, inp=x, decls=SMEM.replace("4096", "16384"))
    stats = emulator.last_launch().stats
    glob = [v for (pc, kind), v in sorted(stats.items()) if kind == "global" and v["bytes"] == 256]
    coalesced, strided = glob[0], glob[1]
    assert (coalesced["requests"], coalesced["sectors"], coalesced["ideal"]) == (2, 8, 8)
    assert (strided["requests"], strided["sectors"], strided["ideal"]) == (2, 64, 8)
    shared = [v for (pc, kind), v in sorted(stats.items()) if kind == "shared"]
    assert shared[0]["max_ways"] == 32 and shared[0]["wavefronts"] == 64
    assert shared[1]["max_ways"] == 1 and shared[1]["wavefronts"] == 2


@pytest.mark.parametrize("at_once", [True, False])
def test_statistics_of_an_instruction_in_a_loop_add_up(monkeypatch, at_once):
    """Statistics are counted in batches (when read, or when PENDING_LIMIT accesses wait): an
    instruction run 5 times by 2 warps counts 10 requests, the same counted at once or one by one."""
    from grader.emulator import memstats
    if not at_once:
        monkeypatch.setattr(memstats, "PENDING_LIMIT", 0)
    x = np.arange(64 * 2, dtype=np.float32)
    body = """
    mov.u32 %r5, 0;
    mov.u64 %rd8, smem;
    mul.wide.u32 %rd6, %r1, 128;
    add.s64 %rd9, %rd8, %rd6;
    mul.wide.u32 %rd10, %r1, 8;
    add.s64 %rd11, %rd2, %rd10;
$L_loop:
    ld.global.v2.f32 {%f1, %f2}, [%rd11];           // 8 bytes a thread: 8 sectors a warp
    st.shared.f32 [%rd9], %f1;                      // stride 32 words: one bank, 32-way conflict
    bar.sync 0;
    ld.shared.f32 %f3, [%rd8];                      // one word for all: a broadcast, 1 wavefront
    bar.sync 0;
    add.s32 %r5, %r5, 1;
    setp.lt.u32 %p1, %r5, 5;
    @%p1 bra $L_loop;
    mov.u32 %r2, 0;"""
    run_ptx(body, threads=64, inp=x, decls=SMEM.replace("4096", "16384"))
    stats = sorted(emulator.last_launch().stats.items())
    (_, load), (_, conflict), (_, same) = stats[:3]  # then the epilogue's store
    assert (load["requests"], load["sectors"], load["ideal"], load["bytes"]) == (10, 80, 80, 2560)
    assert (conflict["requests"], conflict["wavefronts"], conflict["max_ways"]) == (10, 320, 32)
    assert (same["requests"], same["wavefronts"], same["ideal"], same["max_ways"]) == (10, 10, 10, 1)


def test_unsupported_instruction_names_itself_and_its_line():
    body = ".loc 1 7 0\n    cvt.rn.satfinite.e2m1x2.f32 %h1, %f1, %f2;\n    mov.u32 %r2, 0;"
    with pytest.raises(EmulatorFault, match=r"not supported by the emulator.*e2m1x2.*vector_add.cu:7"):
        run_ptx(body, threads=1, module_decls=FILE)


def test_cp_async_zero_fill_and_wait():
    x = np.arange(1, 65, dtype=np.uint32)
    body = """
    mov.u64 %rd6, smem;
    mul.wide.u32 %rd7, %r1, 16;
    add.s64 %rd8, %rd6, %rd7;
    cvta.to.shared.u64 %rd9, %rd8;
    mul.wide.u32 %rd10, %r1, 16;
    add.s64 %rd11, %rd2, %rd10;
    cp.async.cg.shared.global [%rd8], [%rd11], 16, 8;    // 8 bytes copied, 8 zero-filled
    cp.async.commit_group;
    cp.async.wait_group 0;
    bar.sync 0;
    ld.shared.v4.u32 {%r3, %r4, %r5, %r6}, [%rd8];
    mad.lo.s32 %r7, %r3, 1000, %r4;
    add.s32 %r8, %r5, %r6;
    mad.lo.s32 %r2, %r8, 1000000, %r7;"""
    got = run_ptx(body, threads=16, inp=x, decls=SMEM)
    t = np.arange(16)
    np.testing.assert_array_equal(got, x[4 * t] * 1000 + x[4 * t + 1])


def test_cp_async_without_wait_is_reported():
    x = np.arange(64, dtype=np.uint32)
    body = "mov.u64 %rd6, smem; cp.async.ca.shared.global [%rd6], [%rd2], 4; mov.u32 %r2, 0;"
    with pytest.warns(EmulatorWarning, match="never waited for"):
        run_ptx(body, threads=1, inp=x, decls=SMEM)


LDMATRIX = """
    mov.u64 %rd6, smem;
    mul.wide.u32 %rd7, %r1, 4;
    add.s64 %rd8, %rd6, %rd7;
    add.s64 %rd9, %rd2, %rd7;
    ld.global.u32 %r10, [%rd9];
    st.shared.u32 [%rd8], %r10;
    add.s64 %rd8, %rd8, 128;
    ld.global.u32 %r10, [%rd9+128];
    st.shared.u32 [%rd8], %r10;
    add.s64 %rd8, %rd8, 128;
    ld.global.u32 %r10, [%rd9+256];
    st.shared.u32 [%rd8], %r10;
    add.s64 %rd8, %rd8, 128;
    ld.global.u32 %r10, [%rd9+384];
    st.shared.u32 [%rd8], %r10;
    bar.sync 0;
    mul.wide.u32 %rd10, %r1, 16;                   // lane t: row t % 8 of matrix t / 8
    add.s64 %rd11, %rd6, %rd10;
    ldmatrix.sync.aligned.m8n8.x4{TRANS}.shared.b16 {%r2, %r3, %r4, %r5}, [%rd11];
    st.global.v4.u32 [%rd12], {%r2, %r3, %r4, %r5};"""


@pytest.mark.parametrize("trans", [False, True])
def test_ldmatrix_x4_fragments(trans):
    vals = np.arange(256, dtype=np.uint16)                # matrix i, row r, col c holds 64 i + 8 r + c
    body = "mul.wide.u32 %rd13, %r1, 16; add.s64 %rd12, %rd1, %rd13;" + \
        LDMATRIX.replace("{TRANS}", ".trans" if trans else "")
    got = run_ptx(body, inp=vals.view(np.uint32), out_size=128, result=None, decls=SMEM).reshape(32, 4)
    lane = np.arange(32)
    r, c = lane // 4, 2 * (lane % 4)
    for i in range(4):
        lo = 64 * i + (8 * c + r if trans else 8 * r + c)
        hi = 64 * i + (8 * (c + 1) + r if trans else 8 * r + c + 1)
        np.testing.assert_array_equal(got[:, i], lo | (hi << 16))


MMA = """
    mul.wide.u32 %rd6, %r1, 4;
    add.s64 %rd7, %rd2, %rd6;
    ld.global.u32 %r10, [%rd7];
    ld.global.u32 %r11, [%rd7+128];
    ld.global.u32 %r12, [%rd7+256];
    ld.global.u32 %r13, [%rd7+384];
    ld.global.u32 %r14, [%rd7+512];
    ld.global.u32 %r15, [%rd7+640];
    mov.f32 %f5, 0f3F800000;
    mma.sync.aligned.m16n8k16.row.col.f32.{T}.{T}.f32 {%f1, %f2, %f3, %f4}, {%r10, %r11, %r12, %r13},
        {%r14, %r15}, {%f5, %f5, %f5, %f5};
    mul.wide.u32 %rd8, %r1, 16;
    add.s64 %rd9, %rd1, %rd8;
    st.global.v4.f32 [%rd9], {%f1, %f2, %f3, %f4};"""


@pytest.mark.parametrize("t", ["f16", "bf16"])
def test_mma_m16n8k16_fragment_layout(t):
    """A (16x16) and B (16x8) are given register by register in the PTX ISA's layout (a0: row g,
    cols 2t, 2t+1; a1: row g+8; a2: cols + 8; a3: both; b0: rows 2t, 2t+1 of col g; b1: rows + 8), with
    small integers so that every sum is exact; D = A B + 1."""
    rng = np.random.default_rng(0)
    A = rng.integers(-4, 5, (16, 16)).astype(np.float32)
    B = rng.integers(-4, 5, (16, 8)).astype(np.float32)
    lane = np.arange(32)
    g, tq = lane // 4, lane % 4
    enc = (lambda v: v.astype(np.float16).view(np.uint16)) if t == "f16" else \
        (lambda v: (v.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16))

    def pack(lo, hi):
        return enc(lo).astype(np.uint32) | (enc(hi).astype(np.uint32) << 16)

    regs = [pack(A[g, 2 * tq], A[g, 2 * tq + 1]), pack(A[g + 8, 2 * tq], A[g + 8, 2 * tq + 1]),
            pack(A[g, 2 * tq + 8], A[g, 2 * tq + 9]), pack(A[g + 8, 2 * tq + 8], A[g + 8, 2 * tq + 9]),
            pack(B[2 * tq, g], B[2 * tq + 1, g]), pack(B[2 * tq + 8, g], B[2 * tq + 9, g])]
    got = run_ptx(MMA.replace("{T}", t), inp=np.concatenate(regs), out_dtype=np.float32, out_size=128,
                  result=None).reshape(32, 4)
    D = A @ B + 1
    expected = np.stack([D[g, 2 * tq], D[g, 2 * tq + 1], D[g + 8, 2 * tq], D[g + 8, 2 * tq + 1]], 1)
    np.testing.assert_array_equal(got, expected)


def _f16_regs(lo, hi):
    return lo.astype(np.float16).view(np.uint16).astype(np.uint32) | \
        (hi.astype(np.float16).view(np.uint16).astype(np.uint32) << 16)


def test_mma_m16n8k8_fragment_layout():
    """m16n8k8: two A registers (a0: row g, cols 2t, 2t+1; a1: row g+8), one B register (rows 2t,
    2t+1 of col g), small integers so every sum is exact; D = A B + 1."""
    rng = np.random.default_rng(2)
    A = rng.integers(-4, 5, (16, 8)).astype(np.float32)
    B = rng.integers(-4, 5, (8, 8)).astype(np.float32)
    lane = np.arange(32)
    g, tq = lane // 4, lane % 4
    regs = [_f16_regs(A[g, 2 * tq], A[g, 2 * tq + 1]), _f16_regs(A[g + 8, 2 * tq], A[g + 8, 2 * tq + 1]),
            _f16_regs(B[2 * tq, g], B[2 * tq + 1, g])]
    body = MMA.replace("ld.global.u32 %r12, [%rd7+256];", "").replace("ld.global.u32 %r13, [%rd7+384];", "")
    body = body.replace("[%rd7+512]", "[%rd7+256]").replace("ld.global.u32 %r15, [%rd7+640];", "")
    body = body.replace("m16n8k16", "m16n8k8").replace("{T}", "f16").replace("{%r10, %r11, %r12, %r13}", "{%r10, %r11}")
    body = body.replace("{%r14, %r15}", "{%r14}")
    got = run_ptx(body, inp=np.concatenate(regs), out_dtype=np.float32, out_size=128, result=None).reshape(32, 4)
    D = A @ B + 1
    expected = np.stack([D[g, 2 * tq], D[g, 2 * tq + 1], D[g + 8, 2 * tq], D[g + 8, 2 * tq + 1]], 1)
    np.testing.assert_array_equal(got, expected)


def test_mma_sums_exact_products_in_order_of_k_in_float64():
    """The emulator's defined order: products exact in float64, summed from k = 0 up, then + C,
    rounded once to float32. Row 0 of A times column 0 of B has the products 2^30, 2^-48, -2^30, 2^-48
    at k = 0..3: in this order the first 2^-48 is lost and the second kept (2^-48); from k = 3 down, or
    pairwise, both are lost (0)."""
    A = np.zeros((16, 16), np.float32)
    B = np.zeros((16, 8), np.float32)
    A[0, :4] = [2.0 ** 15, 2.0 ** -24, -2.0 ** 15, 2.0 ** -24]
    B[:4, 0] = [2.0 ** 15, 2.0 ** -24, 2.0 ** 15, 2.0 ** -24]
    lane = np.arange(32)
    g, tq = lane // 4, lane % 4
    regs = [_f16_regs(A[g, 2 * tq], A[g, 2 * tq + 1]), _f16_regs(A[g + 8, 2 * tq], A[g + 8, 2 * tq + 1]),
            _f16_regs(A[g, 2 * tq + 8], A[g, 2 * tq + 9]), _f16_regs(A[g + 8, 2 * tq + 8], A[g + 8, 2 * tq + 9]),
            _f16_regs(B[2 * tq, g], B[2 * tq + 1, g]), _f16_regs(B[2 * tq + 8, g], B[2 * tq + 9, g])]
    got = run_ptx(MMA.replace("{T}", "f16").replace("0f3F800000", "0f00000000"), inp=np.concatenate(regs),
                  out_dtype=np.float32, out_size=128, result=None).reshape(32, 4)
    assert got[0, 0] == np.float32(2.0 ** -48)  # D[0, 0]: lane 0, d0
    assert (got.ravel()[1:] == 0).all()


@pytest.mark.parametrize("t", ["f16", "bf16"])
def test_mma_of_many_warps_is_a_sequential_float64_sum(t):
    """8 warps, each its own A, B, C (random values over a wide range of exponents): each D is exactly
    the float64 sum from k = 0 up, plus C, rounded to float32. D[0, 0] of every warp sums 2^30, 2^-48,
    -2^30, 2^-48 (+ 0): 2^-48 in this order, 0 in the reverse one."""
    import ml_dtypes
    warps = 8
    rng = np.random.default_rng(3)
    dt = np.float16 if t == "f16" else ml_dtypes.bfloat16
    spread = 12 if t == "f16" else 60
    A = (rng.standard_normal((warps, 16, 16)) * 2.0 ** rng.integers(-spread, spread, (warps, 16, 16))).astype(dt)
    B = (rng.standard_normal((warps, 16, 8)) * 2.0 ** rng.integers(-spread, spread, (warps, 16, 8))).astype(dt)
    C = rng.standard_normal((warps, 16, 8)).astype(np.float32)
    A[:, 0, :4] = [2.0 ** 15, 2.0 ** -24, -2.0 ** 15, 2.0 ** -24]
    B[:, :4, 0] = [2.0 ** 15, 2.0 ** -24, 2.0 ** 15, 2.0 ** -24]
    A[:, 0, 4:], B[:, 4:, 0], C[:, 0, 0] = 0, 0, 0
    lane = np.arange(32)
    g, tq = lane // 4, lane % 4

    def pack(lo, hi):
        return lo.view(np.uint16).astype(np.uint32) | (hi.view(np.uint16).astype(np.uint32) << 16)

    regs = np.concatenate([np.stack([
        pack(a[g, 2 * tq], a[g, 2 * tq + 1]), pack(a[g + 8, 2 * tq], a[g + 8, 2 * tq + 1]),
        pack(a[g, 2 * tq + 8], a[g, 2 * tq + 9]), pack(a[g + 8, 2 * tq + 8], a[g + 8, 2 * tq + 9]),
        pack(b[2 * tq, g], b[2 * tq + 1, g]), pack(b[2 * tq + 8, g], b[2 * tq + 9, g]),
        c[g, 2 * tq].view(np.uint32), c[g, 2 * tq + 1].view(np.uint32),
        c[g + 8, 2 * tq].view(np.uint32), c[g + 8, 2 * tq + 1].view(np.uint32)]) for a, b, c in zip(A, B, C)])
    body = f"""
    shr.u32 %r20, %r1, 5;                           // warp
    and.b32 %r21, %r1, 31;                          // lane
    mad.lo.u32 %r22, %r20, 320, %r21;               // in[warp][register][lane]
    mul.wide.u32 %rd6, %r22, 4;
    add.s64 %rd7, %rd2, %rd6;
    ld.global.u32 %r10, [%rd7];
    ld.global.u32 %r11, [%rd7+128];
    ld.global.u32 %r12, [%rd7+256];
    ld.global.u32 %r13, [%rd7+384];
    ld.global.u32 %r14, [%rd7+512];
    ld.global.u32 %r15, [%rd7+640];
    ld.global.f32 %f5, [%rd7+768];
    ld.global.f32 %f6, [%rd7+896];
    ld.global.f32 %f7, [%rd7+1024];
    ld.global.f32 %f8, [%rd7+1152];
    mma.sync.aligned.m16n8k16.row.col.f32.{t}.{t}.f32 {{%f1, %f2, %f3, %f4}}, {{%r10, %r11, %r12, %r13}},
        {{%r14, %r15}}, {{%f5, %f6, %f7, %f8}};
    mul.wide.u32 %rd8, %r1, 16;
    add.s64 %rd9, %rd1, %rd8;
    st.global.v4.f32 [%rd9], {{%f1, %f2, %f3, %f4}};"""
    got = run_ptx(body, threads=32 * warps, inp=regs.ravel(), out_dtype=np.float32, out_size=128 * warps,
                  result=None).reshape(warps, 32, 4)
    def in_order(ks):  # float64 sums in this order of k (every product is exact), + C, to float32
        D = np.zeros((warps, 16, 8))
        for k in ks:
            D = D + A[:, :, k, None].astype(np.float64) * B[:, None, k, :].astype(np.float64)
        return (D + C).astype(np.float32)

    D = in_order(range(16))
    expected = np.stack([D[:, g, 2 * tq], D[:, g, 2 * tq + 1], D[:, g + 8, 2 * tq], D[:, g + 8, 2 * tq + 1]], 2)
    np.testing.assert_array_equal(got.view(np.uint32), expected.view(np.uint32))
    assert (D[:, 0, 0] == np.float32(2.0 ** -48)).all() and (in_order(range(15, -1, -1))[:, 0, 0] == 0).all()


@pytest.mark.parametrize("ta,tb", [("e4m3", "e4m3"), ("e5m2", "e4m3"), ("e5m2", "e5m2")])
def test_mma_m16n8k32_fp8_fragment_layout(ta, tb):
    """FP8 mma.sync (sm_89+): four values per register along k (a0: row g, k 4t..4t+3; a1: row g+8;
    a2: k + 16; a3: both; b0: k 4t..4t+3 of col g; b1: k + 16), lowest byte first; any FP8 values,
    since every product is exact in float32 and the test sums in float64 like the reference."""
    from grader.emulator.values import FP8
    rng = np.random.default_rng(1)
    A = rng.normal(0, 2, (16, 32)).astype(FP8[ta])
    B = rng.normal(0, 2, (32, 8)).astype(FP8[tb])
    lane = np.arange(32)
    g, tq = lane // 4, lane % 4

    def pack(m, rows, cols):  # four consecutive k per register: bytes of m[rows, cols + j]
        return sum(m[rows, cols + j].view(np.uint8).astype(np.uint32) << (8 * j) for j in range(4))

    Bt = np.ascontiguousarray(B.T)  # col g of B, k along the row
    regs = [pack(A, g, 4 * tq), pack(A, g + 8, 4 * tq), pack(A, g, 4 * tq + 16), pack(A, g + 8, 4 * tq + 16),
            pack(Bt, g, 4 * tq), pack(Bt, g, 4 * tq + 16)]
    body = MMA.replace("m16n8k16", "m16n8k32").replace("{T}.{T}", f"{ta}.{tb}")
    got = run_ptx(body, inp=np.concatenate(regs).astype(np.uint32), out_dtype=np.float32, out_size=128,
                  result=None).reshape(32, 4)
    D = (A.astype(np.float64) @ B.astype(np.float64) + 1).astype(np.float32)
    expected = np.stack([D[g, 2 * tq], D[g, 2 * tq + 1], D[g + 8, 2 * tq], D[g + 8, 2 * tq + 1]], 1)
    np.testing.assert_allclose(got, expected, rtol=2e-7, atol=1e-6)


@pytest.mark.parametrize("kind", ["e4m3", "e5m2"])
def test_cvt_fp8x2_rounds_saturates_and_widens(kind):
    """cvt.rn.satfinite.{kind}x2.f32 d, hi, lo: ties to even, beyond the largest finite value -> it,
    NaN -> NaN; cvt.rn.f16x2.{kind}x2 widens both bytes exactly."""
    import ml_dtypes
    from grader.emulator.values import FP8
    big = float(ml_dtypes.finfo(FP8[kind]).max)
    x = np.array([0.1, -3.3, 1e9, -1e9, np.nan, big, 2.0 ** -20, 0.0] * 4, np.float32)
    body = f"""
    ld.global.f32 %f1, [%rd4];
    xor.b32 %r5, %r1, 1;
    mul.wide.u32 %rd6, %r5, 4;
    add.s64 %rd7, %rd2, %rd6;
    ld.global.f32 %f2, [%rd7];
    cvt.rn.satfinite.{kind}x2.f32 %h1, %f1, %f2;
    cvt.rn.f16x2.{kind}x2 %r3, %h1;
    cvt.u32.u16 %r2, %h1;
    shl.b32 %r2, %r2, 16;
    and.b32 %r4, %r3, 65535;
    xor.b32 %r2, %r2, %r4;"""
    got = run_ptx(body, inp=x)
    packed, lo16 = got >> 16, (got & 0xFFFF).astype(np.uint16)
    partner = x[np.arange(32) ^ 1]
    clip = lambda v: np.where(np.isnan(v), v, np.clip(v, -big, big)).astype(np.float32)
    np.testing.assert_array_equal(packed >> 8, clip(x).astype(FP8[kind]).view(np.uint8))
    np.testing.assert_array_equal(packed & 0xFF, clip(partner).astype(FP8[kind]).view(np.uint8))
    widened = lo16.view(np.float16).astype(np.float64)  # the low half: the partner's byte, widened
    np.testing.assert_array_equal(widened, clip(partner).astype(FP8[kind]).astype(np.float64))


PRINTF_MODULE = """
.extern .func (.param .b32 func_retval0) vprintf (.param .b64 vprintf_param_0, .param .b64 vprintf_param_1);
.global .align 1 .b8 fmt[16] = {116, 61, 37, 100, 32, 120, 61, 37, 46, 50, 102, 10, 0};
"""
PRINTF = """
    mov.u64 %rd10, depot;
    st.local.u32 [%rd10], %r1;
    cvt.rn.f64.u32 %fd1, %r1;
    mul.f64 %fd2, %fd1, 0d3FE0000000000000;
    st.local.f64 [%rd10+8], %fd2;
    mov.u64 %rd11, fmt;
    cvta.global.u64 %rd12, %rd11;
    cvta.local.u64 %rd13, %rd10;
    {
    .param .b64 param0;
    st.param.b64 [param0+0], %rd12;
    .param .b64 param1;
    st.param.b64 [param1+0], %rd13;
    .param .b32 retval0;
    call.uni (retval0), vprintf, (param0, param1);
    }
    mov.u32 %r2, 0;"""


def test_printf(capsys):
    run_ptx(PRINTF, threads=3, module_decls=PRINTF_MODULE, decls=".local .align 8 .b8 depot[16];")
    assert capsys.readouterr().out == "t=0 x=0.00\nt=1 x=0.50\nt=2 x=1.00\n"


def test_out_of_bounds_counts_in_the_kernels_array_not_the_graders_guard():
    """The grader pads an output with guard elements that must stay untouched; a write past them is
    reported in the kernel's array (n_out=1: element 2, 2 past its last), not the padded allocation's
    bytes ("4 bytes past the end of a 8-byte allocation (element 2 of 2)")."""
    from grader.emulator.ops import memory_access
    from grader.emulator.memory import DeviceArray

    out = DeviceArray.empty(2, np.float32)
    out.mark_guard(1)
    said = memory_access._past_end(out._buffer, out._buffer.addr + 8, 4, 4)
    assert "element 2 of an array of 1 element (4 bytes each), 2 past its last" in said, said
    assert "allocation" not in said
    plain = DeviceArray.empty(2, np.float32)
    assert "4 bytes past the end of a 8-byte allocation (element 2 of 2)" in memory_access._past_end(
        plain._buffer, plain._buffer.addr + 8, 4, 4)


def test_a_misaligned_half_load_names_the_students_line(tmp_path):
    """A 16-byte fp16 load through course::load_as_float (vec_dtypes.cuh) at a misaligned row names the
    student's line first, then the header's (f32 did already)."""
    import shutil

    from grader import isolation, paths

    for source in (paths.SOLUTIONS / "day02").glob("*.cu"):
        shutil.copy(source, tmp_path)
    silu = tmp_path / "silu_and_mul.cu"
    silu.write_text(silu.read_text().replace("if (d % VEC == 0) {", "if (d % 2 == 0) {"))
    outcome = isolation.run_exercise("day02", "silu_and_mul", [{"rows": 3, "d": 12, "dtype": "float16"}],
                                     source_dir=str(tmp_path))
    assert outcome.status != "passed"
    assert "misaligned address" in outcome.message and "at silu_and_mul.cu:" in outcome.message, outcome.message
    assert "(in vec_dtypes.cuh:" in outcome.message
