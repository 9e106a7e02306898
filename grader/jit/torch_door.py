"""The compiled launch door of grader.jit.ops for torch tensors (torch_door.cc, host C++ through TVM-FFI).

A Python call into the course's binding pays, per launch, for DLPack both ways, cupy's stream context,
cupy's argument packing and the checks written in Python: tens of microseconds, more than torch eager
spends on a small op. FlashInfer pays under two, the way this file does: one TVM-FFI call takes the
torch tensors as they are (DLPack's C exchange API, no Python objects), with torch's current stream set
for it, checks in C++ what ops checks, allocates the output from torch's caching allocator and calls
the driver's cuLaunchKernel with the CUfunction of the kernel that ops loaded (NVRTC, cupy: a kernel
edited counts on the next call as before).

    door = torch_door.get()     # None where it cannot serve: no GPU, no torch, no apache-tvm-ffi, no C++ compiler
    file = door.watch(path)     # the kernel's .cu, re-checked on every call (one stat, in C++)
    door.rmsnorm(fn, device, file, door.version(file), x, weight, eps)   # a new torch tensor, or None:
    door.silu_and_mul(fn, device, file, version, x)                      # ops' Python path then runs the
                                                                         # call and says what is wrong

Built once per process (and kept on disk by tvm_ffi, `grader.jit.ffi`), then trusted only if a probe
shows that TVM-FFI hands it torch's current stream and allocates torch tensors. `why_not()` says why
there is no door.
"""
from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from grader import device
from grader.messages import say

SOURCE = Path(__file__).with_name("torch_door.cc")


class Door(NamedTuple):
    rmsnorm: object         # tvm_ffi functions of torch_door.cc
    silu_and_mul: object
    watch: object
    version: object
    kernels: dict           # op -> {torch dtype: the kernel function that serves it}


_state: dict = {}  # "door": a Door or None, "why": None or the reason, decided once per process


def get() -> Door | None:
    """The door, built and probed on the first call of the process; None where there is none."""
    try:
        return _state["door"]
    except KeyError:
        pass
    door, why = None, None
    try:
        door, why = _open()
    except Exception as e:  # noqa: BLE001 - any failure to build or probe means: no door, the Python path
        why = say("ops.door_build", error=f"{type(e).__name__}: {' '.join(str(e).split())[-300:]}")
    _state.update(door=door, why=why)
    return door


def why_not() -> str | None:
    """Why `get()` gives no door (after it was asked), else None."""
    get()
    return _state["why"]


def forget() -> None:
    """Decide again on the next `get()` (tests)."""
    _state.clear()


def _open() -> tuple[Door | None, str | None]:
    reason = device.why_not_hardware()
    if reason:
        return None, reason
    import importlib.util

    for package, pip in (("torch", "torch"), ("tvm_ffi", "apache-tvm-ffi")):
        if importlib.util.find_spec(package) is None:
            return None, say("ops.door_missing", package=pip)
    import torch

    from grader.jit import ffi

    module = ffi.load_inline("course_torch_door", cpp=SOURCE.read_text(), ldflags=("-ldl",))
    stream_of, empty_like_one = module["stream_of"], module["empty_like_one"]
    probe = torch.empty(1, device="cuda", dtype=torch.float16)
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        on_side = stream_of(probe)
    if on_side != side.cuda_stream or stream_of(probe) != torch.cuda.current_stream().cuda_stream:
        return None, say("ops.door_stream")
    one = empty_like_one(probe)
    if not isinstance(one, torch.Tensor) or not one.is_cuda or one.dtype != torch.float16:
        return None, say("ops.door_alloc", got=type(one).__name__)
    suffix = {torch.float16: "f16", torch.bfloat16: "bf16"}
    kernels = {"rmsnorm": {dt: f"rmsnorm_{s}" for dt, s in suffix.items()},
               "silu_and_mul": {dt: f"silu_and_mul_{s}" for dt, s in (suffix | {torch.float32: "f32"}).items()}}
    return Door(module["rmsnorm"], module["silu_and_mul"], module["watch"], module["version"], kernels), None
