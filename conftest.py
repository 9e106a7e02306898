# The course's pytest plugin (--solutions, the `course` fixture, the per-exercise summary); outside the
# course's environment, one line saying so instead of an import traceback.
from grader import environment

try:  # what the plugin imports (importing the plugin itself here would stop pytest rewriting its asserts)
    from grader import compiler, device, exercises, progress, runner, sass, tables  # noqa: F401
except ModuleNotFoundError as e:
    if not environment.is_dependency(e):
        raise
    _MISSING = environment.missing_module(e.name)

    def pytest_configure(config):
        import pytest

        raise pytest.UsageError(_MISSING)
else:
    pytest_plugins = ["grader.pytest_plugin"]
