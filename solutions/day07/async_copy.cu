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
  // BEGIN EXERCISE
  // HINT: Read the PTX ISA's cp.async: which operand makes it copy fewer bytes than cp-size and zero the
  // HINT: rest? In which state space must the destination address be, and in what form?
  // HINT2: Convert the generic shared pointer to a 32-bit shared address; then one asm statement (no
  // HINT2: outputs) with the shared address, the global pointer, the copy size and src_bytes as inputs.
  // HINT2: The cache qualifier differs by size: 16-byte copies may bypass L1 (.cg), 4 and 8 may not (.ca).
  // HINT3: cp-size must be an immediate: pass BYTES with the "n" constraint (or write 16 into the .cg
  // HINT3: string). The global pointer is 64-bit ("l"). Add a "memory" clobber so the compiler keeps
  // HINT3: shared-memory accesses on their side of the copy.
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
  // HINT: One PTX instruction without operands closes this thread's group of copies: which one?
  // HINT2: An asm volatile statement with no inputs and no outputs.
  asm volatile("cp.async.commit_group;\n" ::);
  // END EXERCISE
}

// Wait until at most N of this thread's committed groups are still in flight.
template <int N>
COURSE_INLINE void wait_group() {
  // BEGIN EXERCISE
  // HINT: The wait instruction takes the number of groups that may stay pending as an immediate: how do
  // HINT: you pass a template parameter to inline asm as an immediate?
  // HINT2: One asm statement with N as its only input, through the immediate constraint, and a "memory"
  // HINT2: clobber: without it the compiler may read the copied bytes before the wait.
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
