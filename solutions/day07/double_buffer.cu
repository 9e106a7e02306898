// Day 7, exercise 2: a double buffer, two shared-memory tiles, one loading while the other is used.
//
//   out[i] = alpha * in[i],  in, out: [n] float32
//   grid = (any number of blocks,), block = (256,)
//
// The array is cut into tiles of TILE = 256 * 4 floats (16 bytes per thread). Block b handles tiles
// b, b + gridDim.x, b + 2 * gridDim.x, ... (a "persistent" grid: few blocks, many tiles each). Its
// k-th tile goes to buffer k % 2: while the block scales tile k from one buffer, the copy of tile
// k + 1 into the other buffer is in flight.
//
//   before the loop:  issue tile 0 into buf[0]; commit
//   step k:           issue tile k + 1 into buf[(k + 1) % 2]; commit
//                     wait_group<1>()   every group but the newest has landed: tile k is in
//                     __syncthreads()   ... for every thread's copies
//                     out = alpha * buf[k % 2]
//                     __syncthreads()   nobody still reads buf[k % 2] when step k + 1 refills it
//
// The last step has no tile k + 1: commit an EMPTY group anyway, so "wait until 1 group is pending"
// still means "tile k has landed". The copies use the course's header (course/cp_async.cuh):
// load_128b_zfill reads only the bytes that exist and zero-fills the rest.
#include <course/cp_async.cuh>

namespace {

constexpr int BLOCK = 256;        // the grader launches exactly this many threads per block
constexpr int TILE = BLOCK * 4;   // floats per tile: one 16-byte copy per thread

namespace cpa = course::cp_async;

// Issue the copy of tile `t` (if it exists) into `buf`: thread tid copies floats 4 tid .. 4 tid + 3.
COURSE_INLINE void issue_tile(float* buf, const float* __restrict__ in, int64_t t, int64_t num_tiles,
                              int64_t n) {
  // BEGIN EXERCISE
  // HINT: one cpa::load_128b_zfill per thread, of the bytes of its 4 floats that exist; nothing at
  // HINT: all when tile t does not exist (the caller still commits: an empty group).
  // HINT2: if (t < num_tiles): first = t * TILE + 4 * threadIdx.x; the bytes that exist are
  // HINT2: 4 * (n - first), which load_128b_zfill clamps to 0..16 itself (clamp the 64-bit value
  // HINT2: from above before you narrow it to int).
  // HINT3: cpa::load_128b_zfill(buf + 4 * threadIdx.x, in + first, left > 16 ? 16 : static_cast<int>(left));
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
  // BEGIN EXERCISE
  // HINT: the loop in the header comment: one group per tile, committed on every step, and
  // HINT: cpa::wait_group<1>() lets exactly the newest group (tile k + 1) stay in flight.
  // HINT2: num_tiles = ceil(n / TILE) in 64 bits; this block's k-th tile is t = blockIdx.x + k * gridDim.x.
  // HINT2: issue_tile(buf[0], in, blockIdx.x, num_tiles, n); cpa::commit_group();
  // HINT2: for (k = 0; t = first_tile + k * step < num_tiles; ++k) {
  // HINT2:   issue_tile(buf[(k + 1) % 2], in, t + step, ...); cpa::commit_group();
  // HINT2:   cpa::wait_group<1>(); __syncthreads();
  // HINT2:   for j = 0..3: i = t * TILE + j * BLOCK + threadIdx.x; if (i < n)
  // HINT2:   out[i] = alpha * buf[k % 2][j * BLOCK + threadIdx.x];
  // HINT2:   __syncthreads(); }
  // HINT3: the read is j * BLOCK + tid, not 4 * tid + j: consecutive threads store consecutive floats
  // HINT3: (coalesced), and read floats other threads copied, which is why the barrier comes first.
  const int64_t num_tiles = (n + TILE - 1) / TILE;
  const int64_t first_tile = blockIdx.x, step = gridDim.x;
  const int tid = threadIdx.x;
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
