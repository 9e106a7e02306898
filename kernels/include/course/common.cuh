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

// COURSE_REQUIRE_ARCH(89): this file uses instructions of sm_89 or newer (FP8 mma.sync, say); compiling
// it for an older GPU stops here with that sentence. The grader reads the same line: on an older GPU
// the exercise is skipped with the reason, and the emulator compiles the file for that architecture.
#ifdef __CUDA_ARCH__
#define COURSE_ARCH_NOW (__CUDA_ARCH__ / 10)
#else
#define COURSE_ARCH_NOW 1000
#endif
#define COURSE_REQUIRE_ARCH(sm) \
  static_assert(COURSE_ARCH_NOW >= (sm), "this file needs sm_" #sm " or newer (see COURSE_REQUIRE_ARCH)")
// COURSE_REQUIRE_ARCH_SPECIFIC(90): this file uses sm_90a-only instructions (wgmma, setmaxnreg); the
// grader and the emulator compile it for sm_90a (NVRTC refuses them for plain sm_90).
#if defined(__CUDA_ARCH_FEAT_SM90_ALL) || !defined(__CUDA_ARCH__)
#define COURSE_ARCH_FEAT_SM90 1
#else
#define COURSE_ARCH_FEAT_SM90 0
#endif
#define COURSE_REQUIRE_ARCH_SPECIFIC(sm) \
  COURSE_REQUIRE_ARCH(sm);               \
  static_assert(COURSE_ARCH_FEAT_SM##sm, "this file needs sm_" #sm "a (see COURSE_REQUIRE_ARCH_SPECIFIC)")

// The course's versions of what a day's exercises ask live outside kernels/include, per day
// (<dayNN/...>: solutions/include in the instructor's repository, kernels/unlocked in a student
// edition once that day is unlocked). A course header of a later day includes them when present;
// otherwise each such function is a template whose body is COURSE_LOCKED(T, "name", "dayNN",
// "exercise.cu"): only a call fails to compile, with one line naming the day, the exercise and the
// command that unlocks it.
#define COURSE_LOCKED(T, what, day, exercise)                                                  \
  static_assert(sizeof(T) == 0, what " is the course's version of " day "/" exercise           \
                ", not unlocked here: once it passes, run python -m grader unlock " day)

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
