"""Day 4 without a GPU: the swizzle header's layout is conflict-free (checked in numpy, the way a warp's
accesses are served), the swizzled transpose moves 16 bytes per access (LDG/STG/STS/LDS .128) with a
16 KiB unpadded tile, the padded tile is 32 x 33 floats, nothing spills, and the demos compile."""
import numpy as np
import pytest

from grader import compiler, sass
from grader.compiler import ARCHS
from grader.exercises import day04
from grader.paths import SOLUTIONS

pytest.importorskip("cuda.bindings.nvrtc", reason="offline compilation needs cuda-bindings")

DAY4 = SOLUTIONS / "day04"
TILE_ROWS, ROW_CHUNKS = 64, 16


def permuted_chunk(row, chunk, shift=2):
    """course::permuted_chunk<16, 2> in numpy (the header's formula)."""
    return row * ROW_CHUNKS + (chunk ^ ((row >> shift) & 7))


def wavefronts(chunk_indices) -> int:
    """Passes one quarter-warp's eight 16-byte accesses need: distinct chunks sharing a bank group."""
    groups = {}
    for c in chunk_indices:
        groups.setdefault(c % 8, set()).add(c)
    return max(len(v) for v in groups.values())


@pytest.mark.parametrize("shift,expected", [(2, 1), (None, 8)], ids=["swizzled", "unswizzled"])
def test_transpose_tile_stores_are_conflict_free_only_when_swizzled(shift, expected):
    """Step 3 of transpose_swizzled.cu: thread tid stores chunk g = tid // 16 of rows 4c + k, c = tid % 16."""
    where = (lambda r, ch: permuted_chunk(r, ch, shift)) if shift is not None else (lambda r, ch: r * ROW_CHUNKS + ch)
    worst = max(wavefronts([where(4 * (t % 16) + k, t // 16) for t in range(q, q + 8)])
                for k in range(4) for q in range(0, 256, 8))
    assert worst == expected
    # step 4 reads 8 consecutive chunks of one row: conflict-free either way
    assert max(wavefronts([where(t // 16, t % 16) for t in range(q, q + 8)]) for q in range(0, 1024, 8)) == 1


def test_permuted_chunk_is_a_permutation_within_each_row():
    for row in range(TILE_ROWS):
        got = sorted(permuted_chunk(row, ch) - row * ROW_CHUNKS for ch in range(ROW_CHUNKS))
        assert got == list(range(ROW_CHUNKS))


@pytest.mark.parametrize("stride,ways", [(0, 1), (1, 1), (2, 2), (3, 1), (4, 4), (8, 8), (16, 16), (32, 32), (33, 1)])
def test_conflict_model(stride, ways):
    assert day04.conflict_ways(stride) == ways
    assert stride == 0 or ways == np.gcd(stride, 32)


def test_padding_makes_a_column_conflict_free():
    column = np.arange(32) * 33 % 32  # banks of tile[tx][j] with 33 floats per row
    assert len(set(column)) == 32 and set(np.arange(32) * 32 % 32) == {0}


try:
    sass.tool("nvdisasm"), sass.tool("cuobjdump")
    HAVE_SASS = True
except FileNotFoundError:
    HAVE_SASS = False
needs_sass = pytest.mark.skipif(not HAVE_SASS, reason="nvdisasm / cuobjdump not installed")


@needs_sass
@pytest.mark.parametrize("arch", ARCHS)
def test_swizzled_transpose_moves_16_bytes_per_access(arch):
    path = DAY4 / "transpose_swizzled.cu"
    for op in (r"LDG\.E\.128", r"STG\.E\.128", r"STS\.128", r"LDS\.128"):
        assert sass.has(path, arch, op, kernel="transpose_swizzled"), sass.report(path, arch)


@needs_sass
@pytest.mark.parametrize("arch", ARCHS)
def test_shared_memory_sizes_and_no_spills(arch):
    tiled = sass.resources(sass.load(DAY4 / "transpose_tiled.cu", arch)[0])
    swizzled = sass.resources(sass.load(DAY4 / "transpose_swizzled.cu", arch)[0])
    reserved = 1024 if arch == "sm_90" else 0  # sm_90 reserves 1 KiB of shared memory per block
    assert tiled["transpose_tiled"]["shared"] - reserved == 32 * 32 * 4
    assert tiled["transpose_padded"]["shared"] - reserved == 32 * 33 * 4
    assert swizzled["transpose_swizzled"]["shared"] - reserved == 64 * 64 * 4  # no padding
    for usage in (*tiled.values(), *swizzled.values()):
        assert usage["spill_stores"] == usage["spill_loads"] == usage["local"] == 0, usage


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("name", ["transpose_race.cu", "transpose_oob.cu", "smem_stride.cu"])
def test_demos_compile(arch, name):
    c = compiler.compile_file(DAY4 / "demos" / name, arch)
    assert c.kernels == [name.removesuffix(".cu")]
