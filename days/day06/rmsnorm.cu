// Your exercise file. Generated from solutions/day06/rmsnorm.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: 1ee47cddffd7ead2
// Day 6, exercise 2: RMSNorm for fp16 and bf16, accumulated in fp32, and its Gemma variant.
//
//   in, out: [rows, d]   weight: [d]
//   rmsnorm:       out[r, :] = in[r, :] * rsqrt(mean(in[r, :]^2) + eps) * weight
//   gemma_rmsnorm: out[r, :] = in[r, :] * rsqrt(mean(in[r, :]^2) + eps) * (1 + weight)
//
// After FlashInfer's RMSNormKernel (include/flashinfer/norm.cuh; Gemma's `1 + weight` is its
// weight_bias = 1). One block of 256 threads per row: the grader launches grid = (rows,),
// block = (256,). A row needs two passes (the sum of squares, then the scaling), and between them a
// block reduction that every thread waits for: you write it here, the two levels of block_sum.cu.
// FlashInfer reads x from global memory again in its second pass (the row is usually still in L2).
// Here each thread keeps its part of the row in registers instead, in its 16-bit form: up to
// MAX_VECS vectors of VEC elements, 256 * 4 * 8 = 8192 halves per row. Longer rows are handled too:
// the part past what the registers hold is read again in the second pass, as FlashInfer does.
//
// VEC is the widest vector that divides d (FlashInfer: gcd(16 / sizeof(T), d)): 8 elements = one
// 16-byte access when d % 8 == 0, down to 1 element for odd d, so every row start stays aligned.
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
  //   Hint: block_sum.cu's two levels (a butterfly per warp, the warp sums through shared memory, a
  //   Hint: butterfly again), except that here every thread needs the result, and a second barrier at
  //   Hint: the end makes smem safe to reuse.
  return v;  // this thread's own value only: wrong
}

// The factor each element is multiplied by after the scale: weight, or 1 + weight for Gemma.
template <bool GEMMA, typename T>
COURSE_INLINE float gain(T w) {
  // TODO: your code here.
  //   Hint: Gemma stores weight - 1 (its weights are centred on 0): the factor is 1 + weight, in float.
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
  //   Hint: pass 1: load this thread's vectors of the row (and of the weight) into v and w, and add the
  //   Hint: squares of the row's elements, in float, to sum_sq. Vector k of this thread starts at element
  //   Hint: i = (k * BLOCK + tid) * VEC: a warp's 32 accesses are then contiguous (coalesced).
  //   Hint: Then the scale: scale = 1 / sqrt(sum_sq over the whole row / d + eps), eps inside the root.
  const float scale = 0.f;
  // TODO: your code here.
  //   Hint: pass 2, the same indices as pass 1: out[i + j] = x[i + j] * scale * gain<GEMMA>(weight[i + j]),
  //   Hint: computed in float and rounded back to T with course::store_from_float (a 16-byte store).
  //   Hint: The elements past the registers: load x and weight again, scale, store.
}

template <bool GEMMA, typename T>
__device__ void rmsnorm(T* __restrict__ out, const T* __restrict__ in, const T* __restrict__ weight,
                        int d, float eps) {
  __shared__ float smem[NUM_WARPS];
  // TODO: your code here.
  //   Hint: block b normalises row b: x and o point at its first element (64-bit offsets: rows * d can pass 2^31).
  //   Hint: pick the widest vector that divides d (FlashInfer: gcd(16 / sizeof(T), d)): 8 halves when
  //   Hint: d % 8 == 0, else 4, else 2, else 1, so every row start stays aligned for its access width;
  //   Hint: then run the row with that VEC. d is the same for the whole block: all threads take the
  //   Hint: same branch, so the barriers inside stay uniform.
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
