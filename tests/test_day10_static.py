"""Day 10 without a GPU: the GEMM solutions (gemm_mma, gemm) run on the tensor cores (HMMA), read
fragments with ldmatrix (LDSM, plain and transposed) and fill shared memory with cp.async (LDGSTS),
without spills; the progression's configurations compile; the swizzle check accepts the course's
swizzle and rejects conflicting ones; the stubs compile; bad shapes are rejected clearly."""
import pytest

from grader import compiler, sass
from grader.compiler import ARCHS
from grader.exercises import day10
from grader.references.fp8 import dequantize_e4m3, quantize_e4m3
from grader.paths import DAYS, SOLUTIONS
from grader.pytest_plugin import require_sass_tools

require_sass_tools()

DAY10 = SOLUTIONS / "day10"
GEMM = DAY10 / "gemm.cu"


@pytest.mark.parametrize("arch", ARCHS)
def test_gemm_uses_tensor_cores_ldmatrix_and_cp_async(arch):
    for op in (r"HMMA\.16816\.F32$", r"LDSM\.16\.M88\.4", r"LDSM\.16\.MT88\.4", r"LDGSTS\.E\.BYPASS\..*128"):
        assert sass.has(GEMM, arch, op, kernel="gemm_f16"), f"{op} missing\n" + sass.report(GEMM, arch, "gemm_f16")


@pytest.mark.parametrize("arch", ARCHS)
def test_gemm_mma_uses_tensor_cores_ldmatrix_and_cp_async(arch):
    path = DAY10 / "gemm_mma.cu"
    for op in (r"HMMA\.16816\.F32$", r"LDSM\.16\.M88\.4", r"LDSM\.16\.MT88\.4", r"LDGSTS\.E\.BYPASS\..*128"):
        assert sass.has(path, arch, op, kernel="gemm_mma_f16"), f"{op} missing\n" + sass.report(path, arch, "gemm_mma_f16")
    usage = sass.resources(sass.load(path, arch)[0])["gemm_mma_f16"]
    assert usage["spill_stores"] == usage["spill_loads"] == usage["local"] == 0, usage


def _swizzled(cols: int, rows: int = 16):
    """The course's swizzle (swizzle.cu) in numpy: element offsets [rows, cols]."""
    import numpy as np

    chunks = cols // day10.CHUNK
    period = min(chunks, 8)
    r, c = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    phys = (c // day10.CHUNK) ^ ((r // (8 // period)) % period)
    return r * cols + phys * day10.CHUNK + c % day10.CHUNK


@pytest.mark.parametrize("cols", day10.SWIZZLE_COLS)
def test_swizzle_check_accepts_the_course_swizzle_and_rejects_plain_tiles(cols):
    import numpy as np

    day10.check_swizzle_offsets(_swizzled(cols), cols)
    plain = np.arange(16 * cols).reshape(16, cols)
    with pytest.raises(AssertionError, match="bank conflict"):
        day10.check_swizzle_offsets(plain, cols)


def test_swizzle_check_rejects_moving_elements_across_rows():
    offsets = _swizzled(64)
    offsets[[0, 1]] = offsets[[1, 0]]
    with pytest.raises(AssertionError, match="not a permutation of its own elements"):
        day10.check_swizzle_offsets(offsets, 64)


@pytest.mark.parametrize("arch", ARCHS)
def test_gemm_keeps_accumulators_in_registers(arch):
    usage = sass.resources(sass.load(GEMM, arch)[0])["gemm_f16"]
    assert usage["spill_stores"] == usage["spill_loads"] == usage["local"] == 0, usage


@pytest.mark.parametrize("arch", ARCHS)
def test_main_loop_interleaves_ldmatrix_with_mma(arch):
    """The next k16 step's fragments load while this step's mma run: LDSM between HMMA, not in a
    block of their own before them (a branch around the barrier, or too many registers, undoes it)."""
    ops = [op for op in map(sass.opcode, sass.load(GEMM, arch)[1]["gemm_f16"]) if op.startswith(("HMMA", "LDSM"))]
    between = [i for i in range(1, len(ops) - 1)
               if ops[i].startswith("LDSM") and ops[i - 1].startswith("HMMA") and ops[i + 1].startswith("HMMA")]
    assert len(between) >= 4, f"{len(between)} LDSM between HMMA\n" + sass.report(GEMM, arch, "gemm_f16")


@pytest.mark.parametrize("version", [v for v, c in day10.PROGRESSION.items() if c is not None])
def test_progression_configs_compile_to_hmma(version):
    config = day10.PROGRESSION[version].validate()
    compiled = compiler.compile_file(GEMM, "sm_90", extra=config.defines())
    ops = sass.histogram(sass.disassemble(compiled)["gemm_f16"])
    assert ops["HMMA.16816.F32"] > 0 and any(op.startswith("LDGSTS") for op in ops), ops


def test_the_simple_kernels_use_no_tensor_cores():
    for name in ("gemm_naive.cu", "gemm_tiled.cu"):
        assert not sass.has(DAY10 / name, "sm_90", r"HMMA"), name


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("name", ["gemm_naive.cu", "gemm_tiled.cu", "swizzle.cu", "gemm_mma.cu", "gemm.cu"])
def test_stub_compiles(arch, name):
    stub, solution = DAYS / "day10" / name, DAY10 / name
    assert compiler.compile_file(stub, arch).kernels == compiler.compile_file(solution, arch).kernels


@pytest.mark.parametrize("a,b,message", [
    ((64, 13), (13, 64), "not a multiple of 8"),
    ((64, 16), (8, 64), "inner dimensions differ"),
    ((64,), (64, 64), "2-D"),
    ((0, 16), (16, 8), "empty product"),
])
def test_bad_shapes_are_rejected_clearly(a, b, message):
    with pytest.raises(ValueError, match=message):
        day10.validate_shapes(a, b)


def test_only_float16_is_accepted():
    with pytest.raises(ValueError, match="float16"):
        day10.validate_shapes((16, 16), (16, 16), "float32")


def test_fp8_gemm_is_one_qmma_on_ada_and_unpacked_hmma_on_hopper():
    """The lesson's SASS fact: on sm_89 the e4m3 mma.sync is a native QMMA.16832; on sm_90 the compiler
    unpacks the bytes to fp16 (F2FP) and issues two HMMA.16816 (Hopper's FP8 rate needs wgmma)."""
    path = DAY10 / "gemm_fp8.cu"
    assert sass.has(path, "sm_89", r"QMMA\.16832\.F32\.E4M3\.E4M3", kernel="gemm_fp8_e4m3"), \
        sass.report(path, "sm_89", "gemm_fp8_e4m3")
    for op in (r"HMMA\.16816\.F32$", r"F2FP\.F16\.E4M3\.UNPACK_B", r"LDSM\.16\.M88\.4", r"LDGSTS\.E\.BYPASS\..*128"):
        assert sass.has(path, "sm_90", op, kernel="gemm_fp8_e4m3"), f"{op} missing\n" + \
            sass.report(path, "sm_90", "gemm_fp8_e4m3")
    usage = sass.resources(sass.load(path, "sm_90")[0])["gemm_fp8_e4m3"]
    assert usage["spill_stores"] == usage["spill_loads"] == usage["local"] == 0, usage


def test_fp8_shapes_are_checked_before_launch():
    with pytest.raises(ValueError, match="multiple of 16"):
        day10.validate_fp8_shapes(64, 64, 40)
    with pytest.raises(ValueError, match="empty product"):
        day10.validate_fp8_shapes(0, 8, 16)


def test_e4m3_quantisation_saturates_and_round_trips():
    import numpy as np

    x = np.array([[0.0, 1.0, -2.5, 1000.0]])
    bits, scale = quantize_e4m3(x)
    assert scale == np.float32(1000.0 / 448)
    back = dequantize_e4m3(bits, scale)
    assert back[0, 3] == scale * 448 and back[0, 0] == 0  # the amax maps to e4m3 max, exactly
    assert np.all(np.abs(back - x) <= np.abs(x) / 16 + 1e-12)  # e4m3: 3 mantissa bits, half an ulp
