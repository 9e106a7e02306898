"""Course tools around the emulator (`grader.emulator`, the interpreter, imports none of them): they run the
course's exercises and solutions on it.

- compare: record kernel outputs on any backend, diff a GPU's recording against the emulator's
- speed: the emulator's own benchmark (launches of the solutions; --save / --compare bitwise)
- day_report: the memory tables of a day's kernels (`python -m grader.emutools.day_report dayNN`)
- pytest_scaling: the pytest plugin that skips, with the reason, cases too large for a CPU and timed tests
"""
