// Day 1, exercise 1: vector addition, one thread per element.
//
//   c[i] = a[i] + b[i]   for 0 <= i < n          (float32; n is an int64_t)
//
// The grader launches blocks of 256 threads and rounds the grid up: ceil(n / 256) blocks. The last
// block therefore has threads past the end of the arrays. It tests n from 1 to just past 2^24, sizes
// that are not multiples of 256, and compares with a float64 reference.
#include <course/common.cuh>

extern "C" __global__ void vector_add(const float* __restrict__ a, const float* __restrict__ b,
                                      float* __restrict__ c, int64_t n) {
  // BEGIN EXERCISE
  // HINT: Which element should a thread own so that the threads of one block cover a contiguous run,
  // HINT: and the blocks follow one another? And what must the threads of the last block do?
  // HINT2: Two steps: this thread's element number (from its block's number, the block size and its
  // HINT2: place in the block), then a guard that keeps threads past the end away from memory.
  // HINT3: blockIdx.x and blockDim.x are 32-bit unsigned: their product wraps past 2^32 before it is
  // HINT3: widened to 64 bits. Convert one factor to int64_t before multiplying.
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
  // END EXERCISE
}
