"""The grader package imports downward: the table of days (`grader.days`) at the bottom, then where things
live (`paths`), the exercise registry (`grader/exercises/__init__.py`), the kernels' shared launch code
(`grader/launchers/`) and the JIT, the day-14 API (`grader.jit.ops`), the day modules, the commands on top.
Imports are read from the source with `ast` (those inside functions too; nothing is imported), so the
test takes well under a second."""
import ast
import re

import pytest

from grader import paths

GRADER = paths.ROOT / "grader"
DAY_MODULE = re.compile(r"^grader\.exercises\.day\d\d$")


def under(*packages):
    """Whether a module is one of `packages` or inside one of them."""
    return lambda m: any(m == p or m.startswith(p + ".") for p in packages)


#: What only a command (or the lessons) may import: nothing below may reach up to these.
COMMANDS = under("grader.__main__", "grader.cli", "grader.notebook", "grader.nbgrader_course", "grader.autograde",
                 "grader.classgrade", "grader.leaderboard", "grader.isolation", "grader.sanitize",
                 "grader.profile", "grader.debug", "grader.hints", "grader.autotune", "grader.pytest_plugin",
                 "grader.emutools")
JIT_CORE = ("grader.jit", "grader.jit.cache")
BACKEND_LAYER = under("grader.backend", "grader.dtypes", "grader.cupy_backend", "grader.emulator.backend",
                      "grader.emulator.cupy_shim")
#: What the emulator (the interpreter, with its backend) may import: itself, the compiler, the backend
#: interface, the table formatter and the message catalogue; the course tools that run exercises on it are in grader/emutools.
EMULATOR_NEEDS = under("grader.emulator", "grader.compiler", "grader.backend", "grader.dtypes", "grader.tables",
                       "grader.messages")

#: (the modules a rule is about, the imports it forbids them, why).
RULES = (
    (under("grader.days"), lambda m: True, "the table of days imports nothing from the course"),
    (under("grader.paths"), lambda m: m != "grader.days", "paths imports only the table of days"),
    (lambda m: m == "grader.exercises", lambda m: m not in ("grader.days", "grader.paths"),
     "the exercise registry imports only the table of days and paths"),
    (under("grader.launchers"), lambda m: under("grader.exercises", "grader.jit.ops")(m) or COMMANDS(m),
     "the launch code is below the exercises and the day-14 API"),
    (lambda m: m in JIT_CORE, lambda m: under("grader.exercises", "grader.launchers", "grader.jit.ops")(m)
     or COMMANDS(m), "the JIT is below the launch code, the exercises and the day-14 API"),
    (under("grader.jit.ops"), lambda m: bool(DAY_MODULE.match(m)) or COMMANDS(m),
     "the day-14 API looks exercises up in the registry and launches through grader.launchers, "
     "never importing a day module"),
    (DAY_MODULE.match, COMMANDS, "a day module is below the commands"),
    (BACKEND_LAYER, lambda m: m in ("grader.device", "grader.bench", "grader.notebook") or COMMANDS(m),
     "the device backends are below grader.device, which picks one"),
    (under("grader.emulator"), lambda m: not EMULATOR_NEEDS(m),
     "the emulator is the interpreter: course tools (exercises, days, devices) are grader/emutools'"),
)


def module_name(path) -> str:
    parts = path.relative_to(paths.ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict[str, set[str]]:
    """Every grader module and the grader modules it imports, anywhere in its source."""
    files = {module_name(p): p for p in GRADER.rglob("*.py")}
    graph = {}
    for name, path in files.items():
        found = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                found |= {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:  # relative: from the module's package, or a package above it
                    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
                    base = ".".join(package[:len(package) - node.level + 1] + ([base] if base else []))
                found |= {f"{base}.{a.name}" if f"{base}.{a.name}" in files else base for a in node.names}
        graph[name] = {m for m in found if m in files and m != name}
    return graph


def cycle_through(graph: dict[str, set[str]], start: str) -> list[str] | None:
    """An import path from `start` back to itself, or None."""
    stack, seen = [(start, [start])], set()
    while stack:
        module, path = stack.pop()
        for nxt in sorted(graph.get(module, ())):
            if nxt == start:
                return path + [start]
            if nxt not in seen:
                seen.add(nxt)
                stack.append((nxt, path + [nxt]))
    return None


def layer_problems(graph: dict[str, set[str]]) -> list[str]:
    """Each import that goes up a layer, and each import cycle (anywhere in the package)."""
    problems = []
    for module in sorted(graph):
        for applies, forbids, why in RULES:
            if applies(module):
                problems += [f"{module} imports {m}: {why}" for m in sorted(graph[module]) if forbids(m)]
        cycle = cycle_through(graph, module)
        if cycle:
            problems.append("import cycle: " + " -> ".join(cycle))
    return problems


@pytest.fixture(scope="module")
def graph():
    return import_graph()


def test_the_graph_is_read(graph):
    """The parse sees what is there: a test that reads nothing would pass anything."""
    assert graph["grader.paths"] == {"grader.days"}
    assert {"grader.launchers.gemm", "grader.launchers.decode", "grader.launchers.rope"} <= graph["grader.jit.ops"]
    assert "grader.jit.ops" in graph["grader.exercises.capstone"]
    assert "grader.references.tolerances" in graph["grader.exercises.day10"]
    assert all(any(applies(m) for m in graph) for applies, _, _ in RULES)  # no rule is about nothing


def test_the_grader_package_imports_downward(graph):
    problems = layer_problems(graph)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("module, imported, expected", [
    ("grader.days", "grader.paths", "the table of days imports nothing"),
    ("grader.paths", "grader.cli", "paths imports only the table of days"),
    ("grader.exercises", "grader.device", "the exercise registry imports only"),
    ("grader.launchers.gemm", "grader.exercises.day10", "the launch code is below the exercises"),
    ("grader.jit", "grader.launchers.rope", "the JIT is below the launch code"),
    ("grader.jit.ops", "grader.exercises.day11", "never importing a day module"),
    ("grader.exercises.day06", "grader.notebook", "a day module is below the commands"),
    ("grader.emulator.cupy_shim", "grader.device", "the device backends are below grader.device"),
    ("grader.emulator.report", "grader.exercises", "the emulator is the interpreter"),
    ("grader.emulator.program", "grader.exercises.day09", "the emulator is the interpreter"),
    ("grader.exercises.day13", "grader.emutools.compare", "a day module is below the commands"),
    ("grader.emulator.machine", "grader.emulator.ops.table", "import cycle: grader.emulator.machine -> "
                                                             "grader.emulator.ops.table -> grader.emulator.machine"),
    ("grader.plots", "grader.notebook", "import cycle: grader.notebook -> grader.plots -> grader.notebook"),
    ("grader.references.tolerances", "grader.exercises.day10",
     "import cycle: grader.references.tolerances -> grader.exercises.day10 -> grader.references.tolerances"),
])
def test_a_planted_upward_import_is_named(graph, module, imported, expected):
    planted = {m: set(deps) for m, deps in graph.items()}
    planted[module].add(imported)
    assert any(expected in p for p in layer_problems(planted)), layer_problems(planted)


# ---- between the days: what two days share lives in grader/references, below them ------------------

DAY_NUMBER = re.compile(r"^grader\.exercises\.day(\d\d)$")


def taken_from_days(path) -> set[tuple[str, str]]:
    """(day module, name) for each name a file takes from a day module: `from grader.exercises.dayNN
    import name`, or `dayNN.name` after `from grader.exercises import dayNN`."""
    tree = ast.parse(path.read_text(), str(path))
    taken, aliases = set(), {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and DAY_NUMBER.match(node.module):
            taken |= {(node.module, a.name) for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module == "grader.exercises":
            aliases |= {(a.asname or a.name): f"grader.exercises.{a.name}" for a in node.names
                        if DAY_NUMBER.match(f"grader.exercises.{a.name}")}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases:
            taken.add((aliases[node.value.id], node.attr))
    return taken


def cross_day_problems(graph: dict[str, set[str]], taken: dict[str, set[tuple[str, str]]]) -> list[str]:
    """A private name taken from a day module, a day importing another (a later one above all),
    grader/references importing an exercise module."""
    problems = [f"{module} takes {name} from {day}: a private name; what two days share goes in grader/references"
                for module in sorted(taken) for day, name in sorted(taken[module]) if name.startswith("_")]
    for module in sorted(graph):
        day = DAY_NUMBER.match(module)
        for imported in sorted(graph[module]):
            later = DAY_NUMBER.match(imported)
            if day and later and later.group(1) > day.group(1):
                problems.append(f"{module} imports {imported}: a day never imports a later day")
            elif day and later:
                problems.append(f"{module} imports {imported}: what a day shares with an earlier one goes in "
                                f"grader/references")
            if under("grader.references")(module) and under("grader.exercises")(imported):
                problems.append(f"{module} imports {imported}: grader/references is below the exercises")
    return problems


@pytest.fixture(scope="module")
def taken():
    folders = (GRADER / "exercises", GRADER / "references")
    return {module_name(p): taken_from_days(p) for folder in folders for p in folder.rglob("*.py")}


def test_days_share_through_references_only(graph, taken):
    assert ("grader.exercises.day14", "why_no_ffi") in taken_from_days(paths.ROOT / "days" / "day14" / "test_day14.py")
    problems = cross_day_problems(graph, taken)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("module, imported, name, expected", [
    ("grader.exercises.day15", "grader.exercises.day09", "_normal", "a private name"),
    ("grader.exercises.capstone", "grader.exercises.day06", "_norm_launch", "a private name"),
    ("grader.exercises.day01", "grader.exercises.day03", "assert_within", "a day never imports a later day"),
    ("grader.references.tolerances", "grader.exercises.day03", "ulp", "grader/references is below the exercises"),
    ("grader.exercises.day10", "grader.exercises.day09", "accumulate_tolerance", "goes in grader/references"),
])
def test_a_planted_cross_day_import_is_named(graph, taken, module, imported, name, expected):
    planted_graph = {m: set(deps) | ({imported} if m == module else set()) for m, deps in graph.items()}
    planted_taken = {m: set(names) | ({(imported, name)} if m == module else set()) for m, names in taken.items()}
    assert any(expected in p for p in cross_day_problems(planted_graph, planted_taken))
