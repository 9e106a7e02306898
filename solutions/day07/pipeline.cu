// Day 7, exercise 3: an N-stage cp.async pipeline through shared memory.
//
//   out[i] = alpha * in[i],  in, out: [n] float32
//   grid = (any number of blocks,), block = (256,); kernels pipeline_s1 ... pipeline_s8 (STAGES)
//
// The array is cut into tiles of TILE = 256 * 4 floats (16 bytes per thread). Block b handles tiles
// b, b + gridDim.x, b + 2 * gridDim.x, ... (a "persistent" grid: few blocks, many tiles each). Shared
// memory holds STAGES tiles in a ring. While the block computes on the oldest tile, the copies of the
// next STAGES - 1 tiles are in flight: that is what hides the memory latency when there are too few
// warps on the SM to hide it by switching between them. double_buffer.cu is this kernel with
// STAGES = 2; the copies use the course's header (course/cp_async.cuh) as there.
// The test: n from 1 to 10^6 + 1, 1 to 8 stages, 1 to 64 blocks, out within float32 tolerance. The
// SASS must show cp.async (LDGSTS, LDGDEPBAR, DEPBAR), no plain global load, and for STAGES > 1 a wait
// that leaves STAGES - 1 groups in flight (DEPBAR.LE SB0, STAGES - 1). The benchmark expects 85% of
// the copy bandwidth.
#include <course/cp_async.cuh>

namespace {

constexpr int BLOCK = 256;        // the grader launches exactly this many threads per block
constexpr int TILE = BLOCK * 4;   // floats per tile: one 16-byte copy per thread

namespace cpa = course::cp_async;

// Issue the copy of tile `t` (if it exists) into `stage`: thread tid copies floats 4 tid .. 4 tid + 3.
COURSE_INLINE void issue_tile(float* stage, const float* __restrict__ in, int64_t t, int64_t num_tiles,
                              int64_t n) {
  // BEGIN EXERCISE
  // HINT: The same job as double_buffer.cu's issue_tile.
  // HINT2: If the tile exists: this thread's first float of it, the bytes of its 4 floats that exist
  // HINT2: (64-bit, clamped from above to 16 before narrowing to int; the header clamps below 0
  // HINT2: itself), one copy.
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
  // HINT: Generalise the double buffer to a ring of STAGES buffers: how many tiles must be in flight
  // HINT: before the first compute, which buffer does each step refill, and how many groups may stay
  // HINT: pending when tile k is used?
  // HINT2: A prologue issues and commits this block's first STAGES - 1 tiles, one group each. Each step:
  // HINT2: issue the tile STAGES - 1 ahead into the stage the previous step used, commit (also when empty),
  // HINT2: wait until only the STAGES - 1 newer groups are pending, a barrier, compute the current stage
  // HINT2: into out, a barrier.
  // HINT3: Tile k lives in stage k % STAGES; the stage step k refills, (k + STAGES - 1) % STAGES, is the
  // HINT3: one step k - 1 computed from, and the barrier at the end of step k - 1 is what makes refilling
  // HINT3: it safe. With STAGES = 1 that is the stage being waited for: the copy then never overlaps the
  // HINT3: compute (the baseline the benchmark compares with).
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
