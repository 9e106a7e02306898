// Your exercise file. Generated from solutions/day09/ldmatrix.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: 523ad964af90e9bd
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
// written (the grader checks they keep their poison). course/mma.cuh has the ldmatrix wrappers and
// says which lanes give which row addresses.
#include <course/mma.cuh>

namespace {

constexpr int ROW = 16 + 8;  // padded row of the shared tile: 48 bytes, every row still 16-byte aligned

template <int NUM, bool TRANS>
__device__ void probe(const uint16_t* __restrict__ tiles, uint32_t* __restrict__ out) {
  __shared__ alignas(16) uint16_t tile[16 * ROW];
  const int lane = threadIdx.x;
  const uint16_t* src = tiles + static_cast<int64_t>(blockIdx.x) * 256;
  for (int i = lane; i < 256; i += 32) tile[(i / 16) * ROW + i % 16] = src[i];
  __syncthreads();
  uint32_t r[4];
  // TODO: your code here.
  //   Hint: lanes 8j..8j+7 give the addresses of the 8 rows of matrix j (lanes past 8 * NUM are
  //   Hint: ignored, but must still give a valid shared address). Matrix j starts at row 8 * (j % 2),
  //   Hint: column 8 * (j / 2) of the tile, so lane l points at row l % 16, column 8 * (l / 16): the
  //   Hint: same address for every variant. Then call course::mma::ldmatrix_m8n8x{1,2,4}[_trans](r, ptr),
  //   Hint: chosen with `if constexpr` on NUM and TRANS.
  r[0] = r[1] = r[2] = r[3] = 0u;
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
