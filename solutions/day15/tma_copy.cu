// Day 15, exercise 2: the Tensor Memory Accelerator (TMA) and an mbarrier: copy a matrix tile by tile.
//
//   out[r][c] = in[r][c]   in, out: [rows, cols] row-major 16-bit elements (cols a multiple of 8)
//
// One block of 128 threads per 64 x 64 box: grid = (ceil(cols / 64), ceil(rows / 64)). The host builds the
// tensor map (grader.tensor_map.tensor_map(in, box=(64, 64), swizzle=128)) and passes it by value:
// `const __grid_constant__` keeps it in the kernel's parameter space, where the TMA unit reads it.
//
// Your part (the contract): when it ends, every thread of the block may read `tile`, which then holds the
// block's box in the 128-byte swizzle (the TMA unit fills the part of a box outside the matrix with zeros).
// The box comes in as ONE TMA tensor copy (no thread computes an address of `in`), its completion counted
// in bytes on the mbarrier `bar`. You write the instructions in tma.cuh beside this file (mbarrier_init,
// fence_mbarrier_init, mbarrier_arrive_expect_tx, mbarrier_arrive, mbarrier_wait, tma_load_2d: the contract
// is the comment above each; the GEMMs build on them through course/hopper/tma.cuh, not to be included
// here), then the protocol here with them. The given code after it writes the box out, un-swizzling (with
// your exercise 1's swizzled_offset, above) and guarding the matrix's edge. The test: bit-exact copies of
// random 16-bit patterns, boxes crossing the edge included; the technique: UTMALDG and SYNCS in the SASS,
// no LDG, and your own asm with mbarrier.init and mbarrier.arrive.expect_tx.
//
// Reference (PTX ISA, "Parallel Synchronization and Communication Instructions: mbarrier" and "Data
// Movement and Conversion Instructions: cp.async.bulk.tensor"; the grammar, {} optional, instantiate it):
//   mbarrier.init{.shared{::cta}}.b64  [addr], count;
//   fence.mbarrier_init.sem.scope;                       .sem = { .release }, .scope = { .cluster }
//   mbarrier.arrive.expect_tx{.sem}{.scope}{.shared{::cta}}.b64  state, [addr], txCount;
//   mbarrier.arrive{.sem}{.scope}{.shared{::cta}}.b64  state, [addr];
//   cp.async.bulk.tensor.dim.dst.src{.load_mode}.completion_mechanism  [dstMem], [tensorMap, tensorCoords], [mbar];
//       .dim = { .1d, .2d, .3d, .4d, .5d }, .dst = { .shared::cluster }, .src = { .global },
//       .load_mode = { .tile, .im2col }, .completion_mechanism = { .mbarrier::complete_tx::bytes }
//   mbarrier.try_wait.parity{.sem}{.scope}{.shared{::cta}}.b64  waitComplete, [addr], phaseParity;
#include <course/vec_dtypes.cuh>

#include "tma.cuh"

COURSE_REQUIRE_ARCH_SPECIFIC(90);

namespace {

constexpr int BOX = 64;                                     // rows and columns of a box
constexpr uint32_t BOX_BYTES = BOX * BOX * sizeof(uint16_t);  // what the mbarrier waits for

namespace hp = course::hopper;  // your mbarrier and TMA helpers (tma.cuh); hp::TensorMap: 128 opaque bytes

// Byte offset of element (row, col) of a 64-column box of 16-bit elements in the 128-byte swizzle: exercise 1's.
__device__ __forceinline__ uint32_t swizzled_offset(int row, int col) {
  // BEGIN EXERCISE
  // HINT: The given code at the end un-swizzles the box with this function: it is exercise 1's swizzled_offset
  // HINT: (wgmma_tile.cu), with the same contract. Bring yours here once it passes there.
  // STUB: (void)row; (void)col; return 0;
  return row * 128 + ((((col >> 3) ^ (row & 7)) << 4) | ((col & 7) << 1));
  // END EXERCISE
}

}  // namespace

extern "C" __global__ void __launch_bounds__(128) tma_copy(const __grid_constant__ hp::TensorMap tmap,
                                                           uint16_t* __restrict__ out, int rows, int cols) {
  __shared__ __align__(1024) uint16_t tile[BOX * BOX];
  __shared__ __align__(8) uint64_t bar;
  const int row0 = blockIdx.y * BOX, col0 = blockIdx.x * BOX;
  // BEGIN EXERCISE
  // HINT: A phase of an mbarrier completes when its expected arrivals have all happened AND the bytes it was
  // HINT: told to expect have all landed. Who arrives, who tells it the byte count, who waits, and what must
  // HINT: be true of the barrier before the copy engine or any thread touches it?
  // HINT2: Three phases. Set-up: one thread initialises the barrier for a single arrival and fences the
  // HINT2: initialisation for the async proxy; then the whole block synchronises. Issue: that thread arrives
  // HINT2: announcing the box's bytes, then asks the TMA unit for the box (destination, tensor map, the box's
  // HINT2: coordinates, the barrier). Wait: every thread waits for phase 0 of the barrier.
  // HINT3: The box's coordinates are innermost first: column col0, then row row0, in elements; the tensor
  // HINT3: map is the address of the __grid_constant__ parameter itself (&tmap).
  if (threadIdx.x == 0) {
    hp::mbarrier_init(&bar, 1);
    hp::fence_mbarrier_init();
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    hp::mbarrier_arrive_expect_tx(&bar, BOX_BYTES);
    hp::tma_load_2d(tile, &tmap, &bar, col0, row0);
  }
  hp::mbarrier_wait(&bar, 0);
  // END EXERCISE
  // Write the box out: 8 threads per 64-element row, 16 bytes (one swizzled chunk) each.
  for (int i = threadIdx.x; i < BOX * BOX / 8; i += blockDim.x) {
    const int r = i / 8, chunk = i % 8, row = row0 + r, col = col0 + 8 * chunk;
    if (row >= rows || col >= cols) continue;  // cols % 8 == 0: a chunk is all in or all out
    const uint4 v = *reinterpret_cast<const uint4*>(reinterpret_cast<const char*>(tile) + swizzled_offset(r, 8 * chunk));
    *reinterpret_cast<uint4*>(out + static_cast<int64_t>(row) * cols + col) = v;
  }
}
