"""Day 13 SASS facts, checked on the solution's cubins (no GPU needed): rope.cu compiled on its own
holds a vec-8 kernel of each layout, and both move 16 bytes per access (LDG.E.128 / STG.E.128) without
register spills; rendered through the JIT, every specialisation of the family compiles, and vec 8 keeps
its 16-byte accesses in both layouts."""
import pytest

from grader import compiler, sass
from grader.compiler import ARCHS
from grader.exercises import day13
from grader.paths import SOLUTIONS
from grader.pytest_plugin import require_sass_tools

require_sass_tools()

ROPE = SOLUTIONS / "day13" / "rope.cu"
KERNELS = ("rope_f16_d128_v8_h4", "rope_interleaved_f16_d128_v8_h4")


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("kernel", KERNELS)
def test_both_layouts_move_16_bytes_per_access(kernel, arch):
    assert sass.has(ROPE, arch, r"LDG\.E\.128", kernel=kernel), sass.report(ROPE, arch, kernel)
    assert sass.has(ROPE, arch, r"STG\.E\.128", kernel=kernel), sass.report(ROPE, arch, kernel)
    assert not sass.has(ROPE, arch, r"LDG\.E\.U16|STG\.E\.U16", kernel=kernel), sass.report(ROPE, arch, kernel)


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("kernel", KERNELS)
def test_no_register_spills(kernel, arch):
    usage = sass.resources(sass.load(ROPE, arch)[0])[kernel]
    # sincosf's slow path (Payne-Hanek reduction of large angles) keeps a small array on the stack
    assert usage["spill_stores"] == usage["spill_loads"] == 0, usage


@pytest.mark.parametrize("interleaved", [False, True], ids=["rotate_half", "interleaved"])
def test_rendered_vec8_specialisations_keep_16_byte_accesses(tmp_path, interleaved):
    name, text = day13.render_rope(compiler.read_source(ROPE), "bfloat16", 256, 8, 2, interleaved=interleaved)
    path = tmp_path / f"{name}.cu"
    path.write_text(text)
    assert sass.has(path, "sm_90", r"LDG\.E\.128", kernel=name), sass.report(path, "sm_90", name)
    assert sass.has(path, "sm_90", r"STG\.E\.128", kernel=name), sass.report(path, "sm_90", name)
