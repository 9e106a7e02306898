// Day 1, exercise 2: SAXPY with a grid-stride loop.
//
//   out[i] = alpha * x[i] + y[i]   for 0 <= i < n     (float32; n is an int64_t)
//
// The grader launches a FIXED grid of 4 blocks of 128 threads, whatever n is (up to 2^22 + 1), so each
// thread must handle several elements. Every element is written exactly once; the result is compared
// with a float64 reference.
#include <course/common.cuh>

extern "C" __global__ void saxpy(int64_t n, float alpha, const float* __restrict__ x,
                                 const float* __restrict__ y, float* __restrict__ out) {
  // BEGIN EXERCISE
  // HINT: 512 threads, four million elements: which elements should one thread take so that, at every
  // HINT: step, neighbouring threads touch neighbouring elements (coalescing, day 2)?
  // HINT2: A loop per thread: it starts at the thread's global index and advances by a fixed amount that
  // HINT2: depends only on the launch shape, until it passes n. Keep the index and the step in 64 bits.
  // HINT3: The step is the number of threads in the whole grid: with it, thread t takes t, t + T, t + 2T ...
  // HINT3: and no element is taken twice or skipped. course::global_thread_id() and course::grid_threads()
  // HINT3: (course/common.cuh) compute the start and the step in 64 bits.
  const int64_t start = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = start; i < n; i += stride) {
    out[i] = alpha * x[i] + y[i];
  }
  // END EXERCISE
}
