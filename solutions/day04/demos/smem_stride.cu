// Day 4, worked example: what a bank conflict costs. Every thread reads shared memory at
// buf[(lane * stride) % SIZE], over and over; the 32 lanes of a warp then touch banks
// (lane * stride) % 32, and a warp's read takes gcd(stride, 32) passes (the number of lanes that share
// each bank). Strides 1, 3, 5, ... are conflict-free; 2 is 2-way, 4 is 4-way, ..., 32 is 32-way.
//
// Launch: any 1-D grid, blockDim.x a multiple of 32 (<= 1024). out gets one value per thread (so the
// reads cannot be optimised away); the time per launch is what matters.
#include <course/common.cuh>

constexpr int SIZE = 32 * 33;  // large enough for lane * stride with stride <= 33

extern "C" __global__ void smem_stride(float* __restrict__ out, int stride, int iters) {
  __shared__ float buf[SIZE];
  for (int i = threadIdx.x; i < SIZE; i += blockDim.x) buf[i] = static_cast<float>(i);
  __syncthreads();
  const int idx = ((threadIdx.x % 32) * stride) % SIZE;
  volatile float* v = buf;  // volatile: every iteration really reads shared memory
  float a = 0.f, b = 0.f;
  for (int i = 0; i < iters; i += 2) {
    a += v[idx];
    b += v[idx];
  }
  out[course::global_thread_id()] = a + b;
}
