// Day 1, exercise 5: read a working set again and again (the kernel behind the memory-hierarchy plot).
//
//   partial[t] = reps x the sum of x[j].x + x[j].y + x[j].z + x[j].w over j = t, t + T, t + 2T, ... < n4
//
// t is this thread's global index, T the number of threads in the grid: every thread writes its
// partial[t], also a thread that owns no element (0). One float4 is 16 bytes: the technique check
// requires one 16-byte load instruction (LDG.E.128) per element. When the 16 n4 bytes fit in L2
// (50 MB on an H100), every pass after the first reads L2, not HBM, and the bandwidth it reaches shows
// it. The grader launches a fixed grid of 6 x 128 threads (n4 from 1 to 2^20 + 1, reps 1 to 3) and
// allows the float32 rounding of each addition; the lesson times it.
#include <course/common.cuh>

extern "C" __global__ void read_sum(const float4* __restrict__ x, int64_t n4, int reps,
                                    float* __restrict__ partial) {
  // BEGIN EXERCISE
  // HINT: Where does a thread keep its running sum across all reps passes, and when does it touch
  // HINT: partial? (A store per element would add memory traffic to what the plot measures.)
  // HINT2: One accumulator per thread; an outer loop over the passes; inside it the grid-stride loop of
  // HINT2: exercise 2 over float4 elements; one store after both loops.
  // HINT3: Read each element as one float4 value (not four float reads), so the compiler emits a single
  // HINT3: 16-byte load; add its four components into the accumulator. A thread whose loop never runs still
  // HINT3: stores its 0: the test reads every partial.
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
