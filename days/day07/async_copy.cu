// Your exercise file. Generated from solutions/day07/async_copy.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: 685c808ab5dec063
// Day 7, exercise 1: cp.async by hand, 4, 8 and 16 bytes per copy, zero-fill at the end of the data.
//
//   in: [n] float32     out: [num_tiles * TILE] float32, TILE = 256 * BYTES / 4 floats per block
//   grid = (num_tiles,) = (ceil(n / TILE),), block = (256,)
//
// Block b stages tile b of `in` in shared memory, then writes the whole tile out, n rounded up to
// whole tiles. Thread t copies bytes [t * BYTES, (t + 1) * BYTES) of the tile with ONE cp.async of
// BYTES bytes. Past the end of `in`, the copy reads only what exists (the src-size operand) and fills
// the rest with zeros, so out[n:] must come out 0.0. The write-out reads the tile one float per
// thread (smem[k * 256 + t]): mostly floats another thread copied, so a barrier must come first.
//
// course/cp_async.cuh holds the finished wrappers that later kernels use: write your own here first.
#include <course/common.cuh>

namespace {

constexpr int BLOCK = 256;  // the grader launches exactly this many threads per block

// Copy BYTES bytes from gmem to smem asynchronously: the first src_bytes (0..BYTES) from gmem, the
// rest zeros. Both addresses are aligned to BYTES.
template <int BYTES>
COURSE_INLINE void cp_async_zfill(void* smem, const void* gmem, int src_bytes) {
  // TODO: your code here.
  //   Hint: one inline-PTX cp.async with the src-size operand; it takes the shared address as a 32-bit
  //   Hint: integer (__cvta_generic_to_shared), and 16-byte copies may bypass L1 (.cg), 4 and 8 may not (.ca).
}

// Close this thread's group of copies (the copies it issued since its previous commit).
COURSE_INLINE void commit_group() {
  // TODO: your code here.
  //   Hint: one PTX instruction, cp.async.commit_group; (no operands).
}

// Wait until at most N of this thread's committed groups are still in flight.
template <int N>
COURSE_INLINE void wait_group() {
  // TODO: your code here.
  //   Hint: cp.async.wait_group N; N must be an immediate: pass it with the "n" constraint.
}

template <int BYTES>
__device__ void async_copy(const float* __restrict__ in, float* __restrict__ out, int64_t n) {
  constexpr int TILE = BLOCK * BYTES / 4;  // floats per tile
  __shared__ __align__(16) float tile[TILE];
  const int tid = threadIdx.x;
  const int64_t base = static_cast<int64_t>(blockIdx.x) * TILE;  // first float of this tile
  // TODO: your code here.
  //   Hint: each thread copies its BYTES of the tile with one cp_async_zfill, waits for its own copy,
  //   Hint: then the block meets at a barrier before any thread reads another thread's copy.
}

}  // namespace

extern "C" __global__ void __launch_bounds__(BLOCK)
async_copy_4b(const float* __restrict__ in, float* __restrict__ out, int64_t n) {
  async_copy<4>(in, out, n);
}
extern "C" __global__ void __launch_bounds__(BLOCK)
async_copy_8b(const float* __restrict__ in, float* __restrict__ out, int64_t n) {
  async_copy<8>(in, out, n);
}
extern "C" __global__ void __launch_bounds__(BLOCK)
async_copy_16b(const float* __restrict__ in, float* __restrict__ out, int64_t n) {
  async_copy<16>(in, out, n);
}
