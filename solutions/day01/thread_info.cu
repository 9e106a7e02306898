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
  // BEGIN EXERCISE
  // HINT: rank = x + X * (y + Y * z) for the block in the grid and for the thread in the block.
  // HINT2: block rank (gridDim), thread rank (blockDim), threads per block, then the 64-bit global
  // HINT2: rank g = block rank * threads per block + thread rank; write four ints at out + 4 * g.
  // HINT3: warp = thread rank / 32, lane = thread rank % 32: warps cut the thread rank, not threadIdx.x.
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
