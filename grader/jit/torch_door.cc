// The course's compiled launch door for torch tensors (grader/jit/torch_door.py builds it; grader/jit/ops.py
// calls it). Host C++ only: no kernel is compiled here. The kernels stay where the course compiles them
// (NVRTC, a cupy RawModule that grader/jit/ops.py loads and re-checks on every call); Python hands over
// the CUfunction of the one to run, and this file checks the arguments and launches it with the driver's
// cuLaunchKernel on the stream TVM-FFI gives: torch's current stream when the caller passed torch tensors.
//
// One rule: nothing here words an error. A call this file cannot serve (a check fails, no driver, a
// failed launch) returns None, and ops runs the same call through its Python path, whose checks raise
// the one-line message of grader.messages (en/zh), or whose launch reports the driver's error.
#include <dlfcn.h>
#include <sys/stat.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>
#include <vector>

#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/optional.h>
#include <tvm/ffi/string.h>

namespace {

using tvm::ffi::Optional;
using tvm::ffi::String;
using tvm::ffi::Tensor;
using tvm::ffi::TensorView;

// The two driver entry points used, as cuda.h declares them (CUresult is an int enum; CUfunction and
// CUstream are pointers), taken from the driver that cupy and torch have loaded already.
using LaunchKernel = int (*)(void* f, unsigned grid_x, unsigned grid_y, unsigned grid_z, unsigned block_x,
                             unsigned block_y, unsigned block_z, unsigned shared_bytes, void* stream,
                             void** params, void** extra);
using CtxGetDevice = int (*)(int* device);

struct Driver {
  LaunchKernel launch = nullptr;
  CtxGetDevice ctx_device = nullptr;
  Driver() {
    void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) return;
    launch = reinterpret_cast<LaunchKernel>(dlsym(lib, "cuLaunchKernel"));
    ctx_device = reinterpret_cast<CtxGetDevice>(dlsym(lib, "cuCtxGetDevice"));
  }
};

const Driver& driver() {
  static const Driver d;
  return d;
}

// The kernel files a call re-checks (ops' one stat per call, here in C++): registered once by path,
// then named by their index. Calls come from Python with the GIL held: no lock.
std::vector<std::string>& watched() {
  static std::vector<std::string> files;
  return files;
}

// What tells one version of a file from the next (runner.version's facts: inode, size, modification
// and change times), mixed into one nonzero 64-bit number; 0 for a file that cannot be stat'ed.
int64_t version_of(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return 0;
  uint64_t h = 1469598103934665603ull;
  const uint64_t facts[] = {static_cast<uint64_t>(st.st_ino), static_cast<uint64_t>(st.st_size),
                            static_cast<uint64_t>(st.st_mtim.tv_sec) * 1000000000ull + st.st_mtim.tv_nsec,
                            static_cast<uint64_t>(st.st_ctim.tv_sec) * 1000000000ull + st.st_ctim.tv_nsec};
  for (uint64_t v : facts) {
    h = (h ^ v) * 1099511628211ull;
    h ^= h >> 29;
  }
  return static_cast<int64_t>(h | 1);
}

// The kernel's file is the version ops loaded (else ops' Python path loads the new one).
bool fresh(int64_t file, int64_t version) {
  auto& files = watched();
  return file >= 0 && file < static_cast<int64_t>(files.size()) && version_of(files[file]) == version;
}

bool same(DLDataType a, DLDataType b) { return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes; }

// float16 or bfloat16 (and float32 where `f32`): the dtypes ops' kernels come in.
bool floating(DLDataType t, bool f32) {
  if (t.lanes != 1) return false;
  return (t.code == kDLFloat && (t.bits == 16 || (f32 && t.bits == 32))) || (t.code == kDLBfloat && t.bits == 16);
}

// The facts ops.check asks of every argument that are not about shapes or dtypes: on the CUDA device
// the kernel was loaded for, and contiguous; and that device is the current context's (cupy's current
// device, where ops.check wants every argument).
bool usable(const TensorView& t, int64_t kernel_device) {
  const DLDevice dev = t.device();
  return dev.device_type == kDLCUDA && dev.device_id == kernel_device && t.IsContiguous();
}

bool current_device_is(int64_t kernel_device) {
  int current = -1;
  return driver().ctx_device != nullptr && driver().ctx_device(&current) == 0 && current == kernel_device;
}

bool fits_int(int64_t n) { return n > 0 && n <= INT_MAX; }

void* address(const TensorView& t) { return static_cast<char*>(t.data_ptr()) + t.byte_offset(); }

// cuLaunchKernel of `fn` on the environment's stream for `dev` (torch's current stream); false if it
// failed (the Python path then launches again and reports the driver's error in its own words).
bool launch(int64_t fn, DLDevice dev, unsigned rows, unsigned threads, void** params) {
  if (driver().launch == nullptr) return false;
  void* stream = TVMFFIEnvGetStream(dev.device_type, dev.device_id);
  return driver().launch(reinterpret_cast<void*>(fn), rows, 1, 1, threads, 1, 1, 0, stream, params, nullptr) == 0;
}

}  // namespace

// Each op: (fn, kernel_device, file, version, tensors..., scalars) -> a new tensor, or None. fn is the
// CUfunction ops fetched from the module it loaded from watched file `file` at `version`, on device
// kernel_device; None also when that file changed since (ops' Python path then loads it again).

// rmsnorm(..., x [rows, d], weight [d], eps) -> [rows, d]. fn: day 6's rmsnorm_f16 / rmsnorm_bf16 (ops
// picks it by x's dtype), one block of 256 threads per row.
Optional<Tensor> rmsnorm(int64_t fn, int64_t kernel_device, int64_t file, int64_t version, TensorView x,
                         TensorView weight, double eps) {
  if (!fresh(file, version)) return std::nullopt;
  if (x.ndim() != 2 || weight.ndim() != 1) return std::nullopt;
  const int64_t rows = x.size(0), d = x.size(1);
  if (!fits_int(rows) || !fits_int(d) || weight.size(0) != d) return std::nullopt;
  const DLDataType dt = x.dtype();
  if (!floating(dt, false) || !same(weight.dtype(), dt)) return std::nullopt;
  if (!usable(x, kernel_device) || !usable(weight, kernel_device) || !current_device_is(kernel_device)) {
    return std::nullopt;
  }
  Tensor out = Tensor::FromEnvAlloc(TVMFFIEnvTensorAlloc, {rows, d}, dt, x.device());  // torch's allocator
  void* o = out.data_ptr();
  void* in = address(x);
  void* w = address(weight);
  int n = static_cast<int>(d);
  float e = static_cast<float>(eps);
  void* params[] = {&o, &in, &w, &n, &e};
  if (!launch(fn, x.device(), static_cast<unsigned>(rows), 256, params)) return std::nullopt;
  return out;
}

// silu_and_mul(..., x [rows, 2d]) -> [rows, d]. fn: day 2's silu_and_mul_f32 / _f16 / _bf16, one block
// per row of min(1024, max(32, ceil(d / vec))) threads, vec = 16 bytes of elements (as ops' Python path
// launches it).
Optional<Tensor> silu_and_mul(int64_t fn, int64_t kernel_device, int64_t file, int64_t version, TensorView x) {
  if (!fresh(file, version)) return std::nullopt;
  if (x.ndim() != 2) return std::nullopt;
  const int64_t rows = x.size(0), two_d = x.size(1);
  if (!fits_int(rows) || !fits_int(two_d) || two_d % 2) return std::nullopt;
  const DLDataType dt = x.dtype();
  if (!floating(dt, true) || !usable(x, kernel_device) || !current_device_is(kernel_device)) return std::nullopt;
  const int64_t d = two_d / 2, vec = 16 / (dt.bits / 8);
  const int64_t threads = std::min<int64_t>(1024, std::max<int64_t>(32, (d + vec - 1) / vec));
  Tensor out = Tensor::FromEnvAlloc(TVMFFIEnvTensorAlloc, {rows, d}, dt, x.device());
  void* o = out.data_ptr();
  void* in = address(x);
  int n = static_cast<int>(d);
  void* params[] = {&o, &in, &n};
  if (!launch(fn, x.device(), static_cast<unsigned>(rows), static_cast<unsigned>(threads), params)) {
    return std::nullopt;
  }
  return out;
}

// watch(path) -> the file's index (the same for the same path); version(file) -> its version now.
int64_t watch(const String& path) {
  auto& files = watched();
  const std::string p(path.data(), path.size());
  for (size_t i = 0; i < files.size(); ++i) {
    if (files[i] == p) return static_cast<int64_t>(i);
  }
  files.push_back(p);
  return static_cast<int64_t>(files.size()) - 1;
}

int64_t version(int64_t file) {
  auto& files = watched();
  return file >= 0 && file < static_cast<int64_t>(files.size()) ? version_of(files[file]) : 0;
}

// What door.py asks once, before it trusts this file: the stream a launch for x would go to (as an
// integer; torch's current stream when x is a torch tensor) and whether the driver's entry points were
// found (-1 if not).
int64_t stream_of(TensorView x) {
  if (driver().launch == nullptr || driver().ctx_device == nullptr) return -1;
  return reinterpret_cast<int64_t>(TVMFFIEnvGetStream(x.device().device_type, x.device().device_id));
}

// A new [1] tensor of x's dtype on x's device from the environment's allocator (torch's, for torch
// callers): door.py checks once that what comes back is a torch tensor.
Tensor empty_like_one(TensorView x) {
  return Tensor::FromEnvAlloc(TVMFFIEnvTensorAlloc, {1}, x.dtype(), x.device());
}

TVM_FFI_DLL_EXPORT_TYPED_FUNC(rmsnorm, rmsnorm);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(silu_and_mul, silu_and_mul);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(watch, watch);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(version, version);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(stream_of, stream_of);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(empty_like_one, empty_like_one);
