// Day 1, exercise 4: where is each thread? 3-D blocks in a 3-D grid, and the warps they make.
//
// For every thread, with g its global rank (0, 1, 2, ... over all threads of the grid):
//   out[4 g + 0] = its block's rank in the grid     out[4 g + 1] = its thread rank in its block
//   out[4 g + 2] = its warp (in its block)          out[4 g + 3] = its lane (in its warp)
//
// Ranks number x fastest, then y, then z, for threads in a block and for blocks in a grid alike; the
// global rank numbers all of block 0's threads, then block 1's, and so on. A block is cut into warps
// of 32 consecutive thread ranks (the last warp may be partial). The grader launches several grid and
// block shapes, some of them not multiples of 32 threads (e.g. (7, 5, 3)); out starts filled with -1,
// and every field of every thread is compared exactly.
#include <course/common.cuh>

extern "C" __global__ void thread_info(int* __restrict__ out) {
  // BEGIN EXERCISE
  // HINT: Number the cells of a 3-D box x fastest: how many cells does one step in y skip? One step in z?
  // HINT: The same question answers the block's rank (in the grid) and the thread's rank (in the block).
  // HINT2: Four quantities: the block rank (from the grid's shape), the thread rank (from the block's
  // HINT2: shape), the threads per block; then the global rank, which places this thread's four ints.
  // HINT3: Warps are cut from the linear thread rank, not from threadIdx.x: with a block of (7, 5, 3),
  // HINT3: threadIdx.x never reaches 32, yet the block holds 4 warps, and lane 7 of warp 0 has threadIdx.y 1.
  const int block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  const int thread = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const int threads_per_block = blockDim.x * blockDim.y * blockDim.z;
  int* rec = out + 4 * (static_cast<int64_t>(block) * threads_per_block + thread);
  rec[0] = block;
  rec[1] = thread;
  rec[2] = thread / 32;
  rec[3] = thread % 32;
  // END EXERCISE
}
