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
  // BEGIN EXERCISE
  // HINT: as in double_buffer.cu: one cpa::load_128b_zfill per thread of the bytes that exist,
  // HINT: nothing when t >= num_tiles (the caller still commits: an empty group).
  // HINT2: first = t * TILE + 4 * threadIdx.x; the bytes that exist: 4 * (n - first), clamped from
  // HINT2: above to 16 in 64 bits; load_128b_zfill clamps below 0 itself.
  if (t < num_tiles) {
    const int64_t first = t * TILE + 4 * threadIdx.x;
    const int64_t left = 4 * (n - first);
    cpa::load_128b_zfill(stage + 4 * threadIdx.x, in + first, left > 16 ? 16 : static_cast<int>(left));
  }
  // END EXERCISE
}

template <int STAGES>
__device__ void pipeline(const float* __restrict__ in, float* __restrict__ out, float alpha, int64_t n) {
  __shared__ __align__(16) float smem[STAGES][TILE];
  const int64_t num_tiles = (n + TILE - 1) / TILE;
  const int64_t first_tile = blockIdx.x, step = gridDim.x;
  const int tid = threadIdx.x;
  // BEGIN EXERCISE
  // HINT: a ring of STAGES buffers: tile k of this block lives in smem[k % STAGES]. The prologue
  // HINT: fills STAGES - 1 of them; every step issues one more tile, commits one group (empty past
  // HINT: the end), and waits with wait_group<STAGES - 1>: only the STAGES - 1 newer groups may fly.
  // HINT2: This block's k-th tile is tile t = first_tile + k * step of the array.
  // HINT2: prologue: for s = 0 .. STAGES - 2: issue_tile(smem[s], in, first_tile + s * step, ...);
  // HINT2: cpa::commit_group(). Then for k = 0 while t = first_tile + k * step < num_tiles:
  // HINT2:   issue this block's tile k + STAGES - 1 into smem[(k + STAGES - 1) % STAGES];
  // HINT2:   cpa::commit_group(); cpa::wait_group<STAGES - 1>(); __syncthreads();
  // HINT2:   from smem[k % STAGES], for j = 0..3: i = t * TILE + j * BLOCK + tid; if (i < n)
  // HINT2:   out[i] = alpha * smem[k % STAGES][j * BLOCK + tid]; __syncthreads().
  // HINT3: the stage step k refills, (k + STAGES - 1) % STAGES, is the one step k - 1 computed from:
  // HINT3: the barrier at the end of step k - 1 is what makes refilling it safe. With STAGES = 1
  // HINT3: that is the stage being waited for: the copy then never overlaps the compute.
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    issue_tile(smem[s], in, first_tile + s * step, num_tiles, n);
    cpa::commit_group();
  }
  for (int k = 0; first_tile + k * step < num_tiles; ++k) {
    const int64_t t = first_tile + k * step;
    issue_tile(smem[(k + STAGES - 1) % STAGES], in, t + (STAGES - 1) * step, num_tiles, n);
    cpa::commit_group();
    cpa::wait_group<STAGES - 1>();
    __syncthreads();
    const float* stage = smem[k % STAGES];
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const int64_t i = t * TILE + j * BLOCK + tid;
      if (i < n) out[i] = alpha * stage[j * BLOCK + tid];
    }
    __syncthreads();
  }
  // END EXERCISE
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
