// Your exercise file. Generated from solutions/day01/thread_info.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: df18c59be385f06d
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
  // TODO: your code here.
  //   Hint: Number the cells of a 3-D box x fastest: how many cells does one step in y skip? One step in z?
  //   Hint: The same question answers the block's rank (in the grid) and the thread's rank (in the block).
}
