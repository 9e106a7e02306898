// Day 10, exercise 4: one step from day 9's block tile to a fast GEMM: cp.async into swizzled shared
// memory, ldmatrix, mma.sync, and an fp16 epilogue. C = A * B, fp32 accumulate, fp16 out.
//
//   A: [M, K] row-major   B: [K, N] row-major, row stride ldb (>= N, a multiple of 8)   C: [M, N]
//   K must be a multiple of 8 (16-byte rows for cp.async); M and N are arbitrary.
//
// One block of 4 warps computes a 64x64 tile of C: grid = (ceil(N / 64), ceil(M / 64)), block = (128,).
// The warps form a 2x2 grid of 32x32 warp tiles (2 m16 x 4 n8 mma tiles each), as on day 9. Each K
// step of BK = 32: the block copies the A tile [64, 32] and the B tile [32, 64] with 16-byte cp.async
// copies (2 of each per thread; zeros past the edges, nothing read there) into swizzled shared
// memory, waits for them, and each warp reads its fragments with ldmatrix at the swizzled offsets.
// One stage, no overlap yet: gemm.cu pipelines the same steps.
#include <course/cp_async.cuh>
#include <course/mma.cuh>

namespace {

constexpr int BM = 64, BN = 64, BK = 32;         // block tile and K step
constexpr int WM = 32, WN = 32;                  // warp tile
constexpr int MT = WM / 16, NT = WN / 8;         // mma tiles per warp: 2 x 4
constexpr int THREADS = 128, CHUNK = 8;          // CHUNK: halves in 16 bytes

// Your swizzle of exercise 3: where element (row, col) of a [ROWS, COLS] tile is stored.
template <int CHUNKS>
__device__ __forceinline__ constexpr int swizzle_chunk(int row, int chunk) {
  // BEGIN EXERCISE
  // HINT: as in swizzle.cu.
  // STUB: return chunk + 0 * row;
  constexpr int period = CHUNKS < 8 ? CHUNKS : 8;
  return chunk ^ ((row / (8 / period)) % period);
  // END EXERCISE
}

template <int COLS>
__device__ __forceinline__ int tile_offset(int row, int col) {
  // BEGIN EXERCISE
  // HINT: as in swizzle.cu (always swizzled here).
  // STUB: (void)row; (void)col; return 0;
  return row * COLS + swizzle_chunk<COLS / CHUNK>(row, col / CHUNK) * CHUNK + col % CHUNK;
  // END EXERCISE
}

}  // namespace

extern "C" __global__ void __launch_bounds__(THREADS)
gemm_mma_f16(const half* __restrict__ A, const half* __restrict__ B, half* __restrict__ C, int M, int N,
             int K, int ldb) {
  __shared__ alignas(128) half sa[BM * BK];
  __shared__ alignas(128) half sb[BK * BN];
  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  const int wm = warp / 2, wn = warp % 2;  // this warp's tile within the block
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  float acc[MT][NT][4] = {};

  // BEGIN EXERCISE
  // HINT: the K loop (k0 += BK): 1. copy the A tile (rows m0.., columns k0..) and the B tile (rows k0..,
  // HINT: columns n0..) chunk by chunk with course::cp_async::load_128b, each chunk to its swizzled
  // HINT: place, zero-filled where it lies outside A or B; 2. commit_group(), wait_group<0>(),
  // HINT: __syncthreads(); 3. for each k16 step: ldmatrix the warp's A and B fragments at swizzled
  // HINT: offsets, MT x NT mma; 4. __syncthreads() before the next K step overwrites the tiles.
  // HINT2: A tile: BM * BK / CHUNK = 256 chunks, 2 per thread (unrolled): chunk c = tid + i * THREADS is
  // HINT2: tile row c / (BK / CHUNK), column c % (BK / CHUNK) * CHUNK; inside = m0 + row < M && k0 + col < K
  // HINT2: (K % 8 == 0: a chunk is all inside or all outside). B tile the same over BN / CHUNK chunks a
  // HINT2: row, its rows ldb apart. Destination: sa + tile_offset<BK>(row, col), sb + tile_offset<BN>(row, col).
  // HINT2: fragments: exactly day 9's block tile, with sa + tile_offset<BK>(row, col) in place of the
  // HINT2: padded address (and tile_offset<BN> for B). Every column you give is a multiple of 8.
  // HINT3: load_128b(sa + tile_offset<BK>(r, col), inside ? A + int64_t(m0 + r) * K + k0 + col : A, inside);
  // HINT3: (a false predicate reads nothing, but the address must still be a valid one).
  // STUB: (void)tid; (void)lane; (void)wm; (void)wn; (void)m0; (void)n0; (void)sa; (void)sb; (void)ldb;
  for (int k0 = 0; k0 < K; k0 += BK) {
#pragma unroll
    for (int i = 0; i < BM * BK / CHUNK / THREADS; ++i) {
      const int c = tid + i * THREADS, r = c / (BK / CHUNK), col = c % (BK / CHUNK) * CHUNK;
      const bool inside = m0 + r < M && k0 + col < K;
      course::cp_async::load_128b(sa + tile_offset<BK>(r, col), inside ? A + int64_t(m0 + r) * K + k0 + col : A,
                                  inside);
    }
#pragma unroll
    for (int i = 0; i < BK * BN / CHUNK / THREADS; ++i) {
      const int c = tid + i * THREADS, r = c / (BN / CHUNK), col = c % (BN / CHUNK) * CHUNK;
      const bool inside = k0 + r < K && n0 + col < N;
      course::cp_async::load_128b(sb + tile_offset<BN>(r, col),
                                  inside ? B + int64_t(k0 + r) * ldb + n0 + col : B, inside);
    }
    course::cp_async::commit_group();
    course::cp_async::wait_group<0>();
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < BK / 16; ++kk) {
      uint32_t af[MT][4], bf[NT / 2][4];
#pragma unroll
      for (int mt = 0; mt < MT; ++mt) {
        const int row = wm * WM + mt * 16 + lane % 16, col = kk * 16 + 8 * (lane / 16);
        course::mma::ldmatrix_m8n8x4(af[mt], sa + tile_offset<BK>(row, col));
      }
#pragma unroll
      for (int np = 0; np < NT / 2; ++np) {
        const int row = kk * 16 + lane % 16, col = wn * WN + np * 16 + 8 * (lane / 16);
        course::mma::ldmatrix_m8n8x4_trans(bf[np], sb + tile_offset<BN>(row, col));
      }
#pragma unroll
      for (int mt = 0; mt < MT; ++mt) {
#pragma unroll
        for (int nt = 0; nt < NT; ++nt) {
          course::mma::mma_sync_m16n8k16_row_col_f32<half>(acc[mt][nt], af[mt], &bf[nt / 2][2 * (nt % 2)]);
        }
      }
    }
    __syncthreads();
  }
  // END EXERCISE

  // BEGIN EXERCISE
  // HINT: the epilogue, straight from the registers: each accumulator pair (acc[..][0], acc[..][1]) and
  // HINT: (acc[..][2], acc[..][3]) is two adjacent columns of one row: round it to a __half2
  // HINT: (__floats2half2_rn) and store it, guarding rows >= M and columns >= N.
  // HINT2: pair h (0 or 1) of mma tile (mt, nt) is row m0 + wm * WM + mt * 16 + lane / 4 + 8 * h, columns
  // HINT2: col = n0 + wn * WN + nt * 8 + 2 * (lane % 4) and col + 1.
  // HINT2: one 4-byte __half2 store needs an even element offset: row * N + col is even only when N is.
  // HINT3: if (col + 1 < N && N % 2 == 0) *reinterpret_cast<__half2*>(dst) = v; else store the halves one by one.
#pragma unroll
  for (int mt = 0; mt < MT; ++mt) {
#pragma unroll
    for (int nt = 0; nt < NT; ++nt) {
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int row = m0 + wm * WM + mt * 16 + lane / 4 + 8 * h, col = n0 + wn * WN + nt * 8 + 2 * (lane % 4);
        if (row >= M || col >= N) continue;
        const __half2 v = __floats2half2_rn(acc[mt][nt][2 * h], acc[mt][nt][2 * h + 1]);
        half* dst = C + int64_t(row) * N + col;
        if (col + 1 < N && N % 2 == 0) {
          *reinterpret_cast<__half2*>(dst) = v;
        } else {
          dst[0] = __low2half(v);
          if (col + 1 < N) dst[1] = __high2half(v);
        }
      }
    }
  }
  // END EXERCISE
}
