"""Day 14, part 2: rmsnorm_ffi.cu built into a TVM-FFI module, and registered as the PyTorch custom op
`course::rmsnorm`, so that `torch.compile(fullgraph=True)` keeps it in one graph (no graph break):

    rmsnorm = rmsnorm_op.op()                    # also torch.ops.course.rmsnorm
    y = rmsnorm(x, weight, 1e-6)                 # x [rows, d], weight [d]: CUDA float16 / bfloat16 tensors
    torch.compile(lambda x, w: rmsnorm(x * 2, w, 1e-6) + 1, fullgraph=True)(x, w)

`build()` compiles with nvcc through `tvm_ffi.cpp.load` (cached by TVM-FFI in ~/.cache/tvm-ffi, or
$TVM_FFI_CACHE_DIR), with the day-6 kernels of solutions/day06/rmsnorm.cu. The module needs no torch:
any DLPack tensor goes in (numpy's too, refused for being on the CPU).
(No `from __future__ import annotations` here: torch.library reads the op's schema from its annotations.)
"""
import functools
import hashlib
import os
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]


@functools.cache
def build(day06: Path = ROOT / "solutions" / "day06"):
    """The TVM-FFI module of rmsnorm_ffi.cu, with the day-6 kernels of the folder `day06`."""
    import tvm_ffi.cpp

    tag = hashlib.sha256(str(day06).encode()).hexdigest()[:8]
    cuda_lib = Path(os.environ.get("CUDA_HOME", "/usr/local/cuda")) / "lib64"  # TVM-FFI looks beside nvcc only
    return tvm_ffi.cpp.load(name=f"course_rmsnorm_ffi_{tag}", cuda_files=[str(HERE / "rmsnorm_ffi.cu")],
                            extra_include_paths=[str(ROOT / "kernels" / "include"), str(day06)],
                            extra_cuda_cflags=["-std=c++17"],
                            extra_ldflags=[f"-L{cuda_lib}"] if cuda_lib.is_dir() else None)


@functools.cache
def op():
    """`course::rmsnorm(x, weight, eps) -> Tensor`, registered with torch.library once per process."""
    import torch

    if hasattr(torch.ops.course, "rmsnorm"):  # this file was loaded before, in this process
        return torch.ops.course.rmsnorm
    @torch.library.custom_op("course::rmsnorm", mutates_args=())
    def rmsnorm(x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
        """x * rsqrt(mean(x^2) + eps) * weight over the last axis, by the TVM-FFI function, on torch's
        current stream (TVM-FFI passes it with the tensors)."""
        out = torch.empty_like(x)
        build().rmsnorm(x, weight, out, eps)
        return out

    @rmsnorm.register_fake
    def _(x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
        """What torch.compile traces instead of running the kernel: an output like x."""
        return torch.empty_like(x)

    return rmsnorm
