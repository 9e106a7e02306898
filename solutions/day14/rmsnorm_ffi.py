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
(solutions/day06/rmsnorm.cu; in a student edition, your own): this exercise grades the binding, not the kernel.
(No `from __future__ import annotations` here: torch.library reads the op's schema from its annotations.)
"""
from pathlib import Path

from grader import paths
from grader.jit import ffi

SOURCE = r"""
// rmsnorm(x [rows, d], weight [d], out [rows, d], eps): out = x * rsqrt(mean(x^2) + eps) * weight
// The arguments arrive as tvm::ffi::TensorView: the caller's memory, no copy (DLPack). When the caller
// passes torch tensors, TVM-FFI sets the environment's stream to torch's current stream first.
// Contract of rmsnorm_ffi: nothing is launched unless every check passes; each failure is a one-line
// ValueError that starts with the argument's name (require), in this order:
//   x "has shape [2, 8, 1]; expected 2 dims [rows, d]", x "is empty (shape [0, 8])",
//   weight "has shape [7]; expected [d] with d = 8 (from x)", out "has shape [2, 7]; expected x's [2, 8]",
//   x "has a dtype other than float16 or bfloat16", weight / out "must have x's dtype",
//   x "must be on a CUDA device", weight / out "must be on x's device", each "must be contiguous";
// then day 6's kernel for x's dtype runs, one block of NORM_BLOCK threads per row, on that stream; a
// failed launch raises RuntimeError.
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
  // HINT: A C++ function called from Python trusts nothing: what can be wrong with each argument, and
  // HINT: on which stream must the launch go so torch's ordering holds?
  // HINT2: First every check (one require per fact, in the order the contract lists them), then pick the
  // HINT2: kernel by dtype, launch it on the stream TVM FFI gives for x's device, and check the launch.
  // HINT3: The stream is the caller's (torch's current stream, passed through TVM FFI's environment), not
  // HINT3: the default stream; an error after the launch must become a Python exception, not a crash.
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
DAY06 = paths.course_file("day06", "rmsnorm.cu").parent  # the kernels SOURCE includes


def build():
    """SOURCE built into a TVM-FFI module by nvcc (grader.jit.ffi, the course's one door for such builds:
    once per process for each version of SOURCE and of the included rmsnorm.cu, so an edit to either builds
    and loads a new library). Compile errors name this file's lines."""
    import tvm_ffi

    tvm_ffi.error.register_error("NotImplementedError", NotImplementedError)  # the stub's, as Python's
    here = Path(__file__).resolve()
    line = here.read_text().split(SOURCE)[0].count("\n") + 1
    return ffi.load_inline("course_rmsnorm_ffi", cuda=f'#line {line} "{here}"{SOURCE}',
                           include_paths=(paths.ROOT / "kernels" / "include", DAY06), hashed=(DAY06 / "rmsnorm.cu",))


def op():
    """`course::rmsnorm(x, weight, eps) -> Tensor`, build()'s rmsnorm registered with torch.library once
    per process (a later call returns the op already registered)."""
    import torch

    if hasattr(torch.ops.course, "rmsnorm"):
        return torch.ops.course.rmsnorm
    # BEGIN EXERCISE
    # HINT: torch.compile traces a function without running it: what does it need to know about your op's
    # HINT: output without computing it?
    # HINT2: Define a custom op under the course's namespace that allocates its output and calls the
    # HINT2: module (built once, outside the op), then a fake implementation that only describes the output.
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
