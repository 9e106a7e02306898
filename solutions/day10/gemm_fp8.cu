// Day 10, exercise 6: an FP8 GEMM. C = scale_a * scale_b * (A B^T), e4m3 in, fp32 accumulate, fp32 out.
//
//   A: [M, K] e4m3, row-major     B: [N, K] e4m3, row-major (B^T: each column of the product is a
//   row of B, K contiguous, the "col" operand of mma)     C: [M, N] fp32     scale_a, scale_b: the
//   per-tensor scales the quantiser chose (real A = scale_a * A_e4m3), applied once, in the epilogue.
//   K must be a multiple of 16 (16-byte rows for cp.async); M and N are arbitrary.
//
// The same block tile as gemm_mma.cu (64x64, 4 warps of 32x32, cp.async into swizzled shared memory,
// ldmatrix), with FP8's instruction, mma.sync m16n8k32 on e4m3, which multiplies a 16x32 tile of A by a
// 32x8 tile of B (PTX ISA, "Warp-level matrix multiply-accumulate instructions: mma"; instantiate it):
//   mma.sync.aligned.shape.row.col.dtype.f8type.f8type.ctype  d, a, b, c;
//       .shape = { .m16n8k16, .m16n8k32 }, .f8type = { .e4m3, .e5m2 }, .dtype = .ctype = { .f16, .f32 }
// Each 32-bit register now holds four e4m3 values along k, so
// the fragments cover twice the k of fp16 in the same registers, and ldmatrix (which moves 16-bit
// pairs) loads them unchanged: an 8x8 matrix of b16 is an 8x16 matrix of bytes.
//   A fragment (4 regs): a0 = row g, k 4t..4t+3; a1 = row g+8; a2 = row g, k 16+4t..; a3 = row g+8, k 16+..
//   B fragment (2 regs): b0 = column g (a row of B), k 4t..4t+3; b1 = k 16+4t..16+4t+3
//   C: as for m16n8k16 (c0, c1 = row g, columns 2t, 2t+1; c2, c3 = row g+8).
// (g = lane / 4, t = lane % 4.) Read the SASS: on sm_89 (Ada) this is one QMMA.16832; on sm_90 (Hopper)
// the compiler unpacks the bytes to fp16 (F2FP) and issues two HMMA.16816: Hopper's FP8 speed is
// reached only through wgmma (day 15).
#include <course/cp_async.cuh>
#include <course/mma.cuh>
#include <course/vec_dtypes.cuh>

COURSE_REQUIRE_ARCH(89);  // FP8 mma.sync: Ada (sm_89), Hopper (sm_90) and newer

namespace {

constexpr int BM = 64, BN = 64, BK = 64;   // block tile; BK in elements = bytes
constexpr int WM = 32, WN = 32;            // warp tile
constexpr int MT = WM / 16, NT = WN / 8;   // mma tiles per warp: 2 x 4
constexpr int THREADS = 128, CHUNK = 16;   // CHUNK: e4m3 values in 16 bytes
using fp8 = __nv_fp8_e4m3;

// Both tiles are [64 rows, 64 bytes]: 4 chunks a row, two rows a 128-byte line. The swizzle of
// swizzle.cu (CHUNKS = 4): 8 rows of one chunk column land on 8 different 16-byte bank slots.
__device__ __forceinline__ int tile_offset(int row, int col) {
  constexpr int CHUNKS = BK / CHUNK;
  return row * BK + ((col / CHUNK) ^ ((row / (8 / CHUNKS)) % CHUNKS)) * CHUNK + col % CHUNK;
}

// C (4 fp32) += A (16x32 e4m3, 4 regs) * B (32x8 e4m3, 2 regs).
__device__ __forceinline__ void mma_e4m3(float* c, const uint32_t* a, const uint32_t* b) {
  // BEGIN EXERCISE
  // HINT: Day 9's mma.sync asm, instantiated for FP8 from the grammar in the header: which shape, which types,
  // HINT: and how many registers of each operand?
  // HINT2: One `asm volatile`: 4 "+f" accumulators (D, reused as C), 4 "r" registers of A, 2 of B, listed
  // HINT2: in the order d, a, b, c.
  // HINT3: The shape is m16n8k32: as many registers as fp16's m16n8k16, each holding four e4m3 values along k.
  // HINT3: The type suffixes are dtype.f8type.f8type.ctype: f32, e4m3, e4m3, f32.
  // STUB: (void)c; (void)a; (void)b;
  asm volatile(
      "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};\n"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  // END EXERCISE
}

// One 16-byte copy of a tile row chunk, zero-filled outside the matrix (rows x K).
__device__ __forceinline__ void load_chunk(fp8* tile, const fp8* src, int rows, int K, int r0, int k0, int c) {
  const int r = c / (BK / CHUNK), col = c % (BK / CHUNK) * CHUNK;
  const bool inside = r0 + r < rows && k0 + col < K;
  course::cp_async::load_128b(tile + tile_offset(r, col), inside ? src + int64_t(r0 + r) * K + k0 + col : src,
                              inside);
}

}  // namespace

extern "C" __global__ void __launch_bounds__(THREADS)
gemm_fp8_e4m3(const fp8* __restrict__ A, const fp8* __restrict__ B, float* __restrict__ C, int M, int N,
              int K, float scale_a, float scale_b) {
  __shared__ alignas(128) fp8 sa[BM * BK];
  __shared__ alignas(128) fp8 sb[BN * BK];
  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  const int wm = warp / 2, wn = warp % 2;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  float acc[MT][NT][4] = {};

  for (int k0 = 0; k0 < K; k0 += BK) {
#pragma unroll
    for (int i = 0; i < BM * BK / CHUNK / THREADS; ++i) load_chunk(sa, A, M, K, m0, k0, tid + i * THREADS);
#pragma unroll
    for (int i = 0; i < BN * BK / CHUNK / THREADS; ++i) load_chunk(sb, B, N, K, n0, k0, tid + i * THREADS);
    course::cp_async::wait_all();  // one stage: commit and wait for every copy of this thread
    __syncthreads();
    // BEGIN EXERCISE
    // HINT: ldmatrix moves 16-bit pairs, and an 8 x 8 matrix of b16 is an 8 x 16 matrix of bytes. Which 16-byte
    // HINT: pieces of the tile does each fragment register need (the header's fragment layout), and so which row
    // HINT: and byte column must each lane address?
    // HINT2: Per k32 step of the tile: MT A fragments (one ldmatrix .x4 each) and NT / 2 pairs of B fragments (one
    // HINT2: .x4 per two n8 tiles), addresses through tile_offset (row, byte column); then MT x NT mma_e4m3.
    // HINT3: B is [N, K]: its rows are the product's columns, so it is read WITHOUT .trans, like K on day 12. Its
    // HINT3: .x4 matrices must come as (rows 0-7, bytes 0-15), (rows 0-7, bytes 16-31), (rows 8-15, bytes 0-15),
    // HINT3: (rows 8-15, bytes 16-31), so registers 0-1 serve n8 tile 2p and 2-3 tile 2p + 1: lane l addresses
    // HINT3: row l % 8 + 8 (l / 16), byte 16 ((l / 8) % 2). A's order is day 9's: row l % 16, byte 16 (l / 16).
    // STUB: (void)lane; (void)wm; (void)wn;
#pragma unroll
    for (int kk = 0; kk < BK / 32; ++kk) {
      uint32_t af[MT][4], bf[NT / 2][4];
#pragma unroll
      for (int mt = 0; mt < MT; ++mt) {
        const int row = wm * WM + mt * 16 + lane % 16, col = kk * 32 + 16 * (lane / 16);
        course::mma::ldmatrix_m8n8x4(af[mt], sa + tile_offset(row, col));
      }
#pragma unroll
      for (int np = 0; np < NT / 2; ++np) {
        const int row = wn * WN + np * 16 + lane % 8 + 8 * (lane / 16), col = kk * 32 + 16 * ((lane / 8) % 2);
        course::mma::ldmatrix_m8n8x4(bf[np], sb + tile_offset(row, col));
      }
#pragma unroll
      for (int mt = 0; mt < MT; ++mt) {
#pragma unroll
        for (int nt = 0; nt < NT; ++nt) mma_e4m3(acc[mt][nt], af[mt], &bf[nt / 2][2 * (nt % 2)]);
      }
    }
    // END EXERCISE
    __syncthreads();
  }

  // BEGIN EXERCISE
  // HINT: Why apply scale_a * scale_b here rather than to each product, and which stores must stay inside C?
  // HINT2: Loops over mt, nt and the two row halves: the pair's row and columns from the C layout, times the
  // HINT2: scale; a float2 store when both columns are inside and N is even, else one float at a time.
  // STUB: (void)C; (void)M; (void)N; (void)scale_a; (void)scale_b; (void)acc;
  const float scale = scale_a * scale_b;
#pragma unroll
  for (int mt = 0; mt < MT; ++mt) {
#pragma unroll
    for (int nt = 0; nt < NT; ++nt) {
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int row = m0 + wm * WM + mt * 16 + lane / 4 + 8 * h, col = n0 + wn * WN + nt * 8 + 2 * (lane % 4);
        if (row >= M || col >= N) continue;
        const float2 v = make_float2(acc[mt][nt][2 * h] * scale, acc[mt][nt][2 * h + 1] * scale);
        float* dst = C + int64_t(row) * N + col;
        if (col + 1 < N && N % 2 == 0) {
          *reinterpret_cast<float2*>(dst) = v;
        } else {
          dst[0] = v.x;
          if (col + 1 < N) dst[1] = v.y;
        }
      }
    }
  }
  // END EXERCISE
}
