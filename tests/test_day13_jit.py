"""Day 13's JIT for real, without a GPU: Jinja2 rendering, cache keys, compile-once with NVRTC,
invalidation when a template, a kernel file or a course header changes, a cache that survives a
restart, and two processes compiling the same kernel at once."""
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time

import pytest

from grader import compiler, device, exercises, jit, paths
from grader.compiler import CompileError
from grader.exercises import day13
from grader.jit import cache as jit_cache

ARCH = "sm_90"
TINY = """\
{# a tiny template: one kernel, scaled by a constant #}
extern "C" __global__ void {{ name }}({{ ctype }}* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] * ({{ ctype }})({{ scale }});
}
"""


@pytest.fixture
def templates(tmp_path):
    folder = tmp_path / "templates"
    folder.mkdir()
    (folder / "scale.cu.jinja").write_text(TINY)
    return folder


@pytest.fixture
def cache(tmp_path):
    return jit.Cache(tmp_path / "cache")


def _scale(templates, scale=2, name="scale_f32"):
    return jit.render("scale.cu.jinja", templates, name=name, ctype="float", scale=scale)


# ---- rendering ----------------------------------------------------------------------------------

def test_render_fills_every_parameter(templates):
    src = _scale(templates, 3)
    assert 'extern "C" __global__ void scale_f32(float* x, int n)' in src
    assert "x[i] * (float)(3)" in src and "{{" not in src and "{#" not in src
    assert jit.template_parameters("scale.cu.jinja", templates) == {"name", "ctype", "scale"}


def test_render_names_missing_and_unknown_parameters(templates):
    with pytest.raises(ValueError, match=r"missing scale; unknown scael \(it takes: ctype, name, scale\)"):
        jit.render("scale.cu.jinja", templates, name="k", ctype="float", scael=2)
    with pytest.raises(FileNotFoundError, match=r"no template 'nope.cu.jinja'.*scale.cu.jinja"):
        jit.render("nope.cu.jinja", templates)


def test_course_rope_template_takes_the_family_parameters():
    assert jit.template_parameters("rope.cu.jinja") == {"kernel_source", "name", "ctype", "head_dim",
                                                         "vec", "heads_per_block", "interleaved"}


def test_the_layout_is_a_branch_of_the_template():
    source = compiler.read_source(paths.SOLUTIONS / "day13" / "rope.cu")
    half_name, half = day13.render_rope(source, "float16", 128, 8, 4)
    il_name, il = day13.render_rope(source, "float16", 128, 8, 4, interleaved=True)
    assert (half_name, il_name) == ("rope_f16_d128_v8_h4", "rope_interleaved_f16_d128_v8_h4")
    tail = lambda text: text[text.index('#line 1 "rope.cu.jinja'):]
    assert "day13::rope<half, 128, 8, 4>" in tail(half) and "rope_interleaved" not in tail(half)
    assert "day13::rope_interleaved<half, 128, 8, 4>" in tail(il)


# ---- keys -----------------------------------------------------------------------------------------

def test_key_covers_source_options_arch_and_compiler():
    opts = compiler.options(ARCH)
    base = jit_cache.make_key("src", opts, ARCH, "13.0")
    assert base == jit_cache.make_key("src", opts, ARCH, "13.0") and len(base) == 64
    others = {jit_cache.make_key("src ", opts, ARCH, "13.0"),
              jit_cache.make_key("src", opts + ("-O3",), ARCH, "13.0"),
              jit_cache.make_key("src", opts, "sm_80", "13.0"),
              jit_cache.make_key("src", opts, ARCH, "13.1")}
    assert base not in others and len(others) == 4


def test_key_covers_the_course_headers(tmp_path, monkeypatch):
    include = tmp_path / "include"
    shutil.copytree(paths.INCLUDE, include)
    monkeypatch.setattr(paths, "INCLUDE", include)
    before = jit_cache.make_key("src", (), ARCH, "13.0")
    header = include / "course" / "common.cuh"
    header.write_text(header.read_text() + "\n// edited\n")
    assert jit_cache.make_key("src", (), ARCH, "13.0") != before


def test_entry_names_are_checked(cache):
    with pytest.raises(ValueError, match="letters, digits and _"):
        cache.entry("../evil", "0" * 64, ARCH)
    with pytest.raises(ValueError, match="SHA-256"):
        cache.entry("k", "abc", ARCH)


# ---- compile once, then from the cache --------------------------------------------------------------

def test_second_build_pays_no_compile(templates, cache):
    src = _scale(templates)
    first = jit.build("scale_f32", src, arch=ARCH, cache=cache)
    second = jit.build("scale_f32", src, arch=ARCH, cache=cache)
    assert first.compiled and not second.compiled
    assert second.cubin == first.cubin and first.cubin[:4] == b"\x7fELF"
    # no compile is the guarantee; the time only shows it (loosely: a loaded 2-core CI machine stalls reads)
    assert second.compile_seconds == 0 and second.seconds < first.compile_seconds, \
        (first.compile_seconds, second.seconds)
    meta = json.loads(first.entry.meta.read_text())
    assert meta["key"] == first.key and meta["arch"] == ARCH and f"-arch={ARCH}" in meta["options"]
    assert first.entry.source.read_text() == src
    assert [e["name"] for e in cache.entries()] == ["scale_f32"]


def test_each_architecture_gets_its_own_entry(templates, cache):
    src = _scale(templates)
    a, b = (jit.build("scale_f32", src, arch=arch, cache=cache) for arch in ("sm_80", "sm_90"))
    assert a.compiled and b.compiled and a.key != b.key and a.cubin != b.cubin


def test_an_edited_template_is_recompiled(templates, cache):
    old = jit.build("scale_f32", _scale(templates), arch=ARCH, cache=cache)
    tpl = templates / "scale.cu.jinja"
    tpl.write_text(tpl.read_text().replace("x[i] * ", "x[i] * 0.5f * "))
    new = jit.build("scale_f32", _scale(templates), arch=ARCH, cache=cache)
    assert new.compiled and new.key != old.key and new.cubin != old.cubin
    assert not jit.build("scale_f32", _scale(templates), arch=ARCH, cache=cache).compiled


def test_an_edited_kernel_file_is_recompiled(tmp_path, cache):
    rope = tmp_path / "rope.cu"
    shutil.copy(paths.SOLUTIONS / "day13" / "rope.cu", rope)
    name, src = day13.render_rope(compiler.read_source(rope), "float16", 128, 8, 4)
    old = jit.build(name, src, arch=ARCH, cache=cache)
    rope.write_text(rope.read_text().replace("x1 * c - x2 * s", "x1 * c - x2 * s + 0.f"))
    _, edited = day13.render_rope(compiler.read_source(rope), "float16", 128, 8, 4)
    new = jit.build(name, edited, arch=ARCH, cache=cache)
    assert old.compiled and new.compiled and new.key != old.key


def test_a_damaged_entry_is_rebuilt(templates, cache):
    first = jit.build("scale_f32", _scale(templates), arch=ARCH, cache=cache)
    first.entry.cubin.write_bytes(first.cubin[:3])  # as if the disk filled up mid-write
    again = jit.build("scale_f32", _scale(templates), arch=ARCH, cache=cache)
    assert again.compiled and again.cubin == first.cubin


def test_clear_empties_the_cache(templates, cache):
    jit.build("scale_f32", _scale(templates), arch=ARCH, cache=cache)
    assert cache.clear() == 1 and cache.entries() == []
    assert jit.build("scale_f32", _scale(templates), arch=ARCH, cache=cache).compiled


def test_compile_errors_name_the_students_file_and_line(tmp_path, cache):
    rope = tmp_path / "rope.cu"
    text = (paths.SOLUTIONS / "day13" / "rope.cu").read_text()
    rope.write_text(text.replace("a.store(h + i0);", "a.store(h + i0) oops;"))
    line = rope.read_text().splitlines().index("  a.store(h + i0) oops;") + 1
    name, src = day13.render_rope(compiler.read_source(rope), "float16", 128, 8, 4)
    with pytest.raises(CompileError) as info:
        jit.build(name, src, arch=ARCH, cache=cache)
    assert f"{rope}({line})" in str(info.value)
    assert cache.entries() == [], "a failed compile left an entry"


# ---- across processes -----------------------------------------------------------------------------

CHILD = """
import hashlib, json, os, sys, time
from pathlib import Path
from grader import jit
cache, templates, tag = jit.Cache(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
(templates.parent / f"ready-{tag}").touch()
while not (templates.parent / "go").exists():
    time.sleep(0.005)
src = jit.render("scale.cu.jinja", templates, name="scale_f32", ctype="float", scale=2)
b = jit.build("scale_f32", src, arch="sm_90", cache=cache)
print(json.dumps({"compiled": b.compiled, "sha": hashlib.sha256(b.cubin).hexdigest(), "pid": os.getpid()}))
"""


def _children(templates, cache, tags):
    env = {**os.environ, "PYTHONPATH": str(paths.ROOT)}
    procs = [subprocess.Popen([sys.executable, "-c", CHILD, str(cache.root), str(templates), t],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
             for t in tags]
    return procs


def _results(procs):
    out = []
    for p in procs:
        stdout, stderr = p.communicate(timeout=120)
        assert p.returncode == 0, stderr
        out.append(json.loads(stdout.strip().splitlines()[-1]))
    return out


def test_cache_survives_a_restart(templates, cache):
    first = jit.build("scale_f32", _scale(templates), arch=ARCH, cache=cache)
    (templates.parent / "go").touch()
    (child,) = _results(_children(templates, cache, ["restart"]))
    assert not child["compiled"], "a new process compiled again instead of reading the cache"
    assert child["sha"] == hashlib.sha256(first.cubin).hexdigest()


def test_two_processes_compile_once(templates, cache):
    procs = _children(templates, cache, ["a", "b"])
    deadline = time.time() + 60
    while not all((templates.parent / f"ready-{t}").exists() for t in "ab"):
        assert time.time() < deadline and all(p.poll() is None for p in procs), "a child did not start"
        time.sleep(0.01)
    (templates.parent / "go").touch()  # both start building at the same moment
    results = _results(procs)
    assert sorted(r["compiled"] for r in results) == [False, True], results
    assert results[0]["sha"] == results[1]["sha"]
    entry_dir = cache.root / ARCH
    assert not list(entry_dir.glob(".*.tmp")), "a temporary file was left behind"
    meta = json.loads(next(entry_dir.glob("*.json")).read_text())
    assert meta["pid"] == next(r["pid"] for r in results if r["compiled"])


# ---- the day's kernel family ----------------------------------------------------------------------

CONFIGS = sorted({(c["dtype"], c["head_dim"], c["vec"], c["heads_per_block"]) for c in exercises.get("day13", "rope").cases})


@pytest.mark.parametrize("which", ["solutions", "days"])
def test_every_specialisation_of_stub_and_solution_compiles(which, cache):
    source = compiler.read_source(getattr(paths, which.upper()) / "day13" / "rope.cu")
    for config in CONFIGS:
        name, src = day13.render_rope(source, *config)
        built = jit.build(name, src, arch=ARCH, cache=cache)
        assert built.cubin[:4] == b"\x7fELF"


@pytest.mark.parametrize("args, message", [
    (("float32", 128, 8, 4), "dtype 'float32'"),
    (("float16", 96, 8, 4), "head_dim 96"),
    (("float16", 64, 16, 4), "vec 16"),
    (("float16", 64, 8, 0), "heads_per_block 0"),
    (("float16", 256, 1, 9), "heads_per_block 9"),
])
def test_bad_specialisations_are_named(args, message):
    with pytest.raises(ValueError, match=message):
        day13.spec_name(*args)


def test_a_module_without_source_is_refused():
    with pytest.raises(ValueError, match="carries no source text"):
        day13.kernel_source(object())


@pytest.mark.gpu
def test_on_the_gpu_the_second_load_pays_no_compile(tmp_path):
    if device.why_not_hardware():
        pytest.skip(f"needs a CUDA GPU: {device.why_not_hardware()}")
    cache = jit.Cache(tmp_path / "cache")
    name, src = day13.render_rope(compiler.read_source(paths.SOLUTIONS / "day13" / "rope.cu"),
                                  "float16", head_dim=128, vec=8, heads_per_block=4)
    assert name == "rope_f16_d128_v8_h4"
    start = time.perf_counter()
    module = jit.load("rope_f16_d128_v8_h4", src, cache=cache)
    module.get_function("rope_f16_d128_v8_h4")
    first = time.perf_counter() - start
    assert jit.loaded("rope_f16_d128_v8_h4", src, cache=cache).compiled
    start = time.perf_counter()
    again = jit.load("rope_f16_d128_v8_h4", src, cache=cache)
    second = time.perf_counter() - start
    assert again is module and second < first / 20, (first, second)
    jit.forget_loaded()  # as after a restart: the disk cache serves it
    reloaded = jit.load("rope_f16_d128_v8_h4", src, cache=cache)
    assert not jit.loaded("rope_f16_d128_v8_h4", src, cache=cache).compiled
    reloaded.get_function("rope_f16_d128_v8_h4")
