"""The instruction table has one registration mechanism: `@builder` in the module of each family
(grader/emulator/ops/). Every opcode is registered once, by one decorator, and nothing reads the table
while it is being filled, so the table does not depend on the order the families are imported in."""
import ast
import subprocess
import sys

import pytest

from grader import paths
from grader.emulator import ops
from grader.emulator.ops import table

OPS = paths.ROOT / "grader" / "emulator" / "ops"


def decorated_opcodes() -> dict[str, list[str]]:
    """opcode -> the modules whose `@builder(...)` names it, read from the source."""
    found = {}
    for path in sorted(OPS.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            for d in getattr(node, "decorator_list", ()):
                if isinstance(d, ast.Call) and getattr(d.func, "id", None) == "builder":
                    for arg in d.args:
                        found.setdefault(arg.value, []).append(path.stem)
    return found


def test_every_opcode_is_registered_once_by_a_decorator():
    found = decorated_opcodes()
    twice = {op: where for op, where in found.items() if len(where) > 1}
    assert not twice, twice
    assert set(table.BUILDERS) == set(found)
    assert {"add", "ld", "cp", "fence", "mma", "wgmma", "mbarrier", "shfl", "bar", "call"} <= set(found)


def test_only_the_table_touches_the_table():
    """A family that handles some forms of another's opcode calls that builder by name, never through
    BUILDERS (reading it at import time is what made the table depend on import order)."""
    readers = [path.name for path in OPS.glob("*.py") if path.name != "table.py" and "BUILDERS" in path.read_text()]
    assert not readers


def test_a_second_registration_raises_and_changes_nothing():
    before = dict(table.BUILDERS)
    with pytest.raises(ValueError, match=r"add \(by grader\.emulator\.ops\.arith\.build_arith\)"):
        table.builder("not_an_opcode", "add")(lambda prog, inst: None)
    assert table.BUILDERS == before


def table_after_importing(order: list[str]) -> str:
    """The table once the families are imported in this order (the package's __init__, which imports them
    all in its own order, left out)."""
    code = ("import importlib, sys, types\n"
            "import grader.emulator\n"
            "package = types.ModuleType('grader.emulator.ops')\n"
            f"package.__path__ = [{str(OPS)!r}]\n"
            "sys.modules['grader.emulator.ops'] = package\n"
            f"for m in {order!r}: importlib.import_module('grader.emulator.ops.' + m)\n"
            "from grader.emulator.ops.table import BUILDERS\n"
            "print(sorted((k, f.__module__, f.__name__) for k, f in BUILDERS.items()))")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          cwd=paths.ROOT).stdout


def test_the_table_is_the_same_whatever_order_the_families_load_in():
    families = sorted(p.stem for p in OPS.glob("*.py") if p.stem not in ("__init__", "table"))
    assert table_after_importing(families) == table_after_importing(families[::-1])
    assert ops.decode is table.decode
