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
// written (the grader checks they keep their poison). You write the instruction itself, as inline PTX;
// course/mma.cuh, which later days use, has the same wrappers (not to be called here: the technique
// wants your own asm with ldmatrix.sync, and LDSM in the SASS). Reference (PTX ISA, "Warp-level matrix
// load instruction: ldmatrix"; {} optional):
//   ldmatrix.sync.aligned.shape.num{.trans}{.ss}.type  r, [p];
//       .shape = { .m8n8 }, .num = { .x1, .x2, .x4 }, .ss = { .shared{::cta} }, .type = { .b16 }
//       r: a brace list of .num 32-bit registers; p: a 32-bit shared-memory address
#include <course/common.cuh>

namespace {

constexpr int ROW = 16 + 8;  // padded row of the shared tile: 48 bytes, every row still 16-byte aligned

// ldmatrix.sync.aligned.m8n8.x{NUM}[.trans].shared.b16 into r[0 .. NUM - 1]; `row` is this lane's row
// address (a generic pointer into shared memory).
template <int NUM, bool TRANS>
__device__ __forceinline__ void ldmatrix(uint32_t* r, const void* row) {
  // BEGIN EXERCISE
  // HINT: Each variant is one PTX instruction with a different number of destination registers, chosen at
  // HINT: compile time from NUM and TRANS. In which state space does ldmatrix read, and what kind of address
  // HINT: does that need? (Instantiate the grammar quoted in the file's header.)
  // HINT2: A compile-time branch per (NUM, TRANS) pair, each one `asm volatile` with one "=r" output per
  // HINT2: register it loads and one "r" input, the 32-bit shared address of this lane's row; registers a
  // HINT2: variant does not load are left untouched.
  // HINT3: __cvta_generic_to_shared turns the generic pointer into a shared-window offset (64-bit): cast it
  // HINT3: to 32 bits for the "r" operand. The destination list is a brace list of NUM operands, then the
  // HINT3: address operand in brackets; .trans sits right after .num.
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
