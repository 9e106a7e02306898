// Your exercise file. Generated from solutions/day07/colsum.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: 2f57b63114e1fd47
// Day 7, open design (week 1): the column sums of a float32 matrix, at the speed of memory.
//
//   x:   [M, N] float32, row-major (element (i, j) at x[i * N + j]), the base 16-byte aligned
//   out: [N] float32, ZEROED before the launch; afterwards out[j] = sum over i of x[i, j]
//   M from 1 to 2^22, N from 1 to 2^20, M * N < 2^31
//
// Every decision is yours: threads per block, how the matrix is cut among blocks and threads, how many
// bytes one load moves, how the partial sums of a column meet (registers, shuffles, shared memory,
// atomicAdd into out). Days 2 (coalescing, vec_t), 4 (shared memory), 5-6 (reductions) and 7 (bytes in
// flight) have everything it takes; sketch the plan on paper first, for the three shapes below.
//
// colsum_plan says how to launch colsum: one thread of it runs first and writes, for the shape (M, N) on
// a GPU of `sms` SMs, plan[0] = grid.x, plan[1] = grid.y, plan[2] = block.x (1-1024, a multiple of 32),
// plan[3] = bytes of dynamic shared memory (0 if you use none or only static). colsum then runs once
// with that launch.
//
// What the tests check:
// - colsum: out against the float64 column sums within M * 2^-24 * max_j sum_i |x[i, j]| (float32
//   additions in any order), and exactly on small integers (a lost or doubled element shows); shapes
//   with M or N of 1, 31, 33, 4099 and N not a multiple of 4.
// - colsum_design, for three shapes, tall (N = 32), square and wide (M = 64):
//   the sums exact on small integers, and on a GPU, bytes of x read per second >= 75% of the copy
//   bandwidth of the same process (2^26 floats, each of the three shapes);
//   on the emulator (no GPU), a smaller matrix of each shape, from the memory statistics of your launch:
//   loads coalesced (32-byte sectors within 1.1x the ideal), x read once (bytes loaded within 1.1x its
//   size), wide loads (8 bytes or more per thread and load instruction, on average), shared memory
//   without bank conflicts (wavefronts within 1.25x the ideal); and your plan for the GPU-size shape on
//   132 SMs launching at least 512 threads per SM (Little's law: enough bytes in flight).
// `python -m grader bench day07 colsum` measures it (memory statistics on the emulator).
#include <course/common.cuh>
#include <course/vec_dtypes.cuh>

namespace {

// TODO: your code here.
//   Hint: Which threads of a warp must read neighbouring addresses, and in what direction does a row run?
//   Hint: For N = 32 a row is only 128 bytes: where do the other 2 million rows' worth of parallelism come from?

}  // namespace

extern "C" __global__ void colsum_plan(long long m, int n, int sms, int* plan) {
  // TODO: your code here.
  //   Hint: How many blocks keep every SM busy, and how few rows may a thread get before more blocks cost
  //   Hint: more than they bring?
  plan[0] = 1; plan[1] = 1; plan[2] = 32; plan[3] = 0;
}

// TODO: your code here.
//   Hint: The kernel must cut the matrix exactly as the plan did: what does it recompute from (m, n)? And
//   Hint: how many of your blocks can an SM hold at once, with the registers each thread needs?
extern "C" __global__ void colsum(const float* __restrict__ x, float* out, long long m, int n) {
}
