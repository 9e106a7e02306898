"""Day 9: planted wrong kernels, each derived from the solution by one targeted change, must fail with
a message a student understands; the solutions pass. The technique checks: mma_tile in scalar math
(right numbers, no tensor cores) and the header's wrappers instead of the student's own inline PTX."""
import pytest

from grader.paths import SOLUTIONS

DAY = SOLUTIONS / "day09"


def solution(name: str) -> str:
    return (DAY / name).read_text()


OWN = {"mma.cuh": solution("mma.cuh")}  # exercises 1 and 2's header, beside ldmatrix.cu and mma_tile.cu


def plant(text: str, old: str, new: str) -> str:
    assert old in text, f"the planted change no longer applies: {old!r}"
    return text.replace(old, new)


SCALAR_MMA = """  for (int i = 0; i < 4; ++i) {
    const int row = course::mma::frag_c_row(lane, i), col = course::mma::frag_c_col(lane, i);
    for (int k = 0; k < 16; ++k) C[i] += static_cast<float>(a[row * 16 + k]) * static_cast<float>(b[k * 8 + col]);
  }
"""


@pytest.mark.parametrize("name,file", [("ldmatrix", "ldmatrix.cu"), ("mma_tile", "mma_tile.cu"),
                                       ("block_tile", "block_tile.cu")])
def test_solutions_pass(planted, name, file):
    assert planted("day09", name, solution(file), files=OWN) is None


def test_mma_tile_in_scalar_math_fails_on_the_technique(planted):
    text = plant(solution("mma_tile.cu"), "  course::mma::mma_m16n8k16<T>(C, A, B);\n", SCALAR_MMA)
    msg = planted("day09", "mma_tile", text, files=OWN)
    assert msg and "no HMMA (mma.sync on the tensor cores) in the SASS" in msg, msg


def test_mma_tile_calling_the_header_fails(planted):
    text = plant(solution("mma_tile.cu"), "  course::mma::mma_m16n8k16<T>(C, A, B);\n",
                 "  course::mma::mma_sync_m16n8k16_row_col_f32<T>(C, A, B);\n")
    msg = planted("day09", "mma_tile", text, files=OWN)
    assert msg and "course::mma's mma wrappers" in msg, msg


def test_ldmatrix_calling_the_header_fails(planted):
    text = plant(solution("ldmatrix.cu"), '#include "mma.cuh"\n', '#include "mma.cuh"\n#include <course/mma.cuh>\n')
    text = plant(text, "  course::mma::ldmatrix<NUM, TRANS>(r, ptr);\n",
                 "  if constexpr (NUM == 4 && !TRANS) course::mma::ldmatrix_m8n8x4(r, ptr);\n"
                 "  else course::mma::ldmatrix<NUM, TRANS>(r, ptr);\n")
    msg = planted("day09", "ldmatrix", text, files=OWN)
    assert msg and "course::mma's ldmatrix wrappers" in msg, msg


def test_ldmatrix_wrong_row_addresses_fail(planted):
    text = plant(solution("ldmatrix.cu"), "tile + (lane % 16) * ROW + 8 * (lane / 16)",
                 "tile + (lane % 8) * ROW + 8 * (lane / 8 % 2)")
    msg = planted("day09", "ldmatrix", text, files=OWN)
    assert msg and "ldmatrix_x" in msg and "registers [tile, lane, register]" in msg, msg


def test_mma_tile_contiguous_b_pair_fails(planted):
    text = plant(solution("mma_tile.cu"), "pack2_raw(b[k * 8 + g], b[(k + 1) * 8 + g])",
                 "pack2_raw(b[k * 8 + g], b[k * 8 + g + 1])")
    msg = planted("day09", "mma_tile", text, files=OWN)
    assert msg and "D = A @ B + C" in msg and "seed" in msg, msg


def test_block_tile_wrong_b_fragment_fails(planted):
    text = plant(solution("block_tile.cu"), "&bf[nt / 2][2 * (nt % 2)]", "&bf[nt / 2][nt % 2]")
    msg = planted("day09", "block_tile", text)
    assert msg and "block_tile_" in msg and "seed" in msg, msg

