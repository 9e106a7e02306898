// Day 7, open design (week 1): the column sums of a float32 matrix, at the speed of memory.
//
//   x:   [M, N] float32, row-major (element (i, j) at x[i * N + j]), the base 16-byte aligned
//   out: [N] float32, ZEROED before the launch; afterwards out[j] = sum over i of x[i, j]
//   M from 1 to 2^22, N from 1 to 2^20, M * N < 2^31
//
// Every decision is yours: threads per block, how the matrix is cut among blocks and threads, how many
// bytes one load moves, how the partial sums of a column meet (registers, shuffles, shared memory,
// atomicAdd into out). Days 2 (coalescing, vec_t), 4 (shared memory), 5-6 (reductions) and 7 (bytes in
// flight) have everything it takes; sketch the plan on paper first, for the three shapes below.
//
// colsum_plan says how to launch colsum: one thread of it runs first and writes, for the shape (M, N) on
// a GPU of `sms` SMs, plan[0] = grid.x, plan[1] = grid.y, plan[2] = block.x (1-1024, a multiple of 32),
// plan[3] = bytes of dynamic shared memory (0 if you use none or only static). colsum then runs once
// with that launch.
//
// What the tests check:
// - colsum: out against the float64 column sums within M * 2^-24 * max_j sum_i |x[i, j]| (float32
//   additions in any order), and exactly on small integers (a lost or doubled element shows); shapes
//   with M or N of 1, 31, 33, 4099 and N not a multiple of 4.
// - colsum_design, for three shapes, tall (N = 32), square and wide (M = 64):
//   the sums exact on small integers, and on a GPU, bytes of x read per second >= 75% of the copy
//   bandwidth of the same process (2^26 floats, each of the three shapes);
//   on the emulator (no GPU), a smaller matrix of each shape, from the memory statistics of your launch:
//   loads coalesced (32-byte sectors within 1.1x the ideal), x read once (bytes loaded within 1.1x its
//   size), wide loads (8 bytes or more per thread and load instruction, on average), shared memory
//   without bank conflicts (wavefronts within 1.25x the ideal); and your plan for the GPU-size shape on
//   132 SMs launching at least 512 threads per SM (Little's law: enough bytes in flight).
// `python -m grader bench day07 colsum` measures it (memory statistics on the emulator).
#include <course/common.cuh>
#include <course/vec_dtypes.cuh>

namespace {

// BEGIN EXERCISE
// HINT: Which threads of a warp must read neighbouring addresses, and in what direction does a row run?
// HINT: For N = 32 a row is only 128 bytes: where do the other 2 million rows' worth of parallelism come from?
// HINT2: A block owns a tile of columns and a slice of the rows: its threads form a TY x TX grid, TX
// HINT2: threads side by side across the tile's columns (VEC floats each), TY rows apart. Each thread adds
// HINT2: its column vector down its rows, the block sums its TY partial vectors (shared memory), and the
// HINT2: blocks of one column tile meet in out (which arrives zeroed). The plan sizes the row slices so
// HINT2: that the grid covers every SM several times.
// HINT3: Pick VEC = 4 (16-byte loads) when N % 4 == 0, which keeps every row 16-byte aligned, else 1; TX
// HINT3: the power of two at least N / VEC, at most the block. The plan and the kernel must agree on the
// HINT3: tile: compute it in one __device__ function both call. Keep several loads in flight per thread
// HINT3: (an unrolled loop whose loads do not depend on each other), and reduce in shared memory so that
// HINT3: a warp reads consecutive words.
constexpr int BLOCK_THREADS = 256;
constexpr int BLOCKS_PER_SM = 6;  // resident together at 40 registers a thread (__launch_bounds__)
constexpr int MIN_ROWS_PER_THREAD = 4;

struct Tile {
  int vec;  // floats per load: 4 where every row is 16-byte aligned, else 1
  int tx;   // threads across the tile's columns (a power of two)
  int ty;   // threads down the rows: BLOCK_THREADS / tx
};

__device__ Tile tile_of(int n) {
  Tile t;
  t.vec = n % 4 == 0 ? 4 : 1;
  const int vectors = n / t.vec + (n % t.vec != 0);
  t.tx = 1;
  while (t.tx < vectors && t.tx < BLOCK_THREADS) t.tx *= 2;
  t.ty = BLOCK_THREADS / t.tx;
  return t;
}

template <int VEC>
__device__ void column_tile_sums(const float* __restrict__ x, float* out, long long m, int n, Tile t,
                                 float* red) {
  const int tx = threadIdx.x % t.tx, ty = threadIdx.x / t.tx;
  const long long col = (static_cast<long long>(blockIdx.x) * t.tx + tx) * VEC;
  const long long rows = (m + gridDim.y - 1) / gridDim.y;
  const long long r0 = blockIdx.y * rows, r1 = min(m, r0 + rows);
  float acc[VEC] = {};
  if (col < n) {
#pragma unroll 4
    for (long long r = r0 + ty; r < r1; r += t.ty) {
      course::vec_t<float, VEC> v;
      v.load(x + r * n + col);
#pragma unroll
      for (int k = 0; k < VEC; ++k) acc[k] += v[k];
    }
  }
  course::vec_t<float, VEC> part;
#pragma unroll
  for (int k = 0; k < VEC; ++k) part[k] = acc[k];
  part.store(red + threadIdx.x * VEC);
  __syncthreads();
  if (ty == 0 && col < n) {
    for (int y = 1; y < t.ty; ++y) {
      course::vec_t<float, VEC> v;
      v.load(red + (y * t.tx + tx) * VEC);
#pragma unroll
      for (int k = 0; k < VEC; ++k) acc[k] += v[k];
    }
#pragma unroll
    for (int k = 0; k < VEC; ++k) atomicAdd(out + col + k, acc[k]);
  }
}
// END EXERCISE

}  // namespace

extern "C" __global__ void colsum_plan(long long m, int n, int sms, int* plan) {
  // BEGIN EXERCISE
  // HINT: How many blocks keep every SM busy, and how few rows may a thread get before more blocks cost
  // HINT: more than they bring?
  // HINT2: grid.x covers the column tiles; grid.y cuts the rows into slices, enough of them for several
  // HINT2: blocks per SM in all, but never so many that a thread adds only a handful of rows.
  // STUB: plan[0] = 1; plan[1] = 1; plan[2] = 32; plan[3] = 0;
  const Tile t = tile_of(n);
  const int vectors = n / t.vec + (n % t.vec != 0);
  const int grid_x = (vectors + t.tx - 1) / t.tx;
  const long long wanted = static_cast<long long>(sms) * BLOCKS_PER_SM;
  const long long most = max(1LL, m / (static_cast<long long>(t.ty) * MIN_ROWS_PER_THREAD));
  const long long grid_y = max(1LL, min(most, (wanted + grid_x - 1) / grid_x));
  plan[0] = grid_x;
  plan[1] = static_cast<int>(min(grid_y, 65535LL));
  plan[2] = BLOCK_THREADS;
  plan[3] = 0;
  // END EXERCISE
}

// BEGIN EXERCISE
// HINT: The kernel must cut the matrix exactly as the plan did: what does it recompute from (m, n)? And
// HINT: how many of your blocks can an SM hold at once, with the registers each thread needs?
// HINT2: Static shared memory for the block's partial sums, sized for the widest vector; a branch on
// HINT2: the vector width into a template, so that each path's loads have a width the compiler knows;
// HINT2: __launch_bounds__ so that the blocks per SM the plan counts on are resident together.
// STUB: extern "C" __global__ void colsum(const float* __restrict__ x, float* out, long long m, int n) {
// STUB: }
extern "C" __global__ void __launch_bounds__(BLOCK_THREADS, BLOCKS_PER_SM)
colsum(const float* __restrict__ x, float* out, long long m, int n) {
  __shared__ __align__(16) float red[BLOCK_THREADS * 4];
  const Tile t = tile_of(n);
  if (t.vec == 4) {
    column_tile_sums<4>(x, out, m, n, t, red);
  } else {
    column_tile_sums<1>(x, out, m, n, t, red);
  }
}
// END EXERCISE
