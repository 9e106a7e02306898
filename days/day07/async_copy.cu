// Your exercise file. Generated from solutions/day07/async_copy.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: deeba8170595ff3d
// Day 7, exercise 1: cp.async by hand, 4, 8 and 16 bytes per copy, zero-fill at the end of the data.
//
//   in: [n] float32     out: [num_tiles * TILE] float32, TILE = 256 * BYTES / 4 floats per block
//   grid = (num_tiles,) = (ceil(n / TILE),), block = (256,)
//
// Block b stages tile b of `in` in shared memory, then writes the whole tile out, n rounded up to
// whole tiles. Thread t copies bytes [t * BYTES, (t + 1) * BYTES) of the tile with ONE cp.async of
// BYTES bytes. Past the end of `in`, the copy reads only what exists (the src-size operand) and fills
// the rest with zeros, so out[n:] must come out 0.0 (exactly; the test poisons out first). The
// write-out reads the tile one float per thread (smem[k * 256 + t]), so a warp's stores are
// contiguous: mostly floats another thread copied.
// Contract of the three helpers: the comments above each. The SASS must show LDGSTS (cp.async), its
// commit (LDGDEPBAR) and wait (DEPBAR) and no plain global load (LDG), from your own inline PTX
// (cp.async.ca/.cg.shared.global, cp.async.commit_group, cp.async.wait_group): the PTX ISA's
// "cp.async" section describes their operands. n from 1 to 2^20 + 3, for each of 4, 8 and 16 bytes.
// course/cp_async.cuh holds the finished wrappers that later kernels use: write your own here first.
#include <course/common.cuh>

namespace {

constexpr int BLOCK = 256;  // the grader launches exactly this many threads per block

// Copy BYTES bytes from gmem to smem asynchronously: the first src_bytes (0..BYTES) from gmem, the
// rest zeros. Both addresses are aligned to BYTES.
template <int BYTES>
COURSE_INLINE void cp_async_zfill(void* smem, const void* gmem, int src_bytes) {
  // TODO: your code here.
  //   Hint: Read the PTX ISA's cp.async: which operand makes it copy fewer bytes than cp-size and zero the
  //   Hint: rest? In which state space must the destination address be, and in what form?
}

// Close this thread's group of copies (the copies it issued since its previous commit).
COURSE_INLINE void commit_group() {
  // TODO: your code here.
  //   Hint: One PTX instruction without operands closes this thread's group of copies: which one?
}

// Wait until at most N of this thread's committed groups are still in flight.
template <int N>
COURSE_INLINE void wait_group() {
  // TODO: your code here.
  //   Hint: The wait instruction takes the number of groups that may stay pending as an immediate: how do
  //   Hint: you pass a template parameter to inline asm as an immediate?
}

template <int BYTES>
__device__ void async_copy(const float* __restrict__ in, float* __restrict__ out, int64_t n) {
  constexpr int TILE = BLOCK * BYTES / 4;  // floats per tile
  __shared__ __align__(16) float tile[TILE];
  const int tid = threadIdx.x;
  const int64_t base = static_cast<int64_t>(blockIdx.x) * TILE;  // first float of this tile
  // TODO: your code here.
  //   Hint: Each thread copies its own piece, but the write-out reads pieces other threads copied: what
  //   Hint: must have happened, for whom, before any thread reads the tile? And how many of a piece's
  //   Hint: bytes exist at the end of the data?
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
