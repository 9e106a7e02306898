// Day 1, exercise 2: SAXPY with a grid-stride loop.
//
//   out[i] = alpha * x[i] + y[i]   for 0 <= i < n
//
// The grader launches a FIXED grid (a few blocks per SM), whatever n is, so each thread must handle
// several elements: start at its global index and step by the total number of threads in the grid.
#include <course/common.cuh>

extern "C" __global__ void saxpy(int64_t n, float alpha, const float* __restrict__ x,
                                 const float* __restrict__ y, float* __restrict__ out) {
  // BEGIN EXERCISE
  // HINT: start at your global index and step by the number of threads in the grid until i >= n.
  // HINT: consecutive threads must touch consecutive elements in each step (coalescing, day 2).
  // HINT2: const int64_t stride = gridDim.x * blockDim.x (in 64 bits); then
  // HINT2: for (int64_t i = <global index>; i < n; i += stride) out[i] = alpha * x[i] + y[i];
  // HINT3: course::global_thread_id() and course::grid_threads() (course/common.cuh) compute both.
  const int64_t start = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = start; i < n; i += stride) {
    out[i] = alpha * x[i] + y[i];
  }
  // END EXERCISE
}
