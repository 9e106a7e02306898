"""Day 11 without a GPU: the decode kernels stream K and V with cp.async (LDGSTS) and 16-byte accesses,
compute exp with the SFU (MUFU.EX2), reduce scores with warp shuffles, keep their state in registers
(no local memory), in the tuned configuration and in others compiled as the launcher compiles them
(decode_attention's fp8 cache on the tensor cores: HMMA), and the day's headers compile on their own."""
import re

import pytest

from grader import compiler, sass
from grader.compiler import ARCHS
from grader.exercises import day11
from grader.launchers import decode as launch_decode
from grader.paths import SOLUTIONS
from grader.pytest_plugin import require_sass_tools

require_sass_tools()

DAY11 = SOLUTIONS / "day11"
DECODE = [("decode_attention.cu", f"decode_attention_g{g}") for g in day11.HEADS_PER_BLOCK] + \
         [("decode_paged.cu", f"decode_paged_g{g}") for g in day11.HEADS_PER_BLOCK]
MERGES = [("merge_states.cu", "merge_states"), ("decode_paged.cu", "merge_chunks"), ("decode_warp.cu", "decode_warp")]
IDS = [k for _, k in DECODE]


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("file,kernel", DECODE, ids=IDS)
def test_decode_streams_kv_with_cp_async(file, kernel, arch):
    path = DAY11 / file
    assert sass.has(path, arch, r"LDGSTS\.E\.BYPASS\.128", kernel=kernel), sass.report(path, arch, kernel)


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("file,kernel", DECODE + [("decode_warp.cu", "decode_warp")], ids=IDS + ["decode_warp"])
def test_decode_uses_ex2_and_shuffles(file, kernel, arch):
    path = DAY11 / file
    assert sass.has(path, arch, r"MUFU\.EX2", kernel=kernel), sass.report(path, arch, kernel)
    assert sass.has(path, arch, r"SHFL\.BFLY", kernel=kernel), sass.report(path, arch, kernel)


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("file,kernel", MERGES, ids=[k for _, k in MERGES])
def test_merges_and_the_warp_load_16_bytes(file, kernel, arch):
    path = DAY11 / file
    assert sass.has(path, arch, r"LDG\.E\.128", kernel=kernel), sass.report(path, arch, kernel)


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("file", ["online_softmax.cu", "merge_states.cu", "decode_warp.cu", "decode_attention.cu",
                                  "decode_paged.cu"])
def test_no_local_memory(file, arch):
    for kernel, usage in sass.resources(sass.load(DAY11 / file, arch)[0]).items():
        assert usage["spill_stores"] == usage["spill_loads"] == usage["local"] == 0, (kernel, usage)


def test_gqa_group_of_4_fits_two_blocks_per_sm():
    """The benchmark's kernel (G = 4) must leave room for 2 blocks of 256 threads per SM: <= 128
    registers and <= 100 KiB of shared memory each, or the KV stream has too few loads in flight."""
    usage = sass.resources(sass.load(DAY11 / "decode_attention.cu", "sm_90")[0])["decode_attention_g4"]
    assert usage["registers"] <= 128 and usage["shared"] <= 100 << 10, usage


def test_attention_headers_compile_alone(tmp_path):
    src = tmp_path / "headers.cu"
    src.write_text('#include <course/attention/decode.cuh>\n'
                   'extern "C" __global__ void k(float* x) {\n'
                   '  course::attention::state_t<4> s; s.init();\n'
                   '  float o[4] = {x[0], x[1], x[2], x[3]}; s.merge(o, x[4], 1.f);\n'
                   '  float q[1][4]; course::attention::load_query<1, 4>(q, x, 4, 0, 1.f);\n'
                   '  static_assert(course::attention::decode_smem_bytes<1, 128, 256, 4>() == 32768, "");\n'
                   '  s.merge(q[0], x[5], 1.f); s.normalize();\n'
                   '  x[threadIdx.x] = s.o[0] + s.lse2();\n}\n')
    for arch in ARCHS:
        assert compiler.compile_file(src, arch).kernels == ["k"]




def _needs(file: str, kv_dtype: str) -> list[str]:
    """What the launcher's compile of a decode kernel must show. Both stream K and V with cp.async, exp as
    ex2.approx, shuffles. A bf16 / fp16 thread copies its 16-byte row slice. decode_paged's fp8 thread
    copies its 8 bytes of a row and widens them with F2FP; decode_attention's fp8 path (decode_attention_fp8)
    copies whole 16-byte chunks, converts two bytes per F2FP and runs scores and P.V on the tensor cores."""
    need = [r"MUFU\.EX2", r"SHFL\.BFLY"]
    if kv_dtype != "e4m3":
        return need + [r"LDGSTS\.E\.BYPASS\.128"]
    if file == "decode_paged.cu":
        return need + [r"LDGSTS\.E\.64", r"F2FP\.F16\.E4M3\.UNPACK"]
    return need + [r"LDGSTS\.E\.BYPASS\.128", r"F2FP\.F16\.E4M3\.UNPACK", r"HMMA\.16816\.F32", r"HMMA\.1688\.F32"]


def _missing(compiled, need: list[str]) -> dict[str, list[str]]:
    """Each decode kernel's patterns of `need` that none of its SASS lines matches."""
    missing = {kernel: [r for r in need if not any(re.search(r, line) for line in lines)]
               for kernel, lines in sass.disassemble(compiled).items() if kernel.startswith("decode_")}
    assert missing, "no decode_ kernel in the SASS"
    return {kernel: m for kernel, m in missing.items() if m}


@pytest.mark.parametrize("file", ["decode_attention.cu", "decode_paged.cu"])
@pytest.mark.parametrize("config", [("e4m3", 128, "NHD"), ("bfloat16", 256, "HND")], ids=lambda c: "-".join(map(str, c)))
def test_other_configurations_stream_with_cp_async_in_registers(file, config):
    """Compiled as the launcher compiles them (-D options): cp.async, fp8 widened by the hardware's F2FP
    (decode_attention's fp8 on the tensor cores), ex2.approx and shuffles, no local memory."""
    compiled = compiler.compile_file(DAY11 / file, "sm_90", launch_decode.config_options(*config))
    missing = _missing(compiled, _needs(file, config[0]))
    assert not missing, missing
    for kernel, usage in sass.resources(compiled).items():
        assert usage["local"] == 0, (kernel, usage)


def test_fp8_check_fails_the_scalar_path(tmp_path):
    """The fp8 check above is a real one: with FP8_ON_TENSOR_CORES off (the stub's setting), an fp8 cache
    takes the scalar update(), whose 8-byte copies and CUDA-core math miss the 16-byte copies and HMMA."""
    text = (DAY11 / "decode_attention.cu").read_text()
    on = "constexpr bool FP8_ON_TENSOR_CORES = true;"
    assert text.count(on) == 1, "the solution no longer turns the fp8 path on as this test expects"
    src = tmp_path / "decode_attention.cu"
    src.write_text(text.replace(on, "constexpr bool FP8_ON_TENSOR_CORES = false;"))
    compiled = compiler.compile_file(src, "sm_90", launch_decode.config_options("e4m3", 128, "NHD"))
    missing = _missing(compiled, _needs("decode_attention.cu", "e4m3"))
    assert missing and all({r"HMMA\.16816\.F32", r"LDGSTS\.E\.BYPASS\.128"} <= set(m) for m in missing.values()), missing
    assert len(missing) == len(day11.HEADS_PER_BLOCK), missing
