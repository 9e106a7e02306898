// Your exercise file. Generated from solutions/day07/pipeline.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: 8ade7d3c322aa2bd
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
  // TODO: your code here.
  //   Hint: The same job as double_buffer.cu's issue_tile.
}

template <int STAGES>
__device__ void pipeline(const float* __restrict__ in, float* __restrict__ out, float alpha, int64_t n) {
  __shared__ __align__(16) float smem[STAGES][TILE];
  const int64_t num_tiles = (n + TILE - 1) / TILE;
  const int64_t first_tile = blockIdx.x, step = gridDim.x;
  const int tid = threadIdx.x;
  // TODO: your code here.
  //   Hint: Generalise the double buffer to a ring of STAGES buffers: how many tiles must be in flight
  //   Hint: before the first compute, which buffer does each step refill, and how many groups may stay
  //   Hint: pending when tile k is used?
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
