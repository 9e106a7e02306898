// Day 14, part 2: day 6's rmsnorm kernel as a TVM-FFI function, callable with torch tensors (or any
// DLPack tensor) from Python, C++ or Rust alike: the way FlashInfer exports its kernels today.
//
//   rmsnorm(x [rows, d], weight [d], out [rows, d], eps): out = x * rsqrt(mean(x^2) + eps) * weight
//
// Built by `tvm_ffi.cpp.load` with nvcc (rmsnorm_op.py); `rmsnorm_op.py` registers it as the PyTorch
// custom op `course::rmsnorm`. The arguments arrive as `tvm::ffi::TensorView`s: the caller's memory,
// no copy (DLPack). When the caller passes torch tensors, TVM-FFI has set the environment's stream to
// torch's current stream: `TVMFFIEnvGetStream` returns it, and the launch goes there.
#include <cuda_runtime.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/ffi/function.h>

#include "rmsnorm.cu"  // the kernels: rmsnorm_f16, rmsnorm_bf16 (solutions/day06, or days/day06)

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
  // HINT: check before launching, each failure a one-line ValueError naming the argument: 2-D x, 1-D
  // HINT: weight of x's last size, out of x's shape; one 16-bit float dtype (kDLFloat or kDLBfloat)
  // HINT: for all; all on the same CUDA device; all contiguous. Then launch rmsnorm_f16 or rmsnorm_bf16
  // HINT: with grid rows, block 256, on the stream TVMFFIEnvGetStream(device_type, device_id) returns.
  // HINT2: x.ndim(), x.size(i), x.dtype(), x.device(), x.IsContiguous(), x.data_ptr();
  // HINT2: auto stream = static_cast<cudaStream_t>(TVMFFIEnvGetStream(dev.device_type, dev.device_id));
  // HINT3: kernel<<<rows, NORM_BLOCK, 0, stream>>>(static_cast<half*>(out.data_ptr()), ...,
  // HINT3: static_cast<int>(d), static_cast<float>(eps)); then cudaGetLastError() (TVM_FFI_THROW if not success)
  // STUB: TVM_FFI_THROW(NotImplementedError) << "rmsnorm: write it in rmsnorm_ffi.cu";
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
