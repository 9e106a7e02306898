"""grader.compile_cache: NVRTC runs once per source, options and course headers, across processes."""
from __future__ import annotations

import pytest

from grader import compile_cache, compiler, paths

pytest.importorskip("cuda.bindings")

SOURCE = 'extern "C" __global__ void twice(float* x) { x[threadIdx.x] *= 2.0f; }\n'


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """An empty cache under a temporary .course, course headers in a temporary tree; counts NVRTC runs."""
    monkeypatch.setattr(paths, "STATE", tmp_path / ".course")
    headers = tmp_path / "include"
    (headers / "course").mkdir(parents=True)
    (headers / "course" / "common.cuh").write_text("#pragma once\n")
    monkeypatch.setattr(paths, "INCLUDE", headers)
    monkeypatch.delenv(compile_cache.ENV, raising=False)
    compiler.nvrtc_version()  # asks NVRTC once per process: not a compile
    runs = []
    real = compiler._nvrtc

    def counted():
        runs.append(1)
        return real()
    monkeypatch.setattr(compiler, "_nvrtc", counted)
    return runs, headers


def compile_(source=SOURCE, arch="sm_80"):
    return compiler.nvrtc_compile(source, "twice.cu", compiler.options(arch))


def test_a_second_compile_comes_from_the_cache(cache):
    runs, _ = cache
    first = compile_()
    assert compile_() == first and len(runs) == 1
    assert b"twice" in first[1] and ".entry twice" in first[0]


def test_source_options_and_course_headers_each_make_a_new_entry(cache):
    runs, headers = cache
    compile_()
    compile_(SOURCE.replace("2.0f", "3.0f"))
    compile_(arch="sm_90")
    assert len(runs) == 3
    (headers / "course" / "common.cuh").write_text("#pragma once\n// edited\n")
    compile_()
    assert len(runs) == 4


def test_a_malformed_entry_is_compiled_again(cache):
    runs, _ = cache
    expected = compile_()
    for entry in (paths.STATE / "nvrtc").glob("*.json"):
        entry.write_text('{"ptx": 1, "cubin": "%%", "log": ""}')
    assert compile_() == expected and len(runs) == 2


def test_errors_are_not_kept_and_off_keeps_nothing(cache, monkeypatch):
    runs, _ = cache
    for _ in range(2):
        with pytest.raises(compiler.CompileError):
            compile_("this is not CUDA")
    assert len(runs) == 2
    monkeypatch.setenv(compile_cache.ENV, "off")
    compile_()
    compile_()
    assert len(runs) == 4 and not list((paths.STATE / "nvrtc").glob("*.json"))


def test_the_oldest_entries_are_pruned(cache, monkeypatch):
    monkeypatch.setattr(compile_cache, "MAX_ENTRIES", 2)
    for k in range(4):
        compile_(SOURCE.replace("2.0f", f"{k}.0f"))
    assert len(list((paths.STATE / "nvrtc").glob("*.json"))) == 2
