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
  // BEGIN EXERCISE
  // HINT: One 16-byte copy per thread, of the bytes that exist. What should happen when the tile does
  // HINT: not exist at all, and why must the caller still commit a group then?
  // HINT2: If the tile exists: this thread's first float of it, the bytes of its 4 floats that exist
  // HINT2: (64-bit, clamped from above to 16 before narrowing to int; the header clamps below 0
  // HINT2: itself), one copy.
  // HINT3: left can be huge (n up to 2^24 and more) or negative: clamp it from above in 64 bits, then
  // HINT3: narrow; a negative value is fine, load_128b_zfill then copies nothing and writes zeros.
  if (t < num_tiles) {
    const int64_t first = t * TILE + 4 * threadIdx.x;
    const int64_t left = 4 * (n - first);
    cpa::load_128b_zfill(buf + 4 * threadIdx.x, in + first, left > 16 ? 16 : static_cast<int>(left));
  }
  // END EXERCISE
}

}  // namespace

extern "C" __global__ void __launch_bounds__(BLOCK)
double_buffer(const float* __restrict__ in, float* __restrict__ out, float alpha, int64_t n) {
  __shared__ __align__(16) float buf[2][TILE];
  const int64_t num_tiles = (n + TILE - 1) / TILE;
  const int64_t first_tile = blockIdx.x, step = gridDim.x;  // this block's tiles: first_tile + k * step
  const int tid = threadIdx.x;
  // BEGIN EXERCISE
  // HINT: While tile k is scaled from one buffer, tile k + 1 must be on its way into the other. How many
  // HINT: copy groups may be pending when you start on tile k, and what does "wait until at most 1 is
  // HINT: pending" mean on the last step, when there is no tile k + 1?
  // HINT2: A prologue issues and commits this block's first tile. Each step: issue and commit the next
  // HINT2: tile into the other buffer; wait until only the newest group is pending; a barrier; scale the
  // HINT2: current buffer into out (guarded by n); a second barrier before the buffer is refilled.
  // HINT3: Commit on every step, also when there is no next tile (an empty group): then "one group
  // HINT3: pending" still means "tile k has landed". Read the buffer as j * BLOCK + tid, not 4 * tid + j:
  // HINT3: consecutive threads then store consecutive floats, which is also why the barrier comes first
  // HINT3: (they read floats other threads copied). The second barrier keeps a fast warp from refilling
  // HINT3: a buffer a slow warp still reads.
  issue_tile(buf[0], in, first_tile, num_tiles, n);
  cpa::commit_group();
  for (int k = 0; first_tile + k * step < num_tiles; ++k) {
    const int64_t t = first_tile + k * step;
    issue_tile(buf[(k + 1) % 2], in, t + step, num_tiles, n);
    cpa::commit_group();
    cpa::wait_group<1>();
    __syncthreads();
    const float* tile = buf[k % 2];
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const int64_t i = t * TILE + j * BLOCK + tid;
      if (i < n) out[i] = alpha * tile[j * BLOCK + tid];
    }
    __syncthreads();
  }
  // END EXERCISE
}
