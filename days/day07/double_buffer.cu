// Your exercise file. Generated from solutions/day07/double_buffer.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: 3ff17050a7d16571
// Day 7, exercise 2: a double buffer, two shared-memory tiles, one loading while the other is used.
//
//   out[i] = alpha * in[i],  in, out: [n] float32
//   grid = (any number of blocks,), block = (256,)
//
// The array is cut into tiles of TILE = 256 * 4 floats (16 bytes per thread). Block b handles tiles
// b, b + gridDim.x, b + 2 * gridDim.x, ... (a "persistent" grid: few blocks, many tiles each). Its
// k-th tile goes to buffer k % 2: while the block scales tile k from one buffer, the copy of tile
// k + 1 into the other buffer must already be in flight. The copies use the course's header
// (course/cp_async.cuh: load_128b_zfill reads only the bytes that exist and zero-fills the rest;
// commit_group and wait_group as in exercise 1).
// The test: n from 1 to 2^24 + 3 with 1 to 264 blocks (a block may have no tile, one, or many; the
// last tile is partial), out within float32 tolerance of alpha * in, nothing written past n. The SASS
// must show cp.async (LDGSTS, LDGDEPBAR, DEPBAR) and no plain global load.
#include <course/cp_async.cuh>

namespace {

constexpr int BLOCK = 256;        // the grader launches exactly this many threads per block
constexpr int TILE = BLOCK * 4;   // floats per tile: one 16-byte copy per thread

namespace cpa = course::cp_async;

// Issue the copy of tile `t` (if it exists) into `buf`: thread tid copies floats 4 tid .. 4 tid + 3.
COURSE_INLINE void issue_tile(float* buf, const float* __restrict__ in, int64_t t, int64_t num_tiles,
                              int64_t n) {
  // TODO: your code here.
  //   Hint: One 16-byte copy per thread, of the bytes that exist. What should happen when the tile does
  //   Hint: not exist at all, and why must the caller still commit a group then?
}

}  // namespace

extern "C" __global__ void __launch_bounds__(BLOCK)
double_buffer(const float* __restrict__ in, float* __restrict__ out, float alpha, int64_t n) {
  __shared__ __align__(16) float buf[2][TILE];
  const int64_t num_tiles = (n + TILE - 1) / TILE;
  const int64_t first_tile = blockIdx.x, step = gridDim.x;  // this block's tiles: first_tile + k * step
  const int tid = threadIdx.x;
  // TODO: your code here.
  //   Hint: While tile k is scaled from one buffer, tile k + 1 must be on its way into the other. How many
  //   Hint: copy groups may be pending when you start on tile k, and what does "wait until at most 1 is
  //   Hint: pending" mean on the last step, when there is no tile k + 1?
}
