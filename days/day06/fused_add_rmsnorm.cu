// Your exercise file. Generated from solutions/day06/fused_add_rmsnorm.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: 822cc3c1bf05e8d5
// Day 6, exercise 3: fused residual add + RMSNorm, both in place (fp16 and bf16, fp32 accumulate).
//
//   x, residual: [rows, d]   weight: [d]
//   residual[r, :] = residual[r, :] + x[r, :]                                  (written back, in T)
//   x[r, :]        = residual[r, :] * rsqrt(mean(residual[r, :]^2) + eps) * weight
//
// The pre-norm step of a transformer layer, as FlashInfer's FusedAddRMSNormKernel
// (include/flashinfer/norm.cuh) does it: one kernel reads x and residual once and writes both, where
// an add kernel followed by an RMSNorm kernel would move the residual through memory twice more.
// Same layout as rmsnorm.cu: grid = (rows,), block = (256,); each thread keeps its part of the new
// residual in registers (in T, exactly as stored) between the two passes, so x is the RMSNorm of the
// residual that was written. Past 8192 elements per row (for 16-bit T), pass 2 re-reads `residual`.
// (FlashInfer normalises the unrounded float sum instead; both agree within the fp16/bf16 tolerance.)
#include <course/reduce.cuh>
#include <course/vec_dtypes.cuh>

namespace {

constexpr int BLOCK = 256;  // threads per block (per row)
constexpr int NUM_WARPS = BLOCK / course::WARP_SIZE;
constexpr int MAX_VECS = 4;  // vectors each thread keeps in registers between the two passes

template <typename T, int VEC>
__device__ void fused_add_rmsnorm_row(T* __restrict__ x, T* __restrict__ residual,
                                      const T* __restrict__ weight, int d, float eps, float* smem) {
  const int tid = threadIdx.x;
  // This thread's part of x, of the new residual (in T, exactly as stored) and of the weight.
  course::vec_t<T, VEC> a[MAX_VECS], v[MAX_VECS], w[MAX_VECS];
  float sum_sq = 0.f;
  // TODO: your code here.
  //   Hint: pass 1, indexed as in rmsnorm.cu: i = (k * BLOCK + tid) * VEC for k < MAX_VECS (unrolled),
  //   Hint: then i = (MAX_VECS * BLOCK + tid) * VEC in steps of BLOCK * VEC for longer rows.
  //   Hint: Load x into a[k], residual into v[k] and weight into w[k] (vec_t::load); add x and residual
  //   Hint: in float, round the sum to T (course::from_float<T>) into v[k], store v[k] into residual, and
  //   Hint: add the squares of the rounded values to sum_sq: the norm is that of the stored residual.
  //   Hint: Issue every load before the first store: the compiler cannot move a load of x above a
  //   Hint: store to residual (for all it knows they overlap), and loads waiting one after another
  //   Hint: leave the memory system idle. So: one unrolled loop of loads, then one of add-and-store.
  // Every thread gets the row's sum of squares (all threads must reach this line: it has barriers).
  const float scale = rsqrtf(course::block_reduce_sum<NUM_WARPS>(sum_sq, smem) / d + eps);
  // TODO: your code here.
  //   Hint: pass 2: x[i + j] = residual[i + j] * scale * weight[i + j] in float, stored rounded to T, in
  //   Hint: place. Past the registers, re-read residual and weight: this thread wrote those residual
  //   Hint: elements in pass 1, so it sees its own stores without any barrier.
}

template <typename T>
__device__ void fused_add_rmsnorm(T* __restrict__ x, T* __restrict__ residual,
                                  const T* __restrict__ weight, int d, float eps) {
  __shared__ float smem[NUM_WARPS];
  const int64_t row = blockIdx.x;
  x += row * d;
  residual += row * d;
  constexpr int V = 16 / sizeof(T);  // 8 for fp16 and bf16
  // The widest vector that divides d; the whole block takes the same branch.
  if (d % V == 0) {
    fused_add_rmsnorm_row<T, V>(x, residual, weight, d, eps, smem);
  } else if (d % (V / 2) == 0) {
    fused_add_rmsnorm_row<T, V / 2>(x, residual, weight, d, eps, smem);
  } else if (d % 2 == 0) {
    fused_add_rmsnorm_row<T, 2>(x, residual, weight, d, eps, smem);
  } else {
    fused_add_rmsnorm_row<T, 1>(x, residual, weight, d, eps, smem);
  }
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
