"""Day 9: tensor cores: ldmatrix, mma.sync m16n8k16 fragments, a block tile from warp tiles.

The fragment layouts are written here in numpy terms (`a_coords`, `b_coords`, `c_coords`,
`ldmatrix_reference`) for the checks and the notebook's pictures; course/mma.cuh states the same in C.
Every check uses random data (never identity or all-ones inputs), so a lane that holds the wrong
element shows up.
"""
from __future__ import annotations

import numpy as np

from grader import checks, device
from grader.exercises import Exercise
from grader.messages import say
from grader.references.tensor_core import SUFFIX, dtype_ok, normal
from grader.references.tolerances import accumulate_tolerance
from grader.technique import Technique


# ---- fragment layouts (g = lane // 4, t = lane % 4) ---------------------------------------------

def a_coords(lane: int, i: int) -> tuple[int, int]:
    """(row, col) of the A (16x16) element in 16-bit half i (0..7) of `lane`'s fragment: register
    i // 2, low half when i is even."""
    return lane // 4 + 8 * ((i // 2) % 2), 2 * (lane % 4) + i % 2 + 8 * (i // 4)


def b_coords(lane: int, i: int) -> tuple[int, int]:
    """(k, n) of the B (16x8) element in 16-bit half i (0..3) of `lane`'s fragment."""
    return 2 * (lane % 4) + i % 2 + 8 * (i // 2), lane // 4


def c_coords(lane: int, i: int) -> tuple[int, int]:
    """(row, col) of the C/D (16x8 float) element in c[i] (0..3) of `lane`."""
    return lane // 4 + 8 * (i // 2), 2 * (lane % 4) + i % 2


def owners(coords, shape: tuple[int, int], per_lane: int) -> tuple[np.ndarray, np.ndarray]:
    """Which lane, and which index in its fragment, holds each element of a tile: two int arrays of
    `shape` (every element is held exactly once)."""
    lane_of, index_of = np.full(shape, -1), np.full(shape, -1)
    for lane in range(32):
        for i in range(per_lane):
            r, c = coords(lane, i)
            assert lane_of[r, c] == -1, say("day09.two_lanes")
            lane_of[r, c], index_of[r, c] = lane, i
    return lane_of, index_of


# The matrices x1 / x2 / x4 load, in register order: (first row, first column) in the 16x16 tile.
LDMATRIX_ORIGINS = ((0, 0), (8, 0), (0, 8), (8, 8))
LDMATRIX_VARIANTS = {"x1": (1, False), "x2": (2, False), "x4": (4, False),
                     "x1_trans": (1, True), "x2_trans": (2, True), "x4_trans": (4, True)}
POISON_U32 = 0xFFFFFFFF


def ldmatrix_reference(tiles: np.ndarray, num: int, trans: bool) -> np.ndarray:
    """What ldmatrix.x{num}[.trans] leaves in each lane: uint32 [count, 32, 4] from uint16 tiles
    [count, 16, 16]. Register j of lane l holds row l // 4, columns 2 (l % 4) and 2 (l % 4) + 1 of
    matrix j (low half first); with .trans, rows 2 (l % 4) and 2 (l % 4) + 1 of column l // 4.
    Registers past `num` keep the poison 0xFFFFFFFF."""
    count = tiles.shape[0]
    out = np.full((count, 32, 4), POISON_U32, dtype=np.uint32)
    lanes = np.arange(32)
    for j in range(num):
        r0, c0 = LDMATRIX_ORIGINS[j]
        m = tiles[:, r0:r0 + 8, c0:c0 + 8].astype(np.uint32)
        if trans:
            m = m.transpose(0, 2, 1)
        lo, hi = m[:, lanes // 4, 2 * (lanes % 4)], m[:, lanes // 4, 2 * (lanes % 4) + 1]
        out[:, :, j] = lo | (hi << 16)
    return out


def check_ldmatrix(module, seed: int, variant: str, tiles: int) -> None:
    if variant not in LDMATRIX_VARIANTS:
        raise ValueError(say("arg.one_of", what="variant", value=variant, known=", ".join(LDMATRIX_VARIANTS)))
    num, trans = LDMATRIX_VARIANTS[variant]
    rng = np.random.default_rng(seed)
    host = rng.integers(0, 1 << 16, (tiles, 16, 16), dtype=np.uint16)  # random bits: all distinct-ish
    out = device.empty((tiles, 32, 4), "uint32")
    device.launch(module.get_function(f"ldmatrix_{variant}"), (tiles,), (32,),
                  (device.asarray(host), out), what=f"ldmatrix_{variant}")
    checks.assert_close(device.to_host(out), ldmatrix_reference(host, num, trans),
                        name=say("name.day09.ldmatrix", variant=variant, tiles=tiles, num=num, poison=f"{POISON_U32:#x}"),
                        seed=seed)


# ---- one warp: D = A * B + C on 16x8x16 ---------------------------------------------------------

def check_mma_tile(module, seed: int, count: int, dtype: str) -> None:
    """`count` independent 16x8x16 tiles, one warp each; D = A @ B + C against float64."""
    dtype_ok(dtype)
    rng = np.random.default_rng(seed)
    a, b = normal(rng, (count, 16, 16), dtype), normal(rng, (count, 16, 8), dtype)
    c = rng.standard_normal((count, 16, 8)).astype(np.float32)
    d = device.empty((count, 16, 8), "float32")
    name = f"mma_tile_{SUFFIX[dtype]}"
    device.launch(module.get_function(name), (count,), (32,),
                  (device.asarray(a), device.asarray(b), device.asarray(c), d), what=name)
    expected = a.astype(np.float64) @ b.astype(np.float64) + c
    checks.assert_close(device.to_host(d), expected, dt="float32", tol=accumulate_tolerance(16),
                        name=say("name.day09.mma", name=name, count=count), seed=seed)


# ---- a block tile from warp tiles ---------------------------------------------------------------

BLOCK_TILE = 64  # the block's C tile is 64x64; 4 warps of 32x32


def block_tile_launch(module, dtype: str, a, b, c, m: int, n: int, k: int) -> None:
    name = f"block_tile_{SUFFIX[dtype]}"
    grid = (-(-n // BLOCK_TILE), -(-m // BLOCK_TILE))
    device.launch(module.get_function(name), grid, (128,), (a, b, c, np.int32(m), np.int32(n), np.int32(k)),
                  what=f"{name} (M={m}, N={n}, K={k})")


def check_block_tile(module, seed: int, m: int, n: int, k: int, dtype: str) -> None:
    dtype_ok(dtype)
    rng = np.random.default_rng(seed)
    a, b = normal(rng, (m, k), dtype), normal(rng, (k, n), dtype)
    c = device.empty((m, n), "float32")
    block_tile_launch(module, dtype, device.asarray(a), device.asarray(b), c, m, n, k)
    checks.assert_close(device.to_host(c), a.astype(np.float64) @ b.astype(np.float64), dt="float32",
                        tol=accumulate_tolerance(k),
                        name=f"block_tile_{SUFFIX[dtype]} C (M={m}, N={n}, K={k})", seed=seed)


BLOCK_SHAPES = ((1, 1, 1), (16, 8, 16), (64, 64, 32), (33, 31, 17), (100, 200, 300), (65, 130, 64),
                (257, 129, 1000), (512, 512, 512))

# The technique of each exercise (grader/technique.py): the instructions themselves, written as inline
# PTX by the student on exercises 1 and 2 (not the course header's wrappers), and the tensor cores.
_ASM = r"\b(asm|__asm__)\s*(volatile|__volatile__)?\s*\(\s*\""  # an inline PTX string starting
LDMATRIX_TECHNIQUE = Technique(
    why="ldmatrix written as inline PTX", require=(r"LDSM",),
    source_require=((_ASM + r"ldmatrix\.sync", "inline PTX `ldmatrix.sync.aligned...`"),),
    source_forbid=((r"ldmatrix_m8n8", "course::mma's ldmatrix wrappers (write the PTX yourself)"),))
MMA_TECHNIQUE = Technique(
    why="mma.sync m16n8k16 on the tensor cores, written as inline PTX", require=(r"HMMA",),
    source_require=((_ASM + r"mma\.sync", "inline PTX `mma.sync.aligned.m16n8k16...`"),),
    source_forbid=((r"mma_sync_m16n8k16", "course::mma's mma wrappers (write the PTX yourself)"),))
BLOCK_TECHNIQUE = Technique(
    why="warp tiles of ldmatrix and mma.sync on the tensor cores",
    require=(r"HMMA", r"LDSM\.16\.M88", r"LDSM\.16\.MT88"), no_spills=True)

EXERCISES = (
    Exercise("day09", "ldmatrix", "ldmatrix.cu", "ldmatrix x1 / x2 / x4 and .trans: which lane gets what",
             check_ldmatrix,
             tuple({"variant": v, "tiles": t} for t in (1, 33) for v in LDMATRIX_VARIANTS),
             technique=(LDMATRIX_TECHNIQUE,)),
    Exercise("day09", "mma_tile", "mma_tile.cu", "one warp, one mma.sync m16n8k16 (fp16 and bf16)",
             check_mma_tile, tuple({"count": c, "dtype": dt} for dt in SUFFIX for c in (1, 64)),
             technique=(MMA_TECHNIQUE,)),
    Exercise("day09", "block_tile", "block_tile.cu", "a 64x64 block tile from four 32x32 warp tiles",
             check_block_tile,
             tuple({"m": m, "n": n, "k": k, "dtype": dt} for dt in SUFFIX for m, n, k in BLOCK_SHAPES),
             technique=(BLOCK_TECHNIQUE,)),
)
