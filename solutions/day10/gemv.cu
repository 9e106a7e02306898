// Day 10, open design (week 2): y = W x for one token, at the speed of memory (decode's GEMV).
//
//   w: [N, K] float16, row-major (element (n, k) at w[n * K + k]), the base 16-byte aligned
//   x: [K] float16
//   y: [N] float32, ZEROED before the launch; afterwards y[n] = sum over k of w[n, k] * x[k]
//   N from 1 to 2^22, K from 1 to 2^20, N * K < 2^31
//
// At M = 1 a GEMM's tiles waste their tensor cores: every weight is used once, so this kernel can only
// be as fast as it reads w. Every decision is yours: threads per row, rows per block, how many bytes one
// load moves, where x is kept, whether the blocks of a row split K (and then meet in y, which arrives
// zeroed). gemv_plan says how to launch gemv, as colsum_plan did on day 7: one thread of it writes, for
// the shape (N, K) on a GPU of `sms` SMs, plan[0] = grid.x, plan[1] = grid.y, plan[2] = block.x (1-1024,
// a multiple of 32), plan[3] = bytes of dynamic shared memory. gemv then runs once with that launch.
//
// What the tests check:
// - gemv: y against the float64 product within K * 2^-24 * max_n sum_k |w[n, k] x[k]| (float32
//   accumulation of exact float16 products, in any order), and exactly on small integers; shapes with
//   N or K of 1, 31, 33, 4099 and K not a multiple of 8.
// - gemv_design, for three shapes, decode (square), tall (K = 64) and wide (N = 64): y exact on small
//   integers, and on a GPU, bytes of w read per second >= 80% of cuBLAS's GEMV (cupy.matmul) on the
//   same weights, in the same process (2^26 weights); on the emulator (no GPU), a smaller matrix of each shape, from the memory statistics
//   of your launch: loads coalesced (32-byte sectors within 1.1x the ideal), w read once (bytes loaded
//   within 1.1x its size, plus one x per column of blocks), wide loads (8 bytes or more per thread and
//   load, on average), shared memory without bank conflicts (wavefronts within 1.25x the ideal); and your
//   plan for the GPU-size shape on 132 SMs launching at least 512 threads per SM.
// `python -m grader bench day10` measures it (memory statistics on the emulator).
#include <course/common.cuh>
#include <course/vec_dtypes.cuh>

namespace {

// BEGIN EXERCISE
// HINT: Which lanes read neighbouring weights, and how many rows does a warp need when K is only 64?
// HINT: Every row needs all of x: how often may a block read it from global memory?
// HINT2: A group of lanes per row (as many as the row has 16-byte vectors, at most a warp), the groups of
// HINT2: a block on consecutive rows; x staged in shared memory a chunk at a time, read by every group;
// HINT2: each lane's partial dot product summed across its group with shuffles; when there are few rows,
// HINT2: the blocks of one row split K and add their sums into y.
// HINT3: 8 halves (16 bytes) per load when K % 8 == 0, else 1. The lane groups must be a power of two and
// HINT3: aligned in the warp, so that __shfl_xor_sync with offsets below the group size stays inside the
// HINT3: group. The plan and the kernel share one __device__ function for the tile, and the kernel's K
// HINT3: range per block is whole chunks, so that the x chunk and the w rows agree. When a lane has few
// HINT3: loads per row (K = 64: one), give it several rows at once: their loads are independent and fly
// HINT3: together, where one row at a time would wait out each load's latency.
constexpr int THREADS = 256;
constexpr int BLOCKS_PER_SM = 3;  // resident together at up to 85 registers a thread (__launch_bounds__)
constexpr int X_CHUNK = 2048;  // halves of x in shared memory at a time (4 KiB)
constexpr int PASSES_AT_ONCE = 4;  // row passes whose loads a thread keeps in flight together

struct Tile {
  int vec;    // halves per load: 8 where every row is 16-byte aligned, else 1
  int lanes;  // lanes per row: a power of two, at most 32
  int rows;   // rows per pass of a block: THREADS / lanes
};

__device__ Tile tile_of(int k) {
  Tile t;
  t.vec = k % 8 == 0 ? 8 : 1;
  const int vectors = k / t.vec + (k % t.vec != 0);
  t.lanes = 1;
  while (t.lanes < vectors && t.lanes < 32) t.lanes *= 2;
  t.rows = THREADS / t.lanes;
  return t;
}

__device__ int chunks_of(int k) { return (k + X_CHUNK - 1) / X_CHUNK; }
__device__ int passes_of(int n, Tile t) { return (n + t.rows - 1) / t.rows; }

// Block (bx, by): the x chunks of split by; for each, the row passes bx, bx + gridDim.x, ..., taken
// PASSES_AT_ONCE at a time so that each lane has that many independent loads in flight.
template <int VEC>
__device__ void row_dots(const half* __restrict__ w, const half* __restrict__ x, float* y, int n, int k,
                         Tile t, half* xs) {
  const int lane = threadIdx.x % t.lanes, group = threadIdx.x / t.lanes;
  const int passes = passes_of(n, t), per_split = (chunks_of(k) + gridDim.y - 1) / gridDim.y;
  const int k0 = blockIdx.y * per_split * X_CHUNK, k1 = min(k, k0 + per_split * X_CHUNK);
  for (int c0 = k0; c0 < k1; c0 += X_CHUNK) {
    const int len = min(X_CHUNK, k1 - c0);
    for (int i = threadIdx.x * VEC; i < len; i += THREADS * VEC) {
      course::vec_t<half, VEC> v;
      v.load(x + c0 + i);
      v.store(xs + i);
    }
    __syncthreads();
    for (int p0 = blockIdx.x; p0 < passes; p0 += gridDim.x * PASSES_AT_ONCE) {
      long long row[PASSES_AT_ONCE];
      float acc[PASSES_AT_ONCE];
#pragma unroll
      for (int r = 0; r < PASSES_AT_ONCE; ++r) {
        row[r] = static_cast<long long>(p0 + r * gridDim.x) * t.rows + group;
        acc[r] = 0.f;
      }
#pragma unroll 2
      for (int i = lane * VEC; i < len; i += t.lanes * VEC) {
        course::vec_t<half, VEC> b, a[PASSES_AT_ONCE];
        b.load(xs + i);
#pragma unroll
        for (int r = 0; r < PASSES_AT_ONCE; ++r) {
          if (row[r] < n) a[r].load(w + row[r] * k + c0 + i);
          else a[r].fill(__float2half(0.f));
        }
#pragma unroll
        for (int r = 0; r < PASSES_AT_ONCE; ++r)
#pragma unroll
          for (int j = 0; j < VEC; ++j) acc[r] += __half2float(a[r][j]) * __half2float(b[j]);
      }
#pragma unroll
      for (int r = 0; r < PASSES_AT_ONCE; ++r) {
        for (int offset = t.lanes / 2; offset > 0; offset /= 2) acc[r] += __shfl_xor_sync(0xffffffffu, acc[r], offset);
        if (lane == 0 && row[r] < n) {
          if (gridDim.y == 1 && k1 - k0 <= X_CHUNK) y[row[r]] = acc[r];  // the row's only writer, once
          else atomicAdd(y + row[r], acc[r]);  // no return value: a fire-and-forget RED
        }
      }
    }
    __syncthreads();
  }
}
// END EXERCISE

}  // namespace

extern "C" __global__ void gemv_plan(int n, int k, int sms, int* plan) {
  // BEGIN EXERCISE
  // HINT: How many rows does a block take, and when are there too few row blocks to fill the GPU?
  // HINT2: grid.x covers the rows; grid.y splits K, in whole chunks of x, until there are several blocks
  // HINT2: per SM in all.
  // STUB: plan[0] = 1; plan[1] = 1; plan[2] = 32; plan[3] = 0;
  const Tile t = tile_of(k);
  const int groups = (passes_of(n, t) + PASSES_AT_ONCE - 1) / PASSES_AT_ONCE;  // rows a block takes at once
  const int wanted = sms * BLOCKS_PER_SM;
  const int splits = max(1, min(chunks_of(k), (wanted + groups - 1) / groups));
  const int per_split = (chunks_of(k) + splits - 1) / splits;
  const int grid_y = (chunks_of(k) + per_split - 1) / per_split;  // every split gets chunks: no idle blocks
  const int grid_x = max(1, min(groups, (wanted + grid_y - 1) / grid_y));
  plan[0] = grid_x;
  plan[1] = min(grid_y, 65535);
  plan[2] = THREADS;
  plan[3] = 0;
  // END EXERCISE
}

// BEGIN EXERCISE
// HINT: The kernel must cut the work exactly as the plan did: what does it recompute from (n, k)? And
// HINT: how many of your blocks can an SM hold at once, with the registers each thread needs?
// HINT2: Static shared memory for one chunk of x; a branch on the vector width into a template;
// HINT2: __launch_bounds__ so that the blocks per SM the plan counts on are resident together.
// STUB: extern "C" __global__ void gemv(const half* __restrict__ w, const half* __restrict__ x, float* y, int n, int k) {
// STUB: }
extern "C" __global__ void __launch_bounds__(THREADS, BLOCKS_PER_SM)
gemv(const half* __restrict__ w, const half* __restrict__ x, float* y, int n, int k) {
  __shared__ __align__(16) half xs[X_CHUNK];
  const Tile t = tile_of(k);
  if (t.vec == 8) {
    row_dots<8>(w, x, y, n, k, t, xs);
  } else {
    row_dots<1>(w, x, y, n, k, t, xs);
  }
}
// END EXERCISE
