// Your exercise file. Generated from solutions/day10/gemv.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: fa118f98068e2fcb
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

// TODO: your code here.
//   Hint: Which lanes read neighbouring weights, and how many rows does a warp need when K is only 64?
//   Hint: Every row needs all of x: how often may a block read it from global memory?

}  // namespace

extern "C" __global__ void gemv_plan(int n, int k, int sms, int* plan) {
  // TODO: your code here.
  //   Hint: How many rows does a block take, and when are there too few row blocks to fill the GPU?
  plan[0] = 1; plan[1] = 1; plan[2] = 32; plan[3] = 0;
}

// TODO: your code here.
//   Hint: The kernel must cut the work exactly as the plan did: what does it recompute from (n, k)? And
//   Hint: how many of your blocks can an SM hold at once, with the registers each thread needs?
extern "C" __global__ void gemv(const half* __restrict__ w, const half* __restrict__ x, float* y, int n, int k) {
}
