// Your exercise file. Generated from solutions/day06/rmsnorm.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: 93fd24b95bb4b710
// Day 6, exercise 2: RMSNorm for fp16 and bf16, accumulated in fp32, and its Gemma variant.
//
//   in, out: [rows, d]   weight: [d]
//   rmsnorm:       out[r, :] = in[r, :] * rsqrt(mean(in[r, :]^2) + eps) * weight
//   gemma_rmsnorm: out[r, :] = in[r, :] * rsqrt(mean(in[r, :]^2) + eps) * (1 + weight)
//
// After FlashInfer's RMSNormKernel (include/flashinfer/norm.cuh; Gemma's `1 + weight` is its
// weight_bias = 1). One block of 256 threads per row: the grader launches grid = (rows,),
// block = (256,). A row needs two passes (the sum of squares, then the scaling), and between them a
// block reduction that every thread waits for: you write it here (row_sum), as in block_sum.cu.
// FlashInfer reads x from global memory again in its second pass (the row is usually still in L2).
// Here each thread keeps its part of the row in registers instead, in its 16-bit form (v and w below):
// up to MAX_VECS vectors of VEC elements, 256 * 4 * 8 = 8192 halves per row. Longer rows are handled
// too: the part past what the registers hold is read again in the second pass, as FlashInfer does.
//
// VEC is the widest vector that divides d (FlashInfer: gcd(16 / sizeof(T), d)): 8 elements = one
// 16-byte access when d % 8 == 0, down to 1 element for odd d, so every row start stays aligned.
// The test: d from 1 to 16384 (odd d, d past 8192), fp16 and bf16, within a tolerance for the output
// dtype against a float64 reference; the SASS must show SHFL, BAR, LDG.E.128 and STG.E.128, no atomics
// and no register spills (the course's finished reductions and CUB are refused). The benchmark expects
// 85% of the copy bandwidth.
#include <course/vec_dtypes.cuh>

namespace {

constexpr int BLOCK = 256;  // threads per block (per row)
constexpr int WARP_SIZE = 32;
constexpr int NUM_WARPS = BLOCK / WARP_SIZE;
constexpr int MAX_VECS = 4;  // vectors each thread keeps in registers between the two passes
constexpr unsigned FULL_MASK = 0xffffffffu;

// The sum of `v` over the block's 256 threads, returned to EVERY thread. `smem` holds NUM_WARPS
// floats. It has barriers: every thread of the block must call it (never from inside `if (i < d)`).
COURSE_INLINE float row_sum(float v, float* smem) {
  // TODO: your code here.
  //   Hint: block_sum.cu's two levels, except that here every thread needs the result: how do you get it
  //   Hint: to every warp? And when is smem safe to write again after the function returns?
  return v;  // this thread's own value only: wrong
}

// The factor each element is multiplied by after the scale: weight, or 1 + weight for Gemma.
template <bool GEMMA, typename T>
COURSE_INLINE float gain(T w) {
  // TODO: your code here.
  //   Hint: Gemma stores weight - 1 (its weights are centred on 0): what factor does that give, in float?
  return 0.f;
}

template <bool GEMMA, typename T, int VEC>
__device__ void rmsnorm_row(T* __restrict__ out, const T* __restrict__ x, const T* __restrict__ weight,
                            int d, float eps, float* smem) {
  const int tid = threadIdx.x;
  // This thread's part of the row and of the weight, kept as T (half the registers of float).
  course::vec_t<T, VEC> v[MAX_VECS], w[MAX_VECS];
  float sum_sq = 0.f;
  // TODO: your code here.
  //   Hint: Pass 1 must leave this thread's part of the row (and of the weight) in v and w for pass 2,
  //   Hint: and produce the scale. Which elements does this thread own so that a warp's accesses are
  //   Hint: contiguous, and what about a row longer than the registers hold?
  const float scale = 0.f;
  // TODO: your code here.
  //   Hint: Pass 2 walks the same elements as pass 1: what is left in registers, and what must be read
  //   Hint: again?
}

template <bool GEMMA, typename T>
__device__ void rmsnorm(T* __restrict__ out, const T* __restrict__ in, const T* __restrict__ weight,
                        int d, float eps) {
  __shared__ float smem[NUM_WARPS];
  // TODO: your code here.
  //   Hint: Which row is this block's, and which vector width keeps every row start aligned for every d?
}

}  // namespace

extern "C" __global__ void __launch_bounds__(BLOCK)
rmsnorm_f16(half* out, const half* in, const half* weight, int d, float eps) {
  rmsnorm<false>(out, in, weight, d, eps);
}
extern "C" __global__ void __launch_bounds__(BLOCK)
rmsnorm_bf16(__nv_bfloat16* out, const __nv_bfloat16* in, const __nv_bfloat16* weight, int d, float eps) {
  rmsnorm<false>(out, in, weight, d, eps);
}
extern "C" __global__ void __launch_bounds__(BLOCK)
gemma_rmsnorm_f16(half* out, const half* in, const half* weight, int d, float eps) {
  rmsnorm<true>(out, in, weight, d, eps);
}
extern "C" __global__ void __launch_bounds__(BLOCK)
gemma_rmsnorm_bf16(__nv_bfloat16* out, const __nv_bfloat16* in, const __nv_bfloat16* weight, int d,
                   float eps) {
  rmsnorm<true>(out, in, weight, d, eps);
}
