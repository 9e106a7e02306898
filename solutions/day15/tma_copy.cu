// Day 15, exercise 2: the Tensor Memory Accelerator (TMA) and an mbarrier: copy a matrix tile by tile.
//
//   out[r][c] = in[r][c]   in, out: [rows, cols] row-major 16-bit elements (cols a multiple of 8)
//
// One block of 128 threads per 64 x 64 box: grid = (ceil(cols / 64), ceil(rows / 64)). One thread asks
// the TMA unit for the block's box (a single instruction moves all 8 KB: no thread computes an address),
// the copy engine lands it in shared memory in the 128-byte swizzle (the tensor map says so) and, as it
// lands, counts the bytes against the block's mbarrier. Every thread waits on the mbarrier, then writes
// its share of the tile to `out`, un-swizzling the addresses and guarding the matrix's edge (the TMA
// unit fills the part of a box that lies outside the matrix with zeros).
//
// The host builds the tensor map (grader.tensor_map.tensor_map(in, box=(64, 64), swizzle=128)) and passes
// it by value: `const __grid_constant__` keeps it in the kernel's parameter space, where the TMA unit reads it.
#include <course/vec_dtypes.cuh>
COURSE_REQUIRE_ARCH_SPECIFIC(90);

namespace {

constexpr int BOX = 64;                                     // rows and columns of a box
constexpr uint32_t BOX_BYTES = BOX * BOX * sizeof(uint16_t);  // what the mbarrier waits for

struct alignas(64) TensorMap {  // CUtensorMap: 128 opaque bytes made by the driver
  unsigned long long v[16];
};

// Byte offset of element (row, col) of a 64-column box of 16-bit elements in the 128-byte swizzle (exercise 1).
__device__ __forceinline__ uint32_t swizzled_offset(int row, int col) {
  return row * 128 + ((((col >> 3) ^ (row & 7)) << 4) | ((col & 7) << 1));
}

}  // namespace

extern "C" __global__ void __launch_bounds__(128) tma_copy(const __grid_constant__ TensorMap tmap,
                                                           uint16_t* __restrict__ out, int rows, int cols) {
  __shared__ __align__(1024) uint16_t tile[BOX * BOX];
  __shared__ __align__(8) uint64_t bar;
  const int row0 = blockIdx.y * BOX, col0 = blockIdx.x * BOX;
  const uint32_t smem_tile = static_cast<uint32_t>(__cvta_generic_to_shared(tile));
  const uint32_t smem_bar = static_cast<uint32_t>(__cvta_generic_to_shared(&bar));
  // BEGIN EXERCISE
  // HINT: (1) thread 0: `mbarrier.init.shared::cta.b64 [bar], 1;` (one arrival completes a phase) and
  // HINT: `fence.mbarrier_init.release.cluster;` (the copy engine must see the initialised barrier);
  // HINT: __syncthreads() so no thread waits on an uninitialised barrier.
  // HINT: (2) thread 0: `mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], BOX_BYTES;` (arrive, and tell
  // HINT: the barrier how many bytes to expect), then
  // HINT: `cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [tile], [tmap, {col0, row0}], [bar];`
  // HINT: (coordinates innermost first: column, then row; `tmap` is the parameter's address: "l"(&tmap)).
  // HINT: (3) every thread: loop on `mbarrier.try_wait.parity.shared::cta.b64 p, [bar], 0;` until p is
  // HINT: true (phase 0 completed: the arrival happened and all BOX_BYTES landed).
  // HINT2: asm volatile("{\n.reg .pred p;\nWAIT:\nmbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
  // HINT2:              "@!p bra WAIT;\n}\n" :: "r"(smem_bar), "r"(0) : "memory");
  // HINT3: asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
  // HINT3:              " [%0], [%1, {%2, %3}], [%4];\n" :: "r"(smem_tile), "l"(&tmap), "r"(col0), "r"(row0),
  // HINT3:              "r"(smem_bar) : "memory");
  // STUB: (void)smem_tile; (void)smem_bar; (void)tmap;
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n" ::"r"(smem_bar));
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smem_bar), "r"(BOX_BYTES)
                 : "memory");
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
        " [%0], [%1, {%2, %3}], [%4];\n" ::"r"(smem_tile),
        "l"(&tmap), "r"(col0), "r"(row0), "r"(smem_bar)
        : "memory");
  }
  asm volatile(
      "{\n.reg .pred p;\nWAIT:\nmbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n@!p bra WAIT;\n}\n" ::"r"(
          smem_bar),
      "r"(0)
      : "memory");
  // END EXERCISE
  // Write the box out: 8 threads per 64-element row, 16 bytes (one swizzled chunk) each.
  for (int i = threadIdx.x; i < BOX * BOX / 8; i += blockDim.x) {
    const int r = i / 8, chunk = i % 8, row = row0 + r, col = col0 + 8 * chunk;
    if (row >= rows || col >= cols) continue;  // cols % 8 == 0: a chunk is all in or all out
    const uint4 v = *reinterpret_cast<const uint4*>(reinterpret_cast<const char*>(tile) + swizzled_offset(r, 8 * chunk));
    *reinterpret_cast<uint4*>(out + static_cast<int64_t>(row) * cols + col) = v;
  }
}
