"""Day 14, exercise 2: day 6's rmsnorm as a TVM-FFI function, and a PyTorch custom op over it, the way
FlashInfer exports its kernels today.

    module = build()                             # SOURCE, compiled by nvcc (tvm_ffi.cpp.load_inline)
    module.rmsnorm(x, weight, out, 1e-6)         # any DLPack tensors: torch's, cupy's, numpy's (refused: CPU)
    rmsnorm = op()                               # torch.ops.course.rmsnorm(x, weight, eps) -> Tensor
    torch.compile(lambda x, w: rmsnorm(x * 2, w, 1e-6) + 1, fullgraph=True)(x, w)

You write two parts: in SOURCE (C++), the function's checks and its launch of day 6's kernel on the
stream TVM-FFI hands it (for torch tensors, torch's current stream); in `op`, its registration as the
custom op `course::rmsnorm`, with a fake implementation that `torch.compile` traces instead of the
kernel, so the op stays inside a `fullgraph=True` graph. The day-6 kernels are the course's
(solutions/day06/rmsnorm.cu): this exercise grades the binding, not the kernel.
(No `from __future__ import annotations` here: torch.library reads the op's schema from its annotations.)
"""
import hashlib
import os
from pathlib import Path

from grader import device, paths

SOURCE = r"""
// rmsnorm(x [rows, d], weight [d], out [rows, d], eps): out = x * rsqrt(mean(x^2) + eps) * weight
// The arguments arrive as tvm::ffi::TensorView: the caller's memory, no copy (DLPack). When the caller
// passes torch tensors, TVM-FFI sets the environment's stream to torch's current stream first.
#include <cuda_runtime.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/ffi/function.h>

#include "rmsnorm.cu"  // day 6's kernels: rmsnorm_f16, rmsnorm_bf16

namespace {

constexpr int NORM_BLOCK = 256;  // threads per row, as the day-6 kernels are written for

bool is_dtype(const DLDataType& t, uint8_t code) { return t.code == code && t.bits == 16 && t.lanes == 1; }

std::string shape_of(const tvm::ffi::TensorView& t) {
  std::string s = "[";
  for (int i = 0; i < t.ndim(); ++i) s += (i ? ", " : "") + std::to_string(t.size(i));
  return s + "]";
}

// A one-line ValueError naming the argument unless `ok`.
void require(bool ok, const char* name, const std::string& what) {
  if (!ok) TVM_FFI_THROW(ValueError) << name << " " << what;
}

}  // namespace

void rmsnorm_ffi(tvm::ffi::TensorView x, tvm::ffi::TensorView weight, tvm::ffi::TensorView out, double eps) {
  // BEGIN EXERCISE
  // HINT: check before launching, each failure one require(...) naming the argument: x 2-D and not
  // HINT: empty, weight [d], out x's shape; x float16 or bfloat16, weight and out x's dtype; all on x's
  // HINT: CUDA device; all contiguous. Then launch rmsnorm_f16 or rmsnorm_bf16 (grid rows, block 256)
  // HINT: on the stream TVMFFIEnvGetStream(device_type, device_id) returns, and check the launch.
  // HINT2: x.ndim(), x.size(i), x.dtype() (is_dtype(dt, kDLFloat) / kDLBfloat), x.device() (device_type
  // HINT2: kDLCUDA), x.IsContiguous(), x.data_ptr(); the messages the grader expects: "x has shape [..];
  // HINT2: expected 2 dims [rows, d]", "weight has shape [..]; expected [d] with d = 8 (from x)", "out has
  // HINT2: shape [..]; expected x's [..]", "x has a dtype other than float16 or bfloat16", "x must be on a CUDA device".
  // HINT3: auto stream = static_cast<cudaStream_t>(TVMFFIEnvGetStream(dev.device_type, dev.device_id));
  // HINT3: rmsnorm_f16<<<rows, NORM_BLOCK, 0, stream>>>(static_cast<half*>(out.data_ptr()), ..., n, e);
  // HINT3: then if (cudaGetLastError() != cudaSuccess) TVM_FFI_THROW(RuntimeError) << ...;
  // STUB: TVM_FFI_THROW(NotImplementedError) << "rmsnorm: write it in SOURCE of rmsnorm_ffi.py";
  require(x.ndim() == 2, "x", "has shape " + shape_of(x) + "; expected 2 dims [rows, d]");
  const int64_t rows = x.size(0), d = x.size(1);
  require(rows > 0 && d > 0, "x", "is empty (shape " + shape_of(x) + ")");
  require(weight.ndim() == 1 && weight.size(0) == d, "weight",
          "has shape " + shape_of(weight) + "; expected [d] with d = " + std::to_string(d) + " (from x)");
  require(out.ndim() == 2 && out.size(0) == rows && out.size(1) == d, "out",
          "has shape " + shape_of(out) + "; expected x's " + shape_of(x));
  const DLDataType dt = x.dtype();
  const bool f16 = is_dtype(dt, kDLFloat), bf16 = is_dtype(dt, kDLBfloat);
  require(f16 || bf16, "x", "has a dtype other than float16 or bfloat16");
  for (const auto* t : {&weight, &out}) {
    const DLDataType o = t->dtype();
    require(o.code == dt.code && o.bits == dt.bits && o.lanes == dt.lanes, t == &weight ? "weight" : "out",
            "must have x's dtype");
  }
  const DLDevice dev = x.device();
  require(dev.device_type == kDLCUDA, "x", "must be on a CUDA device");
  for (const auto* t : {&weight, &out}) {
    require(t->device().device_type == dev.device_type && t->device().device_id == dev.device_id,
            t == &weight ? "weight" : "out", "must be on x's device");
  }
  require(x.IsContiguous(), "x", "must be contiguous");
  require(weight.IsContiguous(), "weight", "must be contiguous");
  require(out.IsContiguous(), "out", "must be contiguous");

  auto stream = static_cast<cudaStream_t>(TVMFFIEnvGetStream(dev.device_type, dev.device_id));
  const int n = static_cast<int>(d);
  const float e = static_cast<float>(eps);
  if (f16) {
    rmsnorm_f16<<<static_cast<unsigned>(rows), NORM_BLOCK, 0, stream>>>(
        static_cast<half*>(out.data_ptr()), static_cast<const half*>(x.data_ptr()),
        static_cast<const half*>(weight.data_ptr()), n, e);
  } else {
    rmsnorm_bf16<<<static_cast<unsigned>(rows), NORM_BLOCK, 0, stream>>>(
        static_cast<__nv_bfloat16*>(out.data_ptr()), static_cast<const __nv_bfloat16*>(x.data_ptr()),
        static_cast<const __nv_bfloat16*>(weight.data_ptr()), n, e);
  }
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) TVM_FFI_THROW(RuntimeError) << "rmsnorm launch failed: " << cudaGetErrorString(err);
  // END EXERCISE
}

TVM_FFI_DLL_EXPORT_TYPED_FUNC(rmsnorm, rmsnorm_ffi);  // exported as "rmsnorm"
"""
DAY06 = paths.SOLUTIONS / "day06"          # the kernels SOURCE includes
_built: dict[str, object] = {}


def build():
    """SOURCE built into a TVM-FFI module by nvcc, once per process for each version of SOURCE and of
    the included rmsnorm.cu: both are hashed into the module's name, so an edit to either builds and
    loads a new library (a library already loaded would be loaded again unchanged). Compile errors
    name this file's lines."""
    import tvm_ffi.cpp

    tvm_ffi.error.register_error("NotImplementedError", NotImplementedError)  # the stub's, as Python's
    here = Path(__file__).resolve()
    line = here.read_text().split(SOURCE)[0].count("\n") + 1
    source = f'#line {line} "{here}"{SOURCE}'
    tag = hashlib.sha256((source + (DAY06 / "rmsnorm.cu").read_text()).encode()).hexdigest()[:16]
    if tag not in _built:
        if "TVM_FFI_CUDA_ARCH_LIST" not in os.environ and device.why_not_hardware():
            os.environ["TVM_FFI_CUDA_ARCH_LIST"] = "9.0"  # no GPU to ask: build for sm_90 all the same
        cuda_lib = Path(os.environ.get("CUDA_HOME", "/usr/local/cuda")) / "lib64"  # TVM-FFI looks beside nvcc only
        _built[tag] = tvm_ffi.cpp.load_inline(
            name=f"course_rmsnorm_ffi_{tag}", cuda_sources=source, extra_cuda_cflags=["-std=c++17"],
            extra_include_paths=[str(paths.ROOT / "kernels" / "include"), str(DAY06)],
            extra_ldflags=[f"-L{cuda_lib}"] if cuda_lib.is_dir() else None)
    return _built[tag]


def op():
    """`course::rmsnorm(x, weight, eps) -> Tensor`, build()'s rmsnorm registered with torch.library once
    per process (a later call returns the op already registered)."""
    import torch

    if hasattr(torch.ops.course, "rmsnorm"):
        return torch.ops.course.rmsnorm
    # BEGIN EXERCISE
    # HINT: decorate a function rmsnorm(x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor
    # HINT: with torch.library.custom_op("course::rmsnorm", mutates_args=()): it allocates out like x and
    # HINT: calls the module's rmsnorm (build once, outside it). Then give it a fake implementation for
    # HINT: torch.compile to trace (rmsnorm.register_fake): a tensor like x, nothing computed. Return the op.
    # HINT2: module = build(); @torch.library.custom_op(...) def rmsnorm(...): out = torch.empty_like(x);
    # HINT2: module.rmsnorm(x, weight, out, eps); return out. @rmsnorm.register_fake def _(x, weight, eps): ...
    # STUB: raise NotImplementedError("op: register course::rmsnorm in rmsnorm_ffi.py")
    module = build()

    @torch.library.custom_op("course::rmsnorm", mutates_args=())
    def rmsnorm(x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
        """x * rsqrt(mean(x^2) + eps) * weight over the last axis, on torch's current stream."""
        out = torch.empty_like(x)
        module.rmsnorm(x, weight, out, eps)
        return out

    @rmsnorm.register_fake
    def _(x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
        return torch.empty_like(x)

    return rmsnorm
    # END EXERCISE
