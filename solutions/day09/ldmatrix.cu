// Day 9, exercise 1: ldmatrix, shared memory -> the registers of a warp (x1, x2, x4 and .trans).
//
//   tiles: [count, 16, 16] 16-bit elements (fp16 or bf16 bits: ldmatrix moves bits, not numbers)
//   out:   [count, 32, 4] uint32: out[tile][lane][j] = register j of `lane` after the ldmatrix
//
// One warp per tile: grid = (count,), block = (32,). The kernel copies its tile to shared memory, then
// each variant loads 1, 2 or 4 8x8 matrices of it, in this order (the order an A fragment needs):
//
//   matrix 0: rows 0..7,  cols 0..7       matrix 1: rows 8..15, cols 0..7
//   matrix 2: rows 0..7,  cols 8..15      matrix 3: rows 8..15, cols 8..15
//
// x1 loads matrix 0, x2 matrices 0 and 1, x4 all four, into registers 0, 1, 2, 3 in that order; the
// .trans variants load the same matrices transposed. Registers a variant does not load are not
// written (the grader checks they keep their poison). You write the instruction itself, as inline PTX
// (PTX ISA: "Warp-level matrix load instruction: ldmatrix"); course/mma.cuh, which later days use,
// has the same wrappers and says which lanes give which row addresses.
#include <course/common.cuh>

namespace {

constexpr int ROW = 16 + 8;  // padded row of the shared tile: 48 bytes, every row still 16-byte aligned

// ldmatrix.sync.aligned.m8n8.x{NUM}[.trans].shared.b16 into r[0 .. NUM - 1]; `row` is this lane's row
// address (a generic pointer into shared memory).
template <int NUM, bool TRANS>
__device__ __forceinline__ void ldmatrix(uint32_t* r, const void* row) {
  // BEGIN EXERCISE
  // HINT: one `asm volatile` per variant, chosen with `if constexpr` on NUM and TRANS. ldmatrix takes
  // HINT: a 32-bit address in the .shared state space: convert the pointer with __cvta_generic_to_shared.
  // HINT2: the instruction: "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
  // HINT2: (x1: {%0}, [%1]; x2: {%0, %1}, [%2]; no .trans for the plain ones).
  // HINT2: operands: outputs "=r"(r[0]) ... one per register loaded, then the input "r"(addr).
  // HINT3: const uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(row));
  // STUB: (void)row; r[0] = r[1] = r[2] = r[3] = 0u;
  const uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(row));
  if constexpr (NUM == 1 && !TRANS) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];\n" : "=r"(r[0]) : "r"(addr));
  } else if constexpr (NUM == 1) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];\n" : "=r"(r[0]) : "r"(addr));
  } else if constexpr (NUM == 2 && !TRANS) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];\n"
                 : "=r"(r[0]), "=r"(r[1])
                 : "r"(addr));
  } else if constexpr (NUM == 2) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];\n"
                 : "=r"(r[0]), "=r"(r[1])
                 : "r"(addr));
  } else if constexpr (!TRANS) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
  } else {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
  }
  // END EXERCISE
}

template <int NUM, bool TRANS>
__device__ void probe(const uint16_t* __restrict__ tiles, uint32_t* __restrict__ out) {
  __shared__ alignas(16) uint16_t tile[16 * ROW];
  const int lane = threadIdx.x;
  const uint16_t* src = tiles + static_cast<int64_t>(blockIdx.x) * 256;
  uint32_t r[4];
  // BEGIN EXERCISE
  // HINT: copy this block's 16x16 tile from `src` into `tile` (rows padded to ROW elements), wait for
  // HINT: the whole warp (__syncthreads), then load: lanes 8j..8j+7 give the addresses of the 8 rows
  // HINT: of matrix j; lanes past 8 * NUM are ignored but must still give a valid shared address.
  // HINT: Then ldmatrix<NUM, TRANS>(r, your address).
  // HINT2: the copy: for (int i = lane; i < 256; i += 32) element i is row i / 16, column i % 16.
  // HINT2: matrix j starts at row 8 * (j % 2), column 8 * (j / 2) of the tile: lane l points at row
  // HINT2: l % 16, column 8 * (l / 16), the same address for every variant.
  // HINT3: const uint16_t* ptr = tile + (lane % 16) * ROW + 8 * (lane / 16);
  // STUB: (void)src; (void)tile;
  // STUB: r[0] = r[1] = r[2] = r[3] = 0u;
  for (int i = lane; i < 256; i += 32) tile[(i / 16) * ROW + i % 16] = src[i];
  __syncthreads();
  const uint16_t* ptr = tile + (lane % 16) * ROW + 8 * (lane / 16);
  ldmatrix<NUM, TRANS>(r, ptr);
  // END EXERCISE
  uint32_t* dst = out + (static_cast<int64_t>(blockIdx.x) * 32 + lane) * 4;
#pragma unroll
  for (int j = 0; j < NUM; ++j) dst[j] = r[j];
}

}  // namespace

extern "C" __global__ void ldmatrix_x1(const uint16_t* tiles, uint32_t* out) { probe<1, false>(tiles, out); }
extern "C" __global__ void ldmatrix_x2(const uint16_t* tiles, uint32_t* out) { probe<2, false>(tiles, out); }
extern "C" __global__ void ldmatrix_x4(const uint16_t* tiles, uint32_t* out) { probe<4, false>(tiles, out); }
extern "C" __global__ void ldmatrix_x1_trans(const uint16_t* tiles, uint32_t* out) { probe<1, true>(tiles, out); }
extern "C" __global__ void ldmatrix_x2_trans(const uint16_t* tiles, uint32_t* out) { probe<2, true>(tiles, out); }
extern "C" __global__ void ldmatrix_x4_trans(const uint16_t* tiles, uint32_t* out) { probe<4, true>(tiles, out); }
