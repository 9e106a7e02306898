// Your exercise file. Generated from solutions/day06/fused_add_rmsnorm.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: 5614383d64642dce
// Day 6, exercise 3: fused residual add + RMSNorm, both in place (fp16 and bf16, fp32 accumulate).
//
//   x, residual: [rows, d]   weight: [d]
//   residual[r, :] = residual[r, :] + x[r, :]                                  (written back, in T)
//   x[r, :]        = residual[r, :] * rsqrt(mean(residual[r, :]^2) + eps) * weight
//
// The pre-norm step of a transformer layer, after FlashInfer's FusedAddRMSNormKernel
// (include/flashinfer/norm.cuh): one kernel reads x and residual once and writes both, where an add
// kernel followed by an RMSNorm kernel would move the residual through memory twice more.
// Same layout as rmsnorm.cu: grid = (rows,), block = (256,), and the same block reduction (yours
// again). Each thread keeps its part of the new residual in registers (in T, exactly as stored)
// between the two passes, so x is the RMSNorm of the residual that was written. Past 8192 elements
// per row (for 16-bit T), pass 2 re-reads `residual`. FlashInfer instead keeps the unrounded fp32 sum
// of the whole row in shared memory (d floats) and normalises that; the grader accepts either.
#include <course/vec_dtypes.cuh>

namespace {

constexpr int BLOCK = 256;  // threads per block (per row)
constexpr int WARP_SIZE = 32;
constexpr int NUM_WARPS = BLOCK / WARP_SIZE;
constexpr int MAX_VECS = 4;  // vectors each thread keeps in registers between the two passes
constexpr unsigned FULL_MASK = 0xffffffffu;

// The sum of `v` over the block's 256 threads, returned to EVERY thread (as in rmsnorm.cu). `smem`
// holds NUM_WARPS floats; every thread of the block must call it.
COURSE_INLINE float row_sum(float v, float* smem) {
  // TODO: your code here.
  //   Hint: the same two-level reduction as rmsnorm.cu's row_sum: warp butterfly, shared memory, butterfly.
  return v;  // this thread's own value only: wrong
}

template <typename T, int VEC>
__device__ void fused_add_rmsnorm_row(T* __restrict__ x, T* __restrict__ residual,
                                      const T* __restrict__ weight, int d, float eps, float* smem) {
  const int tid = threadIdx.x;
  // This thread's part of x, of the new residual (in T, exactly as stored) and of the weight.
  course::vec_t<T, VEC> a[MAX_VECS], v[MAX_VECS], w[MAX_VECS];
  float sum_sq = 0.f;
  // TODO: your code here.
  //   Hint: pass 1, indexed as in rmsnorm.cu: add x and residual in float, round the sum to T, store it
  //   Hint: into residual and keep it in v[k]; add the squares of the ROUNDED values to sum_sq (the norm
  //   Hint: is that of the stored residual). Then the scale, with the block reduction, as in rmsnorm.cu.
  const float scale = 0.f;
  // TODO: your code here.
  //   Hint: pass 2: x[i + j] = residual[i + j] * scale * weight[i + j] in float, stored rounded to T, in
  //   Hint: place. Past the registers, re-read residual and weight: this thread wrote those residual
  //   Hint: elements in pass 1, so it sees its own stores without any barrier.
}

template <typename T>
__device__ void fused_add_rmsnorm(T* __restrict__ x, T* __restrict__ residual,
                                  const T* __restrict__ weight, int d, float eps) {
  __shared__ float smem[NUM_WARPS];
  // TODO: your code here.
  //   Hint: block b works on row b: move x and residual to its first element (64-bit offsets).
  //   Hint: pick the widest vector that divides d (FlashInfer: gcd(16 / sizeof(T), d)): 8 halves when
  //   Hint: d % 8 == 0, else 4, else 2, else 1, so every row start stays aligned for its access width;
  //   Hint: then run the row with that VEC. d is the same for the whole block: all threads take the
  //   Hint: same branch, so the barriers inside stay uniform.
}

}  // namespace

extern "C" __global__ void __launch_bounds__(BLOCK)
fused_add_rmsnorm_f16(half* x, half* residual, const half* weight, int d, float eps) {
  fused_add_rmsnorm(x, residual, weight, d, eps);
}
extern "C" __global__ void __launch_bounds__(BLOCK)
fused_add_rmsnorm_bf16(__nv_bfloat16* x, __nv_bfloat16* residual, const __nv_bfloat16* weight, int d,
                       float eps) {
  fused_add_rmsnorm(x, residual, weight, d, eps);
}
