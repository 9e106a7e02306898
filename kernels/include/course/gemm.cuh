// course/gemm.cuh: the configuration of day 10's tiled tensor-core GEMM.
//
//   Config<...>     the kernel's configuration as template parameters: block tile BM x BN, K step BK,
//                   WARPS_M x WARPS_N warps (each owning a WM x WN warp tile of mma tiles), STAGES
//                   shared-memory buffers for the cp.async pipeline, and whether tiles are swizzled;
//                   the sizes derived from it and the rules it must obey (static_asserts).
//                   The Python side (grader/exercises/day10.py: GemmConfig) mirrors it.
//
// The GEMM itself (swizzled tile offsets, the cp.async tile loader, the pipeline, the fragments, the
// epilogue) is day 10's exercise: solutions/day10/gemm.cu.
//
// Layout conventions: A [M, K] and B [K, N] row-major, lda = K and ldb >= N (both multiples of 8, so
// every 16-byte chunk is aligned), C [M, N] row-major.
#pragma once
#include "common.cuh"

namespace course {
namespace gemm {

constexpr int CHUNK = 8;  // 16-bit elements in one 16-byte chunk (a cp.async copy, an ldmatrix row)

template <int BM_, int BN_, int BK_, int WARPS_M_, int WARPS_N_, int STAGES_, bool SWIZZLE_>
struct Config {
  static constexpr int BM = BM_, BN = BN_, BK = BK_;
  static constexpr int WARPS_M = WARPS_M_, WARPS_N = WARPS_N_, STAGES = STAGES_;
  static constexpr bool SWIZZLE = SWIZZLE_;
  static constexpr int WARPS = WARPS_M * WARPS_N, THREADS = 32 * WARPS;
  static constexpr int WM = BM / WARPS_M, WN = BN / WARPS_N;  // warp tile
  static constexpr int MT = WM / 16, NT = WN / 8;             // m16n8 mma tiles per warp
  static constexpr int A_STAGE = BM * BK, B_STAGE = BK * BN;  // elements per pipeline buffer
  static constexpr int C_ROW = BN + CHUNK;                    // padded row of the epilogue's C tile
  static constexpr int PIPE_BYTES = STAGES * (A_STAGE + B_STAGE) * 2;
  static constexpr int EPILOGUE_BYTES = BM * C_ROW * 2;
  static constexpr int SMEM_BYTES = PIPE_BYTES > EPILOGUE_BYTES ? PIPE_BYTES : EPILOGUE_BYTES;

  static_assert(BM % (16 * WARPS_M) == 0 && BN % (16 * WARPS_N) == 0,
                "warp tiles must be multiples of 16 x 16 (an ldmatrix.x4 covers two n8 tiles)");
  static_assert(BK % 32 == 0, "BK must be a multiple of 32: an even number of the mma's k16 steps "
                              "(fragments are double-buffered across steps)");
  static_assert(((BK / CHUNK) & (BK / CHUNK - 1)) == 0 && ((BN / CHUNK) & (BN / CHUNK - 1)) == 0,
                "tile rows must hold a power-of-two number of 16-byte chunks (for the swizzle)");
  static_assert((BM * BK / CHUNK) % THREADS == 0 && (BK * BN / CHUNK) % THREADS == 0,
                "every thread copies the same number of chunks of each tile");
  static_assert(STAGES >= 1, "at least one pipeline stage");
};

}  // namespace gemm
}  // namespace course
