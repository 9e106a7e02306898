// Your exercise file. Generated from solutions/day07/pipeline.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: 4ef004ee7ffe7f21
// Day 7, exercise 3: an N-stage cp.async pipeline through shared memory.
//
//   out[i] = alpha * in[i],  in, out: [n] float32
//   grid = (any number of blocks,), block = (256,); kernels pipeline_s1 ... pipeline_s8 (STAGES)
//
// The array is cut into tiles of TILE = 256 * 4 floats (16 bytes per thread). Block b handles tiles
// b, b + gridDim.x, b + 2 * gridDim.x, ... (a "persistent" grid: few blocks, many tiles each). Shared
// memory holds STAGES tiles in a ring. While the block computes on the oldest tile, the copies of the
// next STAGES - 1 tiles are in flight: that is what hides the memory latency when there are too few
// warps on the SM to hide it by switching between them.
//
//   prologue:       issue tiles 0 .. STAGES - 2 of this block, one commit_group() each
//   step k = 0, 1, ...:
//     issue tile k + STAGES - 1 into the stage that step k - 1 used; commit_group()
//     wait_group<STAGES - 1>()      tile k has landed (only the STAGES - 1 newer groups may be pending)
//     __syncthreads()               ... for every thread's copies
//     compute tile k from its stage and store it
//     __syncthreads()               everyone is done reading the stage before step k + 1 refills it
//
// Commit a group on EVERY step, even when there is no tile left to issue (an empty group): then
// "STAGES - 1 groups newer than tile k" holds at the end of the data too. The copies use the course's
// header (course/cp_async.cuh), as in double_buffer.cu, which is this loop with STAGES = 2.
#include <course/cp_async.cuh>

namespace {

constexpr int BLOCK = 256;        // the grader launches exactly this many threads per block
constexpr int TILE = BLOCK * 4;   // floats per tile: one 16-byte copy per thread

namespace cpa = course::cp_async;

// Issue the copy of tile `t` (if it exists) into `stage`: thread tid copies floats 4 tid .. 4 tid + 3.
COURSE_INLINE void issue_tile(float* stage, const float* __restrict__ in, int64_t t, int64_t num_tiles,
                              int64_t n) {
  // TODO: your code here.
  //   Hint: as in double_buffer.cu: one cpa::load_128b_zfill per thread of the bytes that exist,
  //   Hint: nothing when t >= num_tiles (the caller still commits: an empty group).
}

template <int STAGES>
__device__ void pipeline(const float* __restrict__ in, float* __restrict__ out, float alpha, int64_t n) {
  __shared__ __align__(16) float smem[STAGES][TILE];
  const int64_t num_tiles = (n + TILE - 1) / TILE;
  const int64_t first_tile = blockIdx.x, step = gridDim.x;
  const int tid = threadIdx.x;
  // TODO: your code here.
  //   Hint: a ring of STAGES buffers: tile k of this block lives in smem[k % STAGES]. The prologue
  //   Hint: fills STAGES - 1 of them; every step issues one more tile, commits one group (empty past
  //   Hint: the end), and waits with wait_group<STAGES - 1>: only the STAGES - 1 newer groups may fly.
}

}  // namespace

#define PIPELINE_KERNEL(S)                                                                        \
  extern "C" __global__ void __launch_bounds__(BLOCK)                                             \
  pipeline_s##S(const float* __restrict__ in, float* __restrict__ out, float alpha, int64_t n) { \
    pipeline<S>(in, out, alpha, n);                                                               \
  }
PIPELINE_KERNEL(1)
PIPELINE_KERNEL(2)
PIPELINE_KERNEL(3)
PIPELINE_KERNEL(4)
PIPELINE_KERNEL(6)
PIPELINE_KERNEL(8)
