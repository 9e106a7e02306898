// Day 6, exercise 1: the sum of a whole float32 array, in two launches of one kernel.
//
//   launch 1: grid = (min(ceil(n / 256), 1024),), block = (256,):  partial[b] = sum of block b's slice
//   launch 2: grid = (1,),                        block = (256,):  out[0]     = sum of the partials
//
// Block b's slice: the elements a grid-stride loop gives its threads (day 1). Each block combines its
// 256 threads' values in two levels that you write yourself: register exchanges inside each warp
// (warp_sum), then the warps' results through shared memory (block_sum_of). The second launch runs the
// same kernel over the partials. No atomics and no CUB (the technique check wants SHFL, BAR, STS and LDS
// and refuses atomics, CUB and course/reduce.cuh): this is the reduction those are built from (day 8
// compares it with cub::BlockReduce). n from 1 to 2^24 + 3; integer inputs must sum exactly, normal
// floats within a bound on float32 rounding of the summation tree.
#include <course/common.cuh>

namespace {

constexpr int BLOCK = 256;                         // the grader launches exactly this many threads
constexpr int WARP_SIZE = 32;
constexpr int NUM_WARPS = BLOCK / WARP_SIZE;
constexpr unsigned FULL_MASK = 0xffffffffu;        // all 32 lanes take part in every shuffle

// Level 1: the sum of `v` over the 32 lanes of a warp, returned to EVERY lane.
COURSE_INLINE float warp_sum(float v) {
  // BEGIN EXERCISE
  // HINT: Day 3's butterfly, now with __shfl_xor_sync: after how many exchange-and-add steps does every
  // HINT: lane hold the sum of all 32?
  // HINT2: One unrolled loop of five steps, the partner distance halving from 16; each step adds the
  // HINT2: partner lane's value.
  // HINT3: Every lane must execute every shuffle (FULL_MASK names all 32); after the step with distance o,
  // HINT3: each lane holds the sum of the 32 / o lanes that share its upper bits.
  // STUB: return v;  // this thread's own value only: wrong
#pragma unroll
  for (int offset = WARP_SIZE / 2; offset > 0; offset /= 2) v += __shfl_xor_sync(FULL_MASK, v, offset);
  return v;
  // END EXERCISE
}

// Level 2: the sum of `v` over the block, valid in thread 0 (or in every thread, if you like).
COURSE_INLINE float block_sum_of(float v, float* smem) {
  // BEGIN EXERCISE
  // HINT: Each warp can sum its own 32 values. Where do the 8 warp sums meet, and which warp adds them up
  // HINT: (with which function)?
  // HINT2: Level 1: warp_sum; one lane per warp writes its warp's sum to shared memory. A barrier that every
  // HINT2: thread reaches. Level 2: a warp reads the 8 sums and reduces them with warp_sum again.
  // HINT3: In level 2 all 32 lanes must take part in the shuffles although there are only 8 sums: lanes
  // HINT3: beyond NUM_WARPS bring 0. If every warp does level 2, every thread gets the result without a
  // HINT3: second barrier.
  // STUB: return v;  // this thread's own value only: wrong
  const int lane = threadIdx.x % WARP_SIZE, warp = threadIdx.x / WARP_SIZE;
  v = warp_sum(v);
  if (lane == 0) smem[warp] = v;
  __syncthreads();
  v = lane < NUM_WARPS ? smem[lane] : 0.f;
  return warp_sum(v);  // every warp does it: no second barrier or broadcast needed
  // END EXERCISE
}

}  // namespace

extern "C" __global__ void __launch_bounds__(BLOCK)
block_sum(const float* __restrict__ in, float* __restrict__ out, int64_t n) {
  __shared__ float smem[NUM_WARPS];
  // BEGIN EXERCISE
  float acc = 0.f;
  // HINT: Before any cooperation, each thread sums its own elements in a register. Which elements, when
  // HINT: the grid may be much smaller than n?
  // HINT2: A grid-stride loop over the input (64-bit index) adding into acc. A thread with no element
  // HINT2: keeps 0 and still goes on to the block reduction.
  for (int64_t i = course::global_thread_id(); i < n; i += course::grid_threads()) acc += in[i];
  // END EXERCISE
  // BEGIN EXERCISE
  // HINT: Who must call block_sum_of (it holds a barrier), and who writes the block's result where?
  const float total = block_sum_of(acc, smem);
  if (threadIdx.x == 0) out[blockIdx.x] = total;
  // END EXERCISE
}
