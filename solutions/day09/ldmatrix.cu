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
// written (the grader checks they keep their poison). You write the instruction itself, as inline PTX,
// in mma.cuh beside this file (course::mma::ldmatrix<NUM, TRANS>; the technique wants your own asm with
// ldmatrix.sync, and LDSM in the SASS); later days' course/mma.cuh builds its wrappers on it. Then the
// probe here, with it. Reference (PTX ISA, "Warp-level matrix
// load instruction: ldmatrix"; {} optional):
//   ldmatrix.sync.aligned.shape.num{.trans}{.ss}.type  r, [p];
//       .shape = { .m8n8 }, .num = { .x1, .x2, .x4 }, .ss = { .shared{::cta} }, .type = { .b16 }
//       r: a brace list of .num 32-bit registers; p: a 32-bit shared-memory address
// your ldmatrix (and, for exercise 2, mma_m16n8k16):
#include "mma.cuh"

namespace {

constexpr int ROW = 16 + 8;  // padded row of the shared tile: 48 bytes, every row still 16-byte aligned

template <int NUM, bool TRANS>
__device__ void probe(const uint16_t* __restrict__ tiles, uint32_t* __restrict__ out) {
  __shared__ alignas(16) uint16_t tile[16 * ROW];
  const int lane = threadIdx.x;
  const uint16_t* src = tiles + static_cast<int64_t>(blockIdx.x) * 256;
  uint32_t r[4];
  // BEGIN EXERCISE
  // HINT: ldmatrix reads shared memory, and each lane supplies one row address. Which lanes address which
  // HINT: matrix (header), and what must the lanes whose address is ignored still give?
  // HINT2: Three steps: the warp copies its tile into the padded shared array (each lane a strided share of the
  // HINT2: 256 elements), a barrier, then each lane computes its row address and calls your wrapper.
  // HINT3: Matrix j starts at row 8 (j % 2), column 8 (j / 2); lanes 8j .. 8j + 7 give its 8 rows. So lane l
  // HINT3: addresses row l % 16 and column half l / 16: the same address serves x1, x2, x4 and .trans (the
  // HINT3: lanes past 8 * NUM give a valid address nobody reads).
  // STUB: (void)src; (void)tile;
  // STUB: r[0] = r[1] = r[2] = r[3] = 0u;
  for (int i = lane; i < 256; i += 32) tile[(i / 16) * ROW + i % 16] = src[i];
  __syncthreads();
  const uint16_t* ptr = tile + (lane % 16) * ROW + 8 * (lane / 16);
  course::mma::ldmatrix<NUM, TRANS>(r, ptr);
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
