"""grader.sass: SASS facts the syllabus states, checked on the solutions' cubins (no GPU needed)."""
import os

import pytest

from grader import sass
from grader.compiler import ARCHS
from grader.paths import DAYS, SOLUTIONS
from grader.pytest_plugin import require_sass_tools

require_sass_tools()

SILU = SOLUTIONS / "day02" / "silu_and_mul.cu"
GATHER = SOLUTIONS / "day02" / "strided_gather.cu"


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("kernel", ["silu_and_mul_f32", "silu_and_mul_f16", "silu_and_mul_bf16"])
def test_silu_and_mul_loads_128_bits(arch, kernel):
    assert sass.has(SILU, arch, r"LDG\.E\.128", kernel=kernel), sass.report(SILU, arch, kernel)


@pytest.mark.parametrize("arch", ARCHS)
def test_strided_gather_loads_are_scalar(arch):
    assert sass.has(GATHER, arch, r"LDG\b", kernel="strided_gather")
    assert not sass.has(GATHER, arch, r"LDG\.E\.128", kernel="strided_gather"), sass.report(GATHER, arch)


def test_histogram_strips_predicates_and_keeps_modifiers():
    lines = [
        "/*0100*/       @!P0 LDG.E.128.CONSTANT R4, desc[UR4][R2.64] ;",
        "@P1 LDG.E.128.CONSTANT R8, desc[UR4][R2.64+0x10]",
        "@!PT STG.E.128 desc[UR4][R6.64], R8 ;",
        "MUFU.EX2 R6, R6 ;",
        "@!UP0 HMMA.16816.F32 R4, R8, R12, R4 ;",
        "EXIT ;",
        "",
    ]
    hist = sass.histogram(lines)
    assert hist == {"LDG.E.128.CONSTANT": 2, "STG.E.128": 1, "MUFU.EX2": 1, "HMMA.16816.F32": 1, "EXIT": 1}
    assert sass.families(hist) == {"LDG": 2, "STG": 1, "MUFU": 1, "HMMA": 1, "EXIT": 1}


def test_disassemble_lists_every_kernel():
    compiled, code, _ = sass.load(SILU)
    assert list(code)[:3] == compiled.kernels
    assert all(code[k] and not code[k][0].startswith("/*") for k in compiled.kernels)


def test_resources_counts_registers():
    usage = sass.resources(sass.load(SILU)[0])["silu_and_mul_f32"]
    assert usage["registers"] > 0
    assert usage["spill_stores"] == usage["spill_loads"] == usage["local"] == 0
    assert "registers" in sass.report(SILU, kernel="silu_and_mul_f32")


def test_compare_stub_with_solution():
    text = sass.compare(DAYS / "day02" / "silu_and_mul.cu", SILU, kernel="silu_and_mul_f16")
    assert "LDG.E.128" in text and "total" in text


def test_report_top():
    lines = sass.report(SILU, kernel="silu_and_mul_f32", top=3).splitlines()
    assert len(lines) == 1 + 1 + 1 + 3 + 1  # file, blank, resources, 3 opcodes, total


def test_load_is_cached_until_the_file_changes(tmp_path):
    src = tmp_path / "k.cu"
    src.write_text('extern "C" __global__ void k(float* x) { x[threadIdx.x] *= 2.f; }\n')
    first = sass.load(src)
    assert sass.load(src) is first
    os.utime(src, ns=(0, src.stat().st_mtime_ns + 10**9))
    assert sass.load(src) is not first


def test_mangled_names(tmp_path):
    src = tmp_path / "scale.cu"
    src.write_text("__global__ void scale(float* x) { x[threadIdx.x] *= 2.f; }\n"
                   "namespace ns { __global__ void shift(float* x) { x[threadIdx.x] += 1.f; } }\n")
    _, code, _ = sass.load(src)
    assert set(code) == {"_Z5scalePf", "_ZN2ns5shiftEPf"}
    assert sass.has(src, "sm_90", "FADD", kernel="ns::shift")
    assert "scale (_Z5scalePf)" in sass.report(src, kernel="scale")
    assert sass.plain_name("_Z6kernelIfEvPT_") == "kernel" and sass.plain_name("k") == "k"


def test_missing_file():
    with pytest.raises(FileNotFoundError, match="no_such_file.cu"):
        sass.report(SOLUTIONS / "day02" / "no_such_file.cu")


def test_unknown_kernel_lists_kernels():
    with pytest.raises(ValueError, match="silu_and_mul_f32.*silu_and_mul_f16"):
        sass.report(SILU, kernel="silu")


def test_missing_tool_names_the_package():
    with pytest.raises(FileNotFoundError, match="pip install"):
        sass.tool("no-such-tool")


# ---- --ptx-map: PTX -> SASS through -lineinfo ------------------------------------------------------

GEMM = SOLUTIONS / "day10" / "gemm.cu"


def _lines_with(mapping: dict, ptx_prefix: str) -> list[dict]:
    return [entry for lines in mapping.values() for entry in lines.values()
            if any(op.startswith(ptx_prefix) for op in entry["ptx"])]


@pytest.mark.parametrize("arch", ARCHS)
def test_ptx_map_mma_becomes_hmma_and_cp_async_becomes_ldgsts(arch):
    """On every line of the day 10 GEMM where PTX has mma.sync the SASS has as many HMMA, and where it
    has cp.async.cg the SASS has as many LDGSTS; no HMMA is attributed to a cp.async line."""
    mapping = sass.ptx_to_sass(GEMM, "mma,cp.async", arch)
    mma, copies = _lines_with(mapping, "mma.sync"), _lines_with(mapping, "cp.async.cg")
    assert mma and copies
    for entry in mma:
        assert sum(op.startswith("HMMA") for op in entry["sass"]) == len(entry["ptx"]), entry
    for entry in copies:
        assert sum(op.startswith("LDGSTS") for op in entry["sass"]) == entry["ptx"].count("cp.async.cg.shared.global")
        assert not any(op.startswith("HMMA") for op in entry["sass"]), entry


def test_ptx_map_text_names_the_line_and_its_source():
    text = sass.ptx_map(GEMM, "mma")
    assert "gemm.cu:" in text and "mma_sync_m16n8k16" in text and "HMMA.16816.F32" in text, text
    assert "LDGSTS" not in text  # the filter keeps cp.async out
    assert "no PTX instruction starts with shfl" in sass.ptx_map(GEMM, "shfl")


def test_ptx_instructions_follow_inlining(tmp_path):
    """An instruction of an inlined function carries the chain of calls down to the kernel's line."""
    src = tmp_path / "k.cu"
    src.write_text("__device__ __forceinline__ float twice(float x) {\n  return 2.f * x;\n}\n"
                   'extern "C" __global__ void k(const float* a, float* b) {\n'
                   "  b[threadIdx.x] = twice(a[threadIdx.x]);\n}\n")
    compiled, _, _ = sass.load(src)
    ptx = sass.ptx_instructions(compiled.ptx)["k"]
    loads = [chain for text, chain in ptx if text.startswith("ld.global")]
    assert loads and all(chain[0] == (str(src.resolve()), 5) for chain in loads)
    mapping = sass.ptx_to_sass(src, "ld.global,st.global")["k"]
    assert set(mapping) == {5} and any(op.startswith("LDG") for op in mapping[5]["sass"])
    assert any(op.startswith("STG") for op in mapping[5]["sass"])


def test_ptx_map_on_the_command_line(capsys):
    from grader import cli

    assert cli.main(["sass", str(GEMM), "--ptx-map", "mma"]) == 0
    assert "HMMA" in capsys.readouterr().out
    assert cli.main(["sass", str(GEMM), "--ptx-map", "--compare", str(GEMM)]) == 2
    assert "choose one" in capsys.readouterr().err
