// Day 6, exercise 1: the sum of a whole float32 array, in two launches of one kernel.
//
//   launch 1: grid = (min(ceil(n / 256), 1024),), block = (256,):  partial[b] = sum of block b's slice
//   launch 2: grid = (1,),                        block = (256,):  out[0]     = sum of the partials
//
// Each thread first adds up its own grid-stride slice in a register; then the block combines its
// 256 values in two levels: a warp butterfly (course::warp_reduce_sum, 5 shuffles) and, across the
// 8 warps, shared memory. Thread 0 writes the block's result. The second launch runs the same kernel
// over the partials. (course/reduce.cuh holds the finished block_reduce_sum that later kernels use:
// write your own here first, then compare.)
#include <course/reduce.cuh>

namespace {

constexpr int BLOCK = 256;                         // the grader launches exactly this many threads
constexpr int NUM_WARPS = BLOCK / course::WARP_SIZE;

// The sum of `v` over the block, valid in thread 0 (or in every thread, if you like).
COURSE_INLINE float block_sum_of(float v, float* smem) {
  // BEGIN EXERCISE
  // HINT: level 1: v = course::warp_reduce_sum(v) gives every lane its warp's sum.
  // HINT: level 2: lane 0 of warp w stores it in smem[w]; __syncthreads(); then warp 0 loads
  // HINT: smem[lane] for lane < NUM_WARPS (0 for the other lanes) and reduces once more.
  // HINT: the block's last warp is always full here (BLOCK is a multiple of 32), so all 32 lanes
  // HINT: take part in every shuffle, as the full mask 0xffffffff requires.
  // STUB: return v;
  const int lane = threadIdx.x % course::WARP_SIZE, warp = threadIdx.x / course::WARP_SIZE;
  v = course::warp_reduce_sum(v);
  if (lane == 0) smem[warp] = v;
  __syncthreads();
  v = lane < NUM_WARPS ? smem[lane] : 0.f;
  return course::warp_reduce_sum(v);  // every warp does it: no second barrier or broadcast needed
  // END EXERCISE
}

}  // namespace

extern "C" __global__ void __launch_bounds__(BLOCK)
block_sum(const float* __restrict__ in, float* __restrict__ out, int64_t n) {
  __shared__ float smem[NUM_WARPS];
  float acc = 0.f;
  // BEGIN EXERCISE
  // HINT: a grid-stride loop: i = course::global_thread_id(); i < n; i += course::grid_threads(),
  // HINT: adding in[i] to acc. Threads past n keep acc = 0 but must still reach the block reduction.
  for (int64_t i = course::global_thread_id(); i < n; i += course::grid_threads()) acc += in[i];
  // END EXERCISE
  const float total = block_sum_of(acc, smem);
  if (threadIdx.x == 0) out[blockIdx.x] = total;
}
