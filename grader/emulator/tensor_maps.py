"""The emulator's tensor maps: the course's own 128-byte encoding of a tiled TMA descriptor, which
`grader.tensor_map` makes without a GPU and `async_copy` decodes. Little-endian u64 words:
word 0 the magic b"CRSTMAP1"; 1 the base address; 2 rank | element size << 8 | swizzle bytes << 16;
3-5 the sizes (innermost first); 6-8 the byte strides (innermost is the element size);
9-11 the box sizes (innermost first); the rest zero.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

MAGIC = int.from_bytes(b"CRSTMAP1", "little")


def encode(base: int, shape, strides, elem: int, box, swizzle: int) -> np.ndarray:
    """The emulator's encoding (see the module docstring); shape, strides and box outermost first."""
    words = np.zeros(16, np.uint64)
    rank = len(shape)
    words[0], words[1] = MAGIC, base
    words[2] = rank | elem << 8 | swizzle << 16
    for i in range(rank):
        words[3 + i] = shape[rank - 1 - i]
        words[6 + i] = strides[rank - 1 - i]
        words[9 + i] = box[rank - 1 - i]
    return words.view(np.uint8)


@dataclass
class Decoded:
    base: int
    rank: int
    elem: int
    swizzle: int
    dims: tuple     # innermost first
    strides: tuple  # bytes, innermost first
    box: tuple      # innermost first

    def box_elements(self, start):
        """Element offsets into the tensor of the box at `start` (innermost first), in shared-memory order
        (row-major box), and which are inside the tensor (the others are zero-filled)."""
        axes = [int(s) + np.arange(b) for s, b in zip(start, self.box)]
        grids = np.meshgrid(*axes[::-1], indexing="ij")[::-1]  # innermost last in memory order
        inside = np.ones(grids[0].shape, bool)
        off = np.zeros(grids[0].shape, np.int64)
        for g, d, s in zip(grids, self.dims, self.strides):
            inside &= (g >= 0) & (g < d)
            off += g * (s // self.elem)
        return off.ravel(), inside.ravel()


def decode(raw: bytes) -> Decoded:
    """The emulator's encoding back; ValueError when the bytes are not a course tensor map."""
    w = np.frombuffer(raw, np.uint64)
    if w.size != 16 or int(w[0]) != MAGIC:
        raise ValueError("the tensor map is not one grader.tensor_map.tensor_map made (wrong parameter?)")
    rank, elem, swz = int(w[2]) & 0xFF, (int(w[2]) >> 8) & 0xFF, int(w[2]) >> 16
    return Decoded(int(w[1]), rank, elem, swz, tuple(int(x) for x in w[3:3 + rank]),
                   tuple(int(x) for x in w[6:6 + rank]), tuple(int(x) for x in w[9:9 + rank]))
