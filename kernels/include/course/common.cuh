// course/common.cuh: the macros and small helpers every course kernel uses (day 1).
// Framework-free: raw pointers only, no cupy or torch types, so any host framework can launch them.
#pragma once
// NVRTC has no C++ standard library of its own: the fixed-width integers come from libcu++ (CCCL).
#include <cuda/std/cstdint>
using cuda::std::int8_t;
using cuda::std::int32_t;
using cuda::std::int64_t;
using cuda::std::uint8_t;
using cuda::std::uint16_t;
using cuda::std::uint32_t;
using cuda::std::uint64_t;

// Force-inlined device helper, the way FlashInfer's FLASHINFER_INLINE is used.
#define COURSE_INLINE __device__ __forceinline__

namespace course {

template <typename T>
__host__ __device__ __forceinline__ constexpr T ceil_div(T a, T b) {
  return (a + b - 1) / b;
}

// Global 1-D thread index. 64-bit, so that grids over more than 2^31 elements index correctly.
COURSE_INLINE int64_t global_thread_id() {
  return static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}

// Total threads in a 1-D grid: the step of a grid-stride loop.
COURSE_INLINE int64_t grid_threads() { return static_cast<int64_t>(gridDim.x) * blockDim.x; }

}  // namespace course
