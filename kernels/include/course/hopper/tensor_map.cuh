// course/hopper/tensor_map.cuh: what the TMA and mbarrier helpers of day 15 take (course/hopper/tma.cuh,
// and a student's days/day15/tma.cuh): the tensor map a kernel receives, and shared-memory addresses.
#pragma once
#include "../common.cuh"

namespace course {
namespace hopper {

// CUtensorMap: passed to a kernel by value as `const __grid_constant__ TensorMap`.
struct alignas(64) TensorMap {
  unsigned long long v[16];
};

// The 32-bit shared-state-space address of a generic pointer into shared memory.
COURSE_INLINE uint32_t smem_address(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

}  // namespace hopper
}  // namespace course
