"""The course's door for TVM-FFI builds: C++ (and CUDA C++) compiled by `tvm_ffi.cpp.load_inline` into a
module of functions that take DLPack tensors, the way FlashInfer exports its kernels.

    module = ffi.load_inline("course_torch_door", cpp=source, ldflags=("-ldl",))
    module["rmsnorm"](...)

Once per process for each version of the source (and of the files it names in `hashed`, such as an
included kernel): all are hashed into the module's name, so an edit builds and loads a new library (a
library already loaded would otherwise be loaded again unchanged). tvm_ffi keeps the build on disk
(~/.cache/tvm-ffi, or $TVM_FFI_CACHE_DIR) under a file lock: a later process, or another process building
the same at once, loads it. grader/jit/torch_door.py builds through here (host C++ only);
solutions/day14/rmsnorm_ffi.py's `build()` through here with nvcc (the exercise).
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

from grader import device

_built: dict[str, object] = {}


def load_inline(name: str, *, cpp: str | None = None, cuda: str | None = None, include_paths=(), hashed=(),
                ldflags=()):
    """The module built from `cpp` (host C++, any C++17 compiler) and/or `cuda` (nvcc); its name is
    `name` plus a tag of the sources and the files in `hashed`."""
    import tvm_ffi.cpp

    digest = hashlib.sha256()
    for text in (cpp or "", cuda or "", *(Path(p).read_text() for p in hashed)):
        digest.update(text.encode() + b"\0")
    key = f"{name}_{digest.hexdigest()[:16]}"
    if key not in _built:
        ldflags = list(ldflags)
        if cuda is not None:
            if "TVM_FFI_CUDA_ARCH_LIST" not in os.environ and device.why_not_hardware():
                os.environ["TVM_FFI_CUDA_ARCH_LIST"] = "9.0"  # no GPU to ask: build for sm_90 all the same
            cuda_lib = Path(os.environ.get("CUDA_HOME", "/usr/local/cuda")) / "lib64"  # TVM-FFI looks beside nvcc only
            if cuda_lib.is_dir():
                ldflags.append(f"-L{cuda_lib}")
        _built[key] = tvm_ffi.cpp.load_inline(
            name=key, cpp_sources=cpp, cuda_sources=cuda, extra_cflags=["-std=c++17", "-O2"],
            extra_cuda_cflags=["-std=c++17"] if cuda is not None else None,
            extra_include_paths=[str(p) for p in include_paths] or None, extra_ldflags=ldflags or None)
    return _built[key]
