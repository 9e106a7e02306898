// Day 1, exercise 5: read a working set again and again (the kernel behind the memory-hierarchy plot).
//
//   partial[t] = reps x the sum of x[j].x + x[j].y + x[j].z + x[j].w over j = t, t + T, t + 2T, ... < n4
//
// t is this thread's global index, T the number of threads in the grid: a grid-stride loop over the
// n4 float4 elements, run `reps` times. One float4 is 16 bytes: one load instruction per element.
// When the 16 n4 bytes fit in L2 (50 MB on an H100), every pass after the first reads L2, not HBM,
// and the bandwidth it reaches shows it. The grader launches a fixed grid; the lesson times it.
#include <course/common.cuh>

extern "C" __global__ void read_sum(const float4* __restrict__ x, int64_t n4, int reps,
                                    float* __restrict__ partial) {
  // BEGIN EXERCISE
  // HINT: one accumulator per thread; reps passes of a grid-stride loop; one store at the end.
  // HINT2: float acc = 0; for (r < reps) for (int64_t j = global index; j < n4; j += grid threads)
  // HINT2: { const float4 v = x[j]; acc += ...; }   then partial[global index] = acc.
  // HINT3: acc += (v.x + v.y) + (v.z + v.w);  -- every thread stores, even one with no element (0).
  const int64_t t = course::global_thread_id();
  const int64_t stride = course::grid_threads();
  float acc = 0.f;
  for (int r = 0; r < reps; ++r) {
    for (int64_t j = t; j < n4; j += stride) {
      const float4 v = x[j];
      acc += (v.x + v.y) + (v.z + v.w);
    }
  }
  partial[t] = acc;
  // END EXERCISE
}
