// Your exercise file. Generated from solutions/day01/thread_info.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: b1ae275831f5bae5
// Day 1, exercise 4: where is each thread? 3-D blocks in a 3-D grid, and the warps they make.
//
//   g = this thread's global rank (block rank * threads per block + thread rank)
//   out[4 g + 0] = block rank:  blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z)
//   out[4 g + 1] = thread rank: threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)
//   out[4 g + 2] = warp (of its block),  out[4 g + 3] = lane (in its warp)
//
// x is the fastest-running index, then y, then z, for threads and for blocks alike; a block is cut
// into warps of 32 consecutive thread ranks (the last warp may be partial). The grader launches
// several grid and block shapes, some of them not multiples of 32 threads.
#include <course/common.cuh>

extern "C" __global__ void thread_info(int* __restrict__ out) {
  // TODO: your code here.
  //   Hint: rank = x + X * (y + Y * z) for the block in the grid and for the thread in the block.
}
