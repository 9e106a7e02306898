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
  // BEGIN EXERCISE
  // HINT: one inline-PTX cp.async with the src-size operand; it takes the shared address as a 32-bit
  // HINT: integer (__cvta_generic_to_shared), and 16-byte copies may bypass L1 (.cg), 4 and 8 may not (.ca).
  // HINT2: const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(smem)); then
  // HINT2: if constexpr (BYTES == 16) the .cg form, else the .ca form, each as
  // HINT2: asm volatile("..." :: operands : "memory") (the clobber keeps shared accesses in place).
  // HINT3: asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n"
  // HINT3:              ::"r"(dst), "l"(gmem), "n"(BYTES), "r"(src_bytes) : "memory");
  // HINT3: ("n": BYTES is a compile-time constant; the .cg form writes 16 in place of %2.)
  const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  if constexpr (BYTES == 16) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n"
                 ::"r"(dst), "l"(gmem), "r"(src_bytes) : "memory");
  } else {
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n"
                 ::"r"(dst), "l"(gmem), "n"(BYTES), "r"(src_bytes) : "memory");
  }
  // END EXERCISE
}

// Close this thread's group of copies (the copies it issued since its previous commit).
COURSE_INLINE void commit_group() {
  // BEGIN EXERCISE
  // HINT: one PTX instruction, cp.async.commit_group; (no operands).
  // HINT2: asm volatile("cp.async.commit_group;\n" ::);
  asm volatile("cp.async.commit_group;\n" ::);
  // END EXERCISE
}

// Wait until at most N of this thread's committed groups are still in flight.
template <int N>
COURSE_INLINE void wait_group() {
  // BEGIN EXERCISE
  // HINT: cp.async.wait_group N; N must be an immediate: pass it with the "n" constraint.
  // HINT2: asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory"); the "memory" clobber keeps
  // HINT2: the compiler from reading the copied bytes before the wait.
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
  // END EXERCISE
}

template <int BYTES>
__device__ void async_copy(const float* __restrict__ in, float* __restrict__ out, int64_t n) {
  constexpr int TILE = BLOCK * BYTES / 4;  // floats per tile
  __shared__ __align__(16) float tile[TILE];
  const int tid = threadIdx.x;
  const int64_t base = static_cast<int64_t>(blockIdx.x) * TILE;  // first float of this tile
  // BEGIN EXERCISE
  // HINT: each thread copies its BYTES of the tile with one cp_async_zfill, waits for its own copy,
  // HINT: then the block meets at a barrier before any thread reads another thread's copy.
  // HINT2: 1. this thread's piece: floats [base + tid * BYTES / 4, ... + BYTES / 4) of `in`, going to
  // HINT2:    tile + tid * BYTES / 4. src_bytes = the bytes of it that exist, clamped to 0..BYTES.
  // HINT2: 2. cp_async_zfill<BYTES>(...), commit_group(), wait_group<0>(): this thread's copy has landed.
  // HINT2: 3. __syncthreads(): now every thread's copy has landed.
  // HINT2: 4. out[base + k * BLOCK + tid] = tile[k * BLOCK + tid] for k = 0 .. BYTES / 4 - 1.
  // HINT3: const int64_t left = 4 * (n - first);  // in 64 bits before clamping: n can pass 2^31
  // HINT3: const int src_bytes = left <= 0 ? 0 : (left >= BYTES ? BYTES : static_cast<int>(left));
  const int64_t first = base + tid * (BYTES / 4);
  const int64_t left = 4 * (n - first);
  const int src_bytes = left <= 0 ? 0 : (left >= BYTES ? BYTES : static_cast<int>(left));
  cp_async_zfill<BYTES>(tile + tid * (BYTES / 4), in + first, src_bytes);
  commit_group();
  wait_group<0>();
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
