"""What a device backend is: the interface grader.device delegates to, and the errors it raises.

Two backends implement it: `grader.cupy_backend.CupyBackend` (a CUDA GPU, through cupy) and
`grader.emulator.backend.EmulatorBackend` (the PTX emulator, on the CPU). grader.device picks one; the
course asks the backend in use what it can do (`timed`, `full_sizes`, `any_arch`, `survives_faults`,
`hardware_counters`, `cubins`, `memory_report()`) rather than which one it is. A ground floor: this module imports nothing of the course.
"""
from __future__ import annotations

import abc


class NoGPU(RuntimeError):
    """Raised when a kernel must run and no CUDA GPU is usable."""


class KernelFault(RuntimeError):
    """A launched kernel failed (illegal address, misaligned access, trap...). The CUDA context is
    unusable after most of these: restart the notebook kernel (or rely on the grader's child process)."""


class NoTiming(NoGPU):
    """Raised when a backend that cannot time kernels (the emulator) is asked to."""


class Backend(abc.ABC):
    """A place where kernels run. grader.device's functions of the same names document each operation."""

    name: str          # as $COURSE_BACKEND names it: "cupy" or "emulator"
    timed: bool        # kernels can be timed; False: time_ms and flush_l2 raise NoTiming, memory_report stands in
    full_sizes: bool   # the course's full problem sizes run in reasonable time; False: small sizes (a CPU)
    any_arch: bool     # kernels for every architecture run (sm_90a's too); False: the GPU's own architecture limits them
    survives_faults: bool    # the device stays usable after a KernelFault; False: it is lost (a CUDA context)
    hardware_counters: bool  # Nsight Compute / Systems profile its kernels; False: grader.profile_estimates stand in
    cubins: bool       # runs compiled cubins (grader.jit's disk cache); False: modules are built from source each time

    def gpu_available(self) -> bool:
        return self.why_no_gpu() is None

    @abc.abstractmethod
    def why_no_gpu(self) -> str | None: ...

    @abc.abstractmethod
    def why_not_hardware(self) -> str | None: ...

    @abc.abstractmethod
    def require_gpu(self): ...

    @abc.abstractmethod
    def asarray(self, host): ...

    @abc.abstractmethod
    def to_host(self, arr, as_dtype=None): ...

    @abc.abstractmethod
    def empty(self, shape, dt="float32", guard: int = 0): ...

    @abc.abstractmethod
    def random(self, shape, dt="float32", seed: int = 0): ...

    @abc.abstractmethod
    def compile(self, path, options: tuple[str, ...] = ()):
        """The `compiler.Compiled` of a .cu file as `load` compiles it here (NVRTC; the compile cache)."""

    @abc.abstractmethod
    def load(self, path, options: tuple[str, ...] = ()): ...

    @abc.abstractmethod
    def load_source(self, code: str, name: str = "inline.cu", options: tuple[str, ...] = ()): ...

    @abc.abstractmethod
    def load_cubin(self, path):
        """A module of a cubin compiled for `arch()` (where `cubins` is True)."""

    @abc.abstractmethod
    def current_device(self) -> int:
        """The index of the device kernels launch on now (cupy's current device)."""

    @abc.abstractmethod
    def arch(self) -> str:
        """The architecture kernels are compiled for here, like 'sm_90' (no driver call)."""

    @abc.abstractmethod
    def synchronize(self, what: str = "kernel") -> None: ...

    @abc.abstractmethod
    def launch(self, kernel, grid, block, args, shared_mem: int = 0, what: str | None = None) -> None: ...

    @abc.abstractmethod
    def properties(self) -> dict: ...

    @abc.abstractmethod
    def tensor_map(self, array, box: tuple[int, ...], swizzle: int, elem: int):
        """The kernel argument of a tiled TMA tensor map over a row-major device array (checked by
        grader.tensor_map): `box` and the array's shape outermost first, as numpy."""

    @abc.abstractmethod
    def flush_l2(self) -> None:
        """Evict the L2 cache (before a timed run)."""

    @abc.abstractmethod
    def time_ms(self, fn, *, warmup: int = 3, repeat: int = 20, flush: bool = True) -> list[float]:
        """Every timed run's milliseconds of `fn()` (which launches device work), after `warmup` runs."""

    @abc.abstractmethod
    def memory_totals(self) -> dict | None:
        """The last launch's loads summed: {"global": requests, sectors, ideal, bytes; "shared":
        requests, wavefronts, ideal, max_ways}, where the backend keeps statistics; None where not."""

    @abc.abstractmethod
    def memory_report(self) -> str | None:
        """The memory statistics of the last launch as a table (coalescing, bank conflicts), where the
        backend keeps them; None where it does not."""
