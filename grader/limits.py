"""The limits of a process that runs student code (a kernel's grading child, a sandboxed notebook or
Python exercise): CPU time, file size, no core files, address space, processes. Imports nothing of the
course, so the isolation and the sandbox both stand on it."""
from __future__ import annotations

import signal
import sys

EMULATOR_ADDRESS_SPACE = 16 << 30  # CUDA reserves far more address space than it uses: only the emulator is capped
#: BLAS and OpenMP threads: grade-class sets them to its share of the cores for each worker, whose grading
#: children and notebook kernels keep them (unset, every float64 reference would start one per core).
THREAD_ENV = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def apply_limits(cpu_seconds: int, address_space: int | None, processes: int | None = None) -> None:
    """This process's limits (its children inherit them): CPU time, file size, no core files, and the
    address space and number of processes where given; it dies with its parent."""
    import resource

    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_FSIZE, (256 << 20, 256 << 20))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 5))
    if address_space:
        resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))
    if processes:
        resource.setrlimit(resource.RLIMIT_NPROC, (processes, processes))
    if sys.platform == "linux":  # dies with the grader that started it (a killed autograde, say)
        import ctypes

        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
