"""Every stub and solution compiles for sm_80 and sm_90 with NVRTC, without a GPU; compile errors name
the student's file and line."""
import functools

import pytest

from grader import compiler, paths

FILES = paths.exercise_files(paths.SOLUTIONS) + paths.exercise_files(paths.DAYS)
compile_once = functools.cache(compiler.compile_file)  # each (file, arch) compiled once per session


@pytest.mark.parametrize("arch", compiler.ARCHS)
@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(paths.ROOT)))
def test_compiles(path, arch):
    needed = compiler.required_arch(path)
    if needed and compiler.arch_number(arch) < needed:  # COURSE_REQUIRE_ARCH: refused, saying why
        with pytest.raises(compiler.CompileError, match=f"needs sm_{needed} or newer"):
            compiler.compile_file(path, arch)
        return
    c = compile_once(path, arch)
    assert c.kernels, f"{path} defines no kernel"
    assert c.cubin[:4] == b"\x7fELF", "NVRTC returned no cubin"
    assert f".target {arch}" in c.ptx


def test_stub_and_solution_define_the_same_kernels():
    for sol in paths.exercise_files(paths.SOLUTIONS):
        stub = paths.DAYS / sol.parent.name / sol.name
        assert compile_once(sol, "sm_90").kernels == compile_once(stub, "sm_90").kernels


def test_compile_error_names_file_and_line(tmp_path):
    bad = tmp_path / "broken.cu"
    bad.write_text('#include <course/common.cuh>\n\nextern "C" __global__ void k(float* x) {\n  x[0] = y;\n}\n')
    with pytest.raises(compiler.CompileError) as info:
        compiler.compile_file(bad, "sm_90")
    assert f"{bad}(4)" in str(info.value) and "identifier \"y\" is undefined" in str(info.value)


def test_bad_arch_is_named():
    with pytest.raises(ValueError, match="arch 'ampere'"):
        compiler.options("ampere")


def test_course_headers_and_cccl_are_on_the_include_path(tmp_path):
    src = tmp_path / "cub.cu"
    src.write_text('#include <cub/block/block_reduce.cuh>\n#include <course/vec_dtypes.cuh>\n'
                   'extern "C" __global__ void k(float* o) {\n'
                   '  using R = cub::BlockReduce<float, 128>; __shared__ R::TempStorage t;\n'
                   '  course::vec_t<half, 8> v; v.fill(__float2half(1.f));\n'
                   '  float s = R(t).Sum(__half2float(v[0])); if (threadIdx.x == 0) o[0] = s;\n}\n')
    assert compiler.compile_file(src, "sm_80").kernels == ["k"]


def test_compiling_leaves_pythons_shared_bytes_alone(tmp_path):
    """NVRTC writes its outputs into the buffers it is given; a one-byte log once went into Python's
    shared b" " and made every later `import torch` fail (its schemas lost their spaces)."""
    clean = tmp_path / "clean.cu"
    clean.write_text('extern "C" __global__ void k(float* x) { x[threadIdx.x] = 0.f; }\n')
    assert compiler.compile_file(clean).log == ""  # NVRTC's log is then one byte, its NUL
    assert b" ".hex() == "20" and bytes([32]).hex() == "20" and b"a b".split() == [b"a", b"b"]


def test_required_arch_is_read_from_the_source(tmp_path):
    assert compiler.required_arch(paths.SOLUTIONS / "day10" / "gemm_fp8.cu") == 89
    assert compiler.required_arch(paths.SOLUTIONS / "day10" / "gemm.cu") is None
    assert compiler.arch_number("sm_90a") == 90
    with pytest.raises(ValueError, match="sm_80 or sm_90"):
        compiler.arch_number("ampere")
