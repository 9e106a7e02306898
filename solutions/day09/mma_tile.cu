// Day 9, exercise 2: one warp, one tensor-core instruction: D = A * B + C on a 16x8x16 tile.
//
//   a: [count, 16, 16] (M x K, row-major)   b: [count, 16, 8] (K x N, row-major)
//   c, d: [count, 16, 8] float              T = half or __nv_bfloat16, accumulated in float
//
// One warp per tile: grid = (count,), block = (32,). Each lane loads its fragments straight from
// global memory (no shared memory, no ldmatrix: the point is to know which lane holds what), issues
// one mma.sync.m16n8k16, written by you as inline PTX, and stores its part of D. The layouts are in
// course/mma.cuh (which later days use for the instruction too). The test: D against float64 within the
// fp32 accumulation tolerance, fp16 and bf16; the technique: your own asm with mma.sync, HMMA in the SASS.
// Reference (PTX ISA, "Warp-level matrix multiply-accumulate instructions: mma"):
//   mma.sync.aligned.m16n8k16.row.col.dtype.f16.f16.ctype    d, a, b, c;   .dtype = .ctype = { .f16, .f32 }
//   mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32      d, a, b, c;
//       d, c: brace lists of 4 .f32 registers; a: 4 .b32 registers (2 halves each); b: 2 .b32 registers
#include <course/mma.cuh>

namespace {

template <typename T> constexpr bool IS_HALF = false;  // fp16 or bf16, for `if constexpr`
template <> constexpr bool IS_HALF<half> = true;

// C += A * B on one 16x8x16 tile with mma.sync.aligned.m16n8k16.row.col.f32.{f16|bf16}.{f16|bf16}.f32:
// A, B, C are this lane's fragments (4, 2 and 4 registers); T = half or __nv_bfloat16.
template <typename T>
__device__ __forceinline__ void mma_m16n8k16(float* C, const uint32_t* A, const uint32_t* B) {
  // BEGIN EXERCISE
  // HINT: One PTX instruction per element type, picked at compile time. D and C are the same registers here:
  // HINT: which constraint makes an operand both read and written? (Instantiate the grammar in the header.)
  // HINT2: One `asm volatile` per type: four float operands for D (read-write, reused as C), four 32-bit
  // HINT2: registers of A and two of B as inputs, listed in the order d, a, b, c.
  // HINT3: The operand numbers run over outputs first, then inputs: with D as "+f" operands 0-3, A is 4-7 and B
  // HINT3: 8-9, and C reuses 0-3. The type suffixes are dtype.atype.btype.ctype: f32, then f16 or bf16 twice, f32.
  // STUB: (void)C; (void)A; (void)B;
  if constexpr (IS_HALF<T>) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
        "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
        : "+f"(C[0]), "+f"(C[1]), "+f"(C[2]), "+f"(C[3])
        : "r"(A[0]), "r"(A[1]), "r"(A[2]), "r"(A[3]), "r"(B[0]), "r"(B[1]));
  } else {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
        "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
        : "+f"(C[0]), "+f"(C[1]), "+f"(C[2]), "+f"(C[3])
        : "r"(A[0]), "r"(A[1]), "r"(A[2]), "r"(A[3]), "r"(B[0]), "r"(B[1]));
  }
  // END EXERCISE
}

template <typename T>
__device__ void mma_tile(const T* __restrict__ a, const T* __restrict__ b, const float* __restrict__ c,
                         float* __restrict__ d) {
  const int64_t tile = blockIdx.x;
  a += tile * 16 * 16;
  b += tile * 16 * 8;
  c += tile * 16 * 8;
  d += tile * 16 * 8;
  const int lane = threadIdx.x, g = lane / 4, t = lane % 4;
  uint32_t A[4], B[2];
  float C[4];
  // BEGIN EXERCISE
  // HINT: Which elements of A, B and C does this lane hold, and in which half of each 32-bit register does
  // HINT: each 16-bit element go? (course/mma.cuh draws the m16n8k16 fragments.)
  // HINT2: With g = lane / 4 and t = lane % 4: each A register is a pair of consecutive columns of one row, each
  // HINT2: B register a pair of consecutive rows of one column, each C value one float; pack pairs with
  // HINT2: course::mma::pack2_raw, the smaller index in the low half.
  // HINT3: A register i: row g + 8 (i % 2), columns 2t + 8 (i / 2) and the next. B register i: rows 2t + 8i and
  // HINT3: the next, column g. B is row-major [16, 8], so B's pair is NOT contiguous in memory: the two
  // HINT3: elements are a row (8 elements) apart.
  // STUB: A[0] = A[1] = A[2] = A[3] = B[0] = B[1] = 0u;
  // STUB: C[0] = C[1] = C[2] = C[3] = 0.f;
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const int row = g + 8 * (i % 2), col = 2 * t + 8 * (i / 2);
    A[i] = course::mma::pack2_raw(a[row * 16 + col], a[row * 16 + col + 1]);
  }
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    const int k = 2 * t + 8 * i;
    B[i] = course::mma::pack2_raw(b[k * 8 + g], b[(k + 1) * 8 + g]);
  }
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    C[i] = c[course::mma::frag_c_row(lane, i) * 8 + course::mma::frag_c_col(lane, i)];
  }
  // END EXERCISE
  mma_m16n8k16<T>(C, A, B);
  // BEGIN EXERCISE
  // HINT: Where does C value i of this lane sit in the 16 x 8 tile? The same C layout as the load.
  // HINT2: One loop over the 4 values: its row and column (course::mma::frag_c_row / frag_c_col, or your own),
  // HINT2: one store into d.
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    d[course::mma::frag_c_row(lane, i) * 8 + course::mma::frag_c_col(lane, i)] = C[i];
  }
  // END EXERCISE
}

}  // namespace

extern "C" __global__ void __launch_bounds__(32)
mma_tile_f16(const half* a, const half* b, const float* c, float* d) {
  mma_tile(a, b, c, d);
}
extern "C" __global__ void __launch_bounds__(32)
mma_tile_bf16(const __nv_bfloat16* a, const __nv_bfloat16* b, const float* c, float* d) {
  mma_tile(a, b, c, d);
}
