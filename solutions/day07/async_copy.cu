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
// You write the three instructions in cp_async.cuh beside this file (commit_group, wait_group<n>,
// copy_zfill<Bytes>: the contract is the comment above each), then the kernel here with them. The SASS
// must show LDGSTS (cp.async), its commit (LDGDEPBAR) and wait (DEPBAR) and no plain global load (LDG),
// from your own inline PTX (cp.async.ca/.cg.shared.global, cp.async.commit_group,
// cp.async.wait_group). n from 1 to 2^20 + 3, for each of 4, 8 and 16 bytes. The later exercises build
// on your cp_async.cuh through course/cp_async.cuh: do not include that one here.
#include "cp_async.cuh"

namespace {

constexpr int BLOCK = 256;  // the grader launches exactly this many threads per block

namespace cpa = course::cp_async;  // your commit_group, wait_group and copy_zfill (cp_async.cuh)

template <int BYTES>
__device__ void async_copy(const float* __restrict__ in, float* __restrict__ out, int64_t n) {
  constexpr int TILE = BLOCK * BYTES / 4;  // floats per tile
  __shared__ __align__(16) float tile[TILE];
  const int tid = threadIdx.x;
  const int64_t base = static_cast<int64_t>(blockIdx.x) * TILE;  // first float of this tile
  // BEGIN EXERCISE
  // HINT: Each thread copies its own piece, but the write-out reads pieces other threads copied: what
  // HINT: must have happened, for whom, before any thread reads the tile? And how many of a piece's
  // HINT: bytes exist at the end of the data?
  // HINT2: This thread's first float and the bytes of its piece that exist; one asynchronous copy;
  // HINT2: commit and wait for this thread's copy; a barrier for everyone's; then the write-out, one
  // HINT2: float per thread per step, consecutive threads on consecutive floats.
  // HINT3: Compute the bytes left in 64 bits before clamping (n can pass 2^31), then clamp to 0..BYTES:
  // HINT3: a negative count (a piece wholly past the end) must become 0, not a huge int. wait_group only
  // HINT3: covers this thread's copies: the barrier is what covers the others'.
  const int64_t first = base + tid * (BYTES / 4);
  const int64_t left = 4 * (n - first);
  const int src_bytes = left <= 0 ? 0 : (left >= BYTES ? BYTES : static_cast<int>(left));
  cpa::copy_zfill<BYTES>(tile + tid * (BYTES / 4), in + first, src_bytes);
  cpa::commit_group();
  cpa::wait_group<0>();
  __syncthreads();
#pragma unroll
  for (int k = 0; k < BYTES / 4; ++k) out[base + k * BLOCK + tid] = tile[k * BLOCK + tid];
  // END EXERCISE
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
