"""Day 10: planted wrong kernels, each derived from the solution by one targeted change, must fail with
a message a student understands; the solutions pass. The technique checks: a correct one-thread-per-
element GEMM handed in as `gemm` (or `gemm_mma`) fails: no tensor cores, no ldmatrix, no cp.async."""
import pytest

from grader.paths import SOLUTIONS

DAY = SOLUTIONS / "day10"


def solution(name: str) -> str:
    return (DAY / name).read_text()


def plant(text: str, old: str, new: str) -> str:
    assert old in text, f"the planted change no longer applies: {old!r}"
    return text.replace(old, new)


# A correct GEMM, one thread per element of C (grid-stride, so any launch covers C).
NAIVE_BODY = """  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < int64_t(M) * N;
       i += int64_t(gridDim.x) * blockDim.x) {
    const int r = int(i / N), c = int(i % N);
    float s = 0.f;
    for (int k = 0; k < K; ++k) s += __half2float(A[int64_t(r) * K + k]) * __half2float(B[int64_t(k) * ldb + c]);
    C[i] = __float2half(s);
  }
"""


@pytest.mark.parametrize("name,file", [("swizzle", "swizzle.cu"), ("gemm_mma", "gemm_mma.cu"), ("gemm", "gemm.cu")])
def test_solutions_pass(planted, name, file):
    assert planted("day10", name, solution(file)) is None


def test_one_thread_per_element_gemm_fails_on_the_technique(planted):
    text = plant(solution("gemm.cu"), "  gemm<Cfg>(A, B, C, M, N, K, ldb);\n", NAIVE_BODY)
    msg = planted("day10", "gemm", text)
    assert msg and "technique of the day is missing" in msg, msg
    for what in ("no HMMA (mma.sync on the tensor cores)", "no LDSM", "no LDGSTS (cp.async)"):
        assert what in msg, msg


def test_one_thread_per_element_gemm_mma_fails_on_the_technique(planted):
    text = solution("gemm_mma.cu")
    start = text.index("  __shared__ alignas(128) half sa[BM * BK];")
    text = text[:start] + NAIVE_BODY.replace("ldb", "N") + "}\n"
    msg = planted("day10", "gemm_mma", text)
    assert msg and "no HMMA (mma.sync on the tensor cores)" in msg and "no LDGSTS (cp.async)" in msg, msg


def test_unswizzled_offsets_fail_with_the_conflict(planted):
    text = plant(solution("swizzle.cu"), "  return chunk ^ ((row / (8 / period)) % period);\n",
                 "  return chunk + 0 * row * period;\n")
    msg = planted("day10", "swizzle", text)
    assert msg and "bank conflict" in msg and "8 different slots" in msg, msg


def test_element_level_xor_breaks_the_chunks(planted):
    text = plant(solution("swizzle.cu"),
                 "    return row * COLS + swizzle_chunk<COLS / CHUNK>(row, col / CHUNK) * CHUNK + col % CHUNK;\n",
                 "    return row * COLS + (col ^ (row % 8));\n")
    msg = planted("day10", "swizzle", text)
    assert msg and "16-byte chunk must stay together" in msg, msg


def test_roundtrip_without_zero_fill_fails(planted):
    text = plant(solution("swizzle.cu"), "r < rows_valid && col < cols_valid);", "true);")
    msg = planted("day10", "swizzle", text)
    assert msg and "swizzle_roundtrip_" in msg and "zeros outside" in msg, msg


def test_gemm_mma_wrong_b_fragment_fails(planted):
    text = plant(solution("gemm_mma.cu"), "&bf[nt / 2][2 * (nt % 2)]", "&bf[nt % 2][2 * (nt / 2)]")
    msg = planted("day10", "gemm_mma", text)
    assert msg and "gemm_mma C" in msg and "seed" in msg, msg


def test_gemm_loader_without_swizzle_fails(planted):
    """The loader stores tiles plain while ldmatrix reads them swizzled: wrong products."""
    text = plant(solution("gemm.cu"), "    s = tile_offset<COLS, SWIZZLE>(row, col);\n", "    s = row * COLS + col;\n")
    text = plant(text, ": tile_offset<COLS, SWIZZLE>(r, col);\n", ": r * COLS + col;\n")
    msg = planted("day10", "gemm", text)
    assert msg and "gemm [128x256x32 w2x4 s3] C" in msg and "seed" in msg, msg


def test_gemm_epilogue_dropping_the_second_pair_fails(planted):
    text = plant(solution("gemm.cu"), "__floats2half2_rn(acc[mt][nt][2], acc[mt][nt][3])",
                 "__floats2half2_rn(acc[mt][nt][0], acc[mt][nt][1])")
    msg = planted("day10", "gemm", text)
    assert msg and "gemm [" in msg and "seed" in msg, msg


def test_fp8_solution_passes(planted):
    assert planted("day10", "gemm_fp8", solution("gemm_fp8.cu")) is None


def test_fp8_output_rounded_to_bf16_fails(planted):
    """An FP8 GEMM must keep fp32 out here: rounding C to 16 bits is far outside the fp32 tolerance."""
    text = plant(solution("gemm_fp8.cu"), "const float2 v = make_float2(acc[mt][nt][2 * h] * scale, acc[mt][nt][2 * h + 1] * scale);",
                 "const float2 v = make_float2(__bfloat162float(__float2bfloat16(acc[mt][nt][2 * h] * scale)), "
                 "__bfloat162float(__float2bfloat16(acc[mt][nt][2 * h + 1] * scale)));")
    msg = planted("day10", "gemm_fp8", text)
    assert msg and "gemm_fp8 C" in msg and "seed" in msg, msg


def test_fp8_one_scale_only_fails(planted):
    text = plant(solution("gemm_fp8.cu"), "const float scale = scale_a * scale_b;", "const float scale = scale_a;")
    msg = planted("day10", "gemm_fp8", text)
    assert msg and "gemm_fp8 C" in msg, msg


def test_fp8_by_fp16_mma_fails_on_the_technique(planted):
    """Widening the bytes to fp16 by hand and using the fp16 mma passes the numbers, not the lesson."""
    text = plant(solution("gemm_fp8.cu"), "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32",
                 "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32")
    msg = planted("day10", "gemm_fp8", text)
    assert msg and "m16n8k32" in msg, msg
