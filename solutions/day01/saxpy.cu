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
  // HINT: for (i = global index; i < n; i += gridDim.x * blockDim.x) -- see course/common.cuh.
  // HINT: consecutive threads must touch consecutive elements in each step (coalescing, day 2).
  for (int64_t i = course::global_thread_id(); i < n; i += course::grid_threads()) {
    out[i] = alpha * x[i] + y[i];
  }
  // END EXERCISE
}
