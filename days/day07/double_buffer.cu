// Your exercise file. Generated from solutions/day07/double_buffer.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: 8358735e14df406f
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
  // TODO: your code here.
  //   Hint: one cpa::load_128b_zfill per thread, of the bytes of its 4 floats that exist; nothing at
  //   Hint: all when tile t does not exist (the caller still commits: an empty group).
}

}  // namespace

extern "C" __global__ void __launch_bounds__(BLOCK)
double_buffer(const float* __restrict__ in, float* __restrict__ out, float alpha, int64_t n) {
  __shared__ __align__(16) float buf[2][TILE];
  // TODO: your code here.
  //   Hint: the loop in the header comment: one group per tile, committed on every step, and
  //   Hint: cpa::wait_group<1>() lets exactly the newest group (tile k + 1) stay in flight.
}
