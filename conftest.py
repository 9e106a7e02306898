# The course's pytest plugin (--solutions, the `course` fixture, the per-exercise summary).
pytest_plugins = ["grader.pytest_plugin"]
