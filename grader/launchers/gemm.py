"""Day 10's GEMM (fp16 in, fp32 accumulate, fp16 out): `GemmConfig`, the kernel's configuration
(tile sizes, warps, stages, swizzle), mirrored by course/gemm.cuh's `Config` and compiled in with -D
options, and the launch of a compiled gemm.cu module with the configuration it was built with.

Shapes: a [M, K] and b [K, N], both row-major fp16 on the device; c [M, N] fp16. K must be a multiple
of 8 (every row of A must start 16-byte aligned for cp.async); when N % 8 != 0, `padded_b` copies b
into a zero-padded [K, ceil8(N)] buffer.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from grader import device
from grader.messages import say

CHUNK = 8                 # fp16 elements in 16 bytes
MAX_THREADS = 1024


@dataclass(frozen=True)
class GemmConfig:
    """One configuration of solutions/day10/gemm.cu (course/gemm.cuh: Config)."""
    bm: int = 128         # block tile rows (of C and A)
    bn: int = 256         # block tile columns (of C and B)
    bk: int = 32          # K step: columns of A / rows of B per pipeline buffer
    warps_m: int = 2      # warps along M; each owns bm / warps_m rows
    warps_n: int = 4      # warps along N; each owns bn / warps_n columns
    stages: int = 3       # pipeline buffers (1: no overlap of loads and mma)
    swizzle: bool = True  # XOR-swizzled shared tiles (False: plain row-major, bank conflicts)

    @property
    def threads(self) -> int:
        return 32 * self.warps_m * self.warps_n

    @property
    def warp_tile(self) -> tuple[int, int]:
        return self.bm // self.warps_m, self.bn // self.warps_n

    @property
    def accumulators(self) -> int:
        """fp32 accumulators per thread: (warp tile elements) / 32."""
        wm, wn = self.warp_tile
        return wm * wn // 32

    def smem_bytes(self) -> int:
        """Dynamic shared memory: the pipeline buffers, or the epilogue's padded C tile if larger."""
        pipe = self.stages * (self.bm * self.bk + self.bk * self.bn) * 2
        return max(pipe, self.bm * (self.bn + CHUNK) * 2)

    def problems(self, max_smem: int | None = None) -> list[str]:
        """Why this configuration cannot compile or run (empty when it can): the same rules as
        course/gemm.cuh's static_asserts, plus the limits of the GPU."""
        out = []
        for name in ("bm", "bn", "bk", "warps_m", "warps_n", "stages"):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 1:
                out.append(say("gemm.positive", name=name, value=repr(value)))
        if out:
            return out
        wm, wn = self.warp_tile
        if self.bm % (16 * self.warps_m) or self.bn % (16 * self.warps_n):
            out.append(say("gemm.warp_tile", bm=self.bm, warps_m=self.warps_m, bn=self.bn, warps_n=self.warps_n))
        if self.bk % 32:
            out.append(say("gemm.bk", bk=self.bk))
        for name, cols in (("bk", self.bk), ("bn", self.bn)):
            chunks = cols // CHUNK
            if cols % CHUNK or chunks & (chunks - 1):
                out.append(say("gemm.chunks", name=name, cols=cols))
        if self.threads > MAX_THREADS:
            out.append(say("gemm.threads", warps_m=self.warps_m, warps_n=self.warps_n, threads=self.threads,
                           most=MAX_THREADS))
        for which, dims, elems in (("A", "bm x bk", self.bm * self.bk), ("B", "bk x bn", self.bk * self.bn)):
            if (elems // CHUNK) % self.threads:
                out.append(say("gemm.split", which=which, dims=dims, chunks=elems // CHUNK, threads=self.threads))
        if not out and self.accumulators > 128:
            out.append(say("gemm.spill", wm=wm, wn=wn, accumulators=self.accumulators))
        if max_smem is not None and self.smem_bytes() > max_smem:
            out.append(say("gemm.smem", need=self.smem_bytes(), most=max_smem))
        return out

    def validate(self, max_smem: int | None = None) -> "GemmConfig":
        problems = self.problems(max_smem)
        if problems:
            raise ValueError(say("gemm.invalid", config=self, problems=say("sep").join(problems)))
        return self

    def defines(self) -> tuple[str, ...]:
        """The -D options that compile gemm.cu with this configuration."""
        return (f"-DGEMM_BM={self.bm}", f"-DGEMM_BN={self.bn}", f"-DGEMM_BK={self.bk}",
                f"-DGEMM_WARPS_M={self.warps_m}", f"-DGEMM_WARPS_N={self.warps_n}",
                f"-DGEMM_STAGES={self.stages}", f"-DGEMM_SWIZZLE={int(self.swizzle)}")

    @property
    def name(self) -> str:
        return (f"{self.bm}x{self.bn}x{self.bk} w{self.warps_m}x{self.warps_n} s{self.stages}"
                + ("" if self.swizzle else " noswz"))

    @classmethod
    def from_dict(cls, d: dict) -> "GemmConfig":
        unknown = set(d) - set(cls.__dataclass_fields__)
        if unknown:
            raise ValueError(say("gemm.fields", fields=sorted(unknown)))
        return cls(**d)


# A decode step's GEMMs have few rows (the batch: M <= 64) and stream large weights: the file's own
# 128 x 256 tiles give N / 256 blocks (16-24 for N 4096-6144) on 132 SMs, at a quarter of the copy
# bandwidth. 64 x 64 tiles give 64-344 blocks; six stages keep the weights' bytes in flight. H100,
# M = 64, K x N 4096 x 6144 / 4096 x 4096 / 4096 x 22016 / 11008 x 4096: 32 / 26 / 90 / 53 us against
# 82 / 81 / 94 / 207 us with 128 x 256 tiles (cuBLAS: 29 / 21 / 74 / 46 us).
SKINNY = GemmConfig(bm=64, bn=64, bk=64, warps_m=2, warps_n=2, stages=6)
SKINNY_ROWS = 64


@functools.lru_cache(maxsize=64)
def _compile_config(code: str, config: GemmConfig):
    config.validate()  # an invalid one raises, and is not cached
    return device.load_source(code, "gemm.cu", options=config.defines())


def with_config(module, config: GemmConfig):
    """The same gemm.cu source as `module`, compiled with `config` (validated and compiled once)."""
    return _compile_config(module.code, config)


def for_rows(module, m: int):
    """The gemm.cu module to multiply M rows with: `module` itself, or for M <= SKINNY_ROWS (a decode
    step) the same source compiled with SKINNY."""
    return with_config(module, SKINNY) if m <= SKINNY_ROWS else module


def validate_shapes(a_shape, b_shape, a_dtype=np.float16, b_dtype=np.float16) -> tuple[int, int, int]:
    """(M, N, K) for a [M, K] @ b [K, N], or ValueError saying what is wrong."""
    if len(a_shape) != 2 or len(b_shape) != 2:
        raise ValueError(say("gemm.dims", a=tuple(a_shape), b=tuple(b_shape)))
    (m, k), (k2, n) = a_shape, b_shape
    if k != k2:
        raise ValueError(say("gemm.inner", m=m, k=k, k2=k2, n=n))
    if min(m, n, k) < 1:
        raise ValueError(say("day10.empty", m=m, n=n, k=k))
    for name, dt in (("a", a_dtype), ("b", b_dtype)):
        if np.dtype(dt) != np.float16:
            raise ValueError(say("gemm.dtype", name=name, dtype=np.dtype(dt)))
    if k % CHUNK:
        raise ValueError(say("gemm.k", k=k, padded=-(-k // CHUNK) * CHUNK))
    return m, n, k


def module_config(module) -> tuple[GemmConfig, int]:
    """The configuration a compiled gemm.cu module was built with, and its shared memory bytes
    (read from the module's `gemm_config`)."""
    cp = device.require_gpu()
    values = cp.ndarray((8,), np.int32, memptr=module.get_global("gemm_config")).get()
    bm, bn, bk, wm, wn, stages, swz, smem = (int(v) for v in values)
    return GemmConfig(bm, bn, bk, wm, wn, stages, bool(swz)), smem


_kernels: dict[int, tuple] = {}


def prepared_kernel(module):
    """(the module's gemm_f16 kernel, its configuration, its shared memory bytes), prepared once:
    above 48 KiB of dynamic shared memory a kernel must opt in."""
    entry = _kernels.get(id(module))
    if entry is None or entry[0] is not module:
        config, smem = module_config(module)
        kernel = module.get_function("gemm_f16")
        if smem > 48 * 1024:
            kernel.max_dynamic_shared_size_bytes = smem
        entry = _kernels[id(module)] = (module, kernel, config, smem)  # keeps the module alive
    return entry[1:]


def launch(module, a, b, c, m: int, n: int, k: int, ldb: int, sync: bool = True) -> None:
    """C = A @ B with a compiled gemm.cu module (its own configuration). ldb: b's row stride."""
    kernel, config, smem = prepared_kernel(module)
    grid = (-(-m // config.bm) * -(-n // config.bn),)
    args = (a, b, c, np.int32(m), np.int32(n), np.int32(k), np.int32(ldb))
    if sync:
        device.launch(kernel, grid, (config.threads,), args, shared_mem=smem,
                      what=f"gemm_f16 [{config.name}] (M={m}, N={n}, K={k})")
    else:
        kernel(grid, (config.threads,), args, shared_mem=smem)


def padded_b(b, n: int):
    """b itself when N % 8 == 0, else a zero-padded [K, ceil8(N)] copy; and its row stride."""
    if n % CHUNK == 0:
        return b, n
    cp = device.require_gpu()
    ldb = -(-n // CHUNK) * CHUNK
    padded = cp.zeros((b.shape[0], ldb), dtype=b.dtype)
    padded[:, :n] = b
    return padded, ldb
