// Your exercise file. Generated from solutions/day07/async_copy.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: 8772dd66cfd7ca11
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
  //   Hint: cp.async takes the shared address as a 32-bit integer: __cvta_generic_to_shared(smem).
  //   Hint: PTX: "cp.async.ca.shared.global [%0], [%1], %2, %3;" with operands "r"(shared address),
  //   Hint: "l"(gmem), "n"(BYTES) (a compile-time constant) and "r"(src_bytes). 16-byte copies may use
  //   Hint: .cg (bypass L1) instead of .ca; 4 and 8 must use .ca. Write it as asm volatile(...) with a
  //   Hint: "memory" clobber, so the compiler does not move shared-memory accesses across it.
}

// Close this thread's group of copies, then wait until none of its groups is still in flight.
COURSE_INLINE void commit_and_wait_all() {
  // TODO: your code here.
  //   Hint: two PTX instructions: cp.async.commit_group; then cp.async.wait_group 0;
}

template <int BYTES>
__device__ void async_copy(const float* __restrict__ in, float* __restrict__ out, int64_t n) {
  constexpr int TILE = BLOCK * BYTES / 4;  // floats per tile
  __shared__ __align__(16) float tile[TILE];
  const int tid = threadIdx.x;
  const int64_t base = static_cast<int64_t>(blockIdx.x) * TILE;  // first float of this tile
  // TODO: your code here.
  //   Hint: 1. this thread's piece: floats [base + tid * BYTES / 4, ... + BYTES / 4) of `in`, going to
  //   Hint:    tile + tid * BYTES / 4. src_bytes = the bytes of it that exist: 4 * (n - first float),
  //   Hint:    clamped to 0..BYTES (compute it in 64 bits before clamping: n can pass 2^31).
  //   Hint: 2. cp_async_zfill<BYTES>(...), then commit_and_wait_all(): this thread's copy has landed.
  //   Hint: 3. __syncthreads(): now every thread's copy has landed.
  //   Hint: 4. out[base + k * BLOCK + tid] = tile[k * BLOCK + tid] for k = 0 .. BYTES / 4 - 1.
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
