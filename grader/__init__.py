"""The CUDA course's grader: kernel loading, numpy references, checks, benchmarks, plots, SASS and nbgrader.

Start at `grader.device` (the one door to the GPU), `grader.exercises` (what each day checks) and
`grader.cli` (`python -m grader --help`).
"""
__version__ = "0.1.0"
