"""Day 9 without a GPU: the solutions run on the tensor cores (HMMA) and read fragments with ldmatrix
(LDSM), the course header's wrappers compile to the instructions they name, and the stubs compile to
the same kernels."""
import pytest

from grader import compiler, sass
from grader.compiler import ARCHS
from grader.exercises import day09
from grader.paths import DAYS, SOLUTIONS
from grader.pytest_plugin import require_sass_tools

require_sass_tools()

DAY9 = SOLUTIONS / "day09"
MMA_KERNELS = [("mma_tile.cu", "mma_tile_f16"), ("mma_tile.cu", "mma_tile_bf16"),
               ("block_tile.cu", "block_tile_f16"), ("block_tile.cu", "block_tile_bf16")]


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("file,kernel", MMA_KERNELS, ids=[k for _, k in MMA_KERNELS])
def test_solutions_use_tensor_cores(file, kernel, arch):
    path = DAY9 / file
    pattern = r"HMMA\.16816\.F32\.BF16" if kernel.endswith("bf16") else r"HMMA\.16816\.F32$"
    assert sass.has(path, arch, pattern, kernel=kernel), sass.report(path, arch, kernel)


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("variant", list(day09.LDMATRIX_VARIANTS))
def test_ldmatrix_variants(variant, arch):
    num, trans = day09.LDMATRIX_VARIANTS[variant]
    op = rf"LDSM\.16\.{'MT' if trans else 'M'}88" + ("" if num == 1 else rf"\.{num}") + "$"
    path = DAY9 / "ldmatrix.cu"
    assert sass.has(path, arch, op, kernel=f"ldmatrix_{variant}"), sass.report(path, arch, f"ldmatrix_{variant}")


@pytest.mark.parametrize("arch", ARCHS)
def test_block_tile_reads_fragments_with_ldmatrix(arch):
    path = DAY9 / "block_tile.cu"
    for kernel in ("block_tile_f16", "block_tile_bf16"):
        assert sass.has(path, arch, r"LDSM\.16\.M88\.4", kernel=kernel), sass.report(path, arch, kernel)
        assert sass.has(path, arch, r"LDSM\.16\.MT88\.4", kernel=kernel), sass.report(path, arch, kernel)
        usage = sass.resources(sass.load(path, arch)[0])[kernel]
        assert usage["spill_stores"] == usage["spill_loads"] == usage["local"] == 0, usage


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("name", ["ldmatrix.cu", "mma_tile.cu", "block_tile.cu"])
def test_stub_compiles(arch, name):
    stub, solution = DAYS / "day09" / name, DAY9 / name
    assert compiler.compile_file(stub, arch).kernels == compiler.compile_file(solution, arch).kernels


def test_fragment_layouts_cover_each_tile_once():
    for coords, shape, per_lane in ((day09.a_coords, (16, 16), 8), (day09.b_coords, (16, 8), 4),
                                    (day09.c_coords, (16, 8), 4)):
        lanes, _ = day09.owners(coords, shape, per_lane)
        assert (lanes >= 0).all() and sorted(set(lanes.ravel())) == list(range(32))


def test_ldmatrix_x4_gives_the_a_fragment():
    """ldmatrix.x4 at the course's addresses leaves exactly the mma A fragment in every lane."""
    import numpy as np

    tile = np.random.default_rng(0).integers(0, 1 << 16, (1, 16, 16), dtype=np.uint16)
    regs = day09.ldmatrix_reference(tile, 4, False)[0]
    for lane in range(32):
        for i in range(8):
            r, c = day09.a_coords(lane, i)
            assert (int(regs[lane, i // 2]) >> (16 * (i % 2))) & 0xFFFF == tile[0, r, c]


def test_ldmatrix_x4_trans_gives_two_b_fragments():
    """ldmatrix.x4.trans of a row-major [K=16, N=16] tile: registers 0, 1 are the B fragment of
    columns 0..7 and registers 2, 3 that of columns 8..15."""
    import numpy as np

    tile = np.random.default_rng(1).integers(0, 1 << 16, (1, 16, 16), dtype=np.uint16)
    regs = day09.ldmatrix_reference(tile, 4, True)[0]
    for lane in range(32):
        for half in range(2):
            for i in range(4):
                k, n = day09.b_coords(lane, i)
                got = (int(regs[lane, 2 * half + i // 2]) >> (16 * (i % 2))) & 0xFFFF
                assert got == tile[0, k, 8 * half + n]
