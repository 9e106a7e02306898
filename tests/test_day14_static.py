"""Day 14 SASS facts, checked on the solutions' cubins (no GPU needed): append_kv and rope_append_kv
move 16 bytes per access, loads and stores alike (one loop per destination: a single loop that picks
the destination per vector compiles to 4-byte stores), without register spills."""
import pytest

from grader import sass
from grader.compiler import ARCHS
from grader.paths import SOLUTIONS
from grader.pytest_plugin import require_sass_tools

require_sass_tools()

DAY14 = SOLUTIONS / "day14"
KERNELS = [(f, f"{f[:-3]}_{s}") for f in ("append_kv.cu", "rope_append_kv.cu") for s in ("f16", "bf16")]


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("file,kernel", KERNELS, ids=[k for _, k in KERNELS])
def test_every_copy_is_16_bytes(file, kernel, arch):
    path = DAY14 / file
    ops = sass.histogram(sass.load(path, arch)[1][kernel])
    stores = {op: n for op, n in ops.items() if op.startswith("STG")}
    assert stores == {"STG.E.128": 3}, sass.report(path, arch, kernel)   # q, k row, v row
    assert sum(n for op, n in ops.items() if op.startswith("LDG.E.128")) == 3, sass.report(path, arch, kernel)


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("file,kernel", KERNELS, ids=[k for _, k in KERNELS])
def test_no_register_spills(file, kernel, arch):
    usage = sass.resources(sass.load(DAY14 / file, arch)[0])[kernel]
    assert usage["spill_stores"] == usage["spill_loads"] == 0, usage
