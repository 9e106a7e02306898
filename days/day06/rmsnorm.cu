// Your exercise file. Generated from solutions/day06/rmsnorm.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: 4b36ef7f1ac42d7b
// Day 6, exercise 2: RMSNorm for fp16 and bf16, accumulated in fp32.
//
//   in, out: [rows, d]   weight: [d]
//   out[r, :] = in[r, :] * rsqrt(mean(in[r, :]^2) + eps) * weight
//
// Modelled on FlashInfer's RMSNormKernel (include/flashinfer/norm.cuh). One block of 256 threads per
// row: the grader launches grid = (rows,), block = (256,). A row needs two passes (the sum of squares,
// then the scaling), and between them the block reduction (course/reduce.cuh) that every thread waits
// for. To read x from memory only once, each thread keeps its part of the row in registers, in its
// 16-bit form: up to MAX_VECS vectors of VEC elements, 256 * 4 * 8 = 8192 halves per row. Longer rows are handled too:
// the part past what the registers hold is simply read again in the second pass.
//
// VEC is the widest vector that divides d (FlashInfer: gcd(16 / sizeof(T), d)): 8 elements = one
// 16-byte access when d % 8 == 0, down to 1 element for odd d, so every row start stays aligned.
#include <course/reduce.cuh>
#include <course/vec_dtypes.cuh>

namespace {

constexpr int BLOCK = 256;  // threads per block (per row)
constexpr int NUM_WARPS = BLOCK / course::WARP_SIZE;
constexpr int MAX_VECS = 4;  // vectors each thread keeps in registers between the two passes

template <typename T, int VEC>
__device__ void rmsnorm_row(T* __restrict__ out, const T* __restrict__ x, const T* __restrict__ weight,
                            int d, float eps, float* smem) {
  const int tid = threadIdx.x;
  // This thread's part of the row and of the weight, kept as T (half the registers of float).
  course::vec_t<T, VEC> v[MAX_VECS], w[MAX_VECS];
  float sum_sq = 0.f;
  // TODO: your code here.
  //   Hint: pass 1. Vector k of this thread starts at element i = (k * BLOCK + tid) * VEC: a warp's
  //   Hint: 32 accesses are then contiguous (coalesced). For k < MAX_VECS, when i < d, load it into
  //   Hint: v[k] (v[k].load(x + i): one 16-byte load when VEC * sizeof(T) == 16) and add the squares of
  //   Hint: course::to_float(v[k][j]) to sum_sq. Unroll the k loop (#pragma unroll): v can only stay in
  //   Hint: registers when every index into it is a compile-time constant (else: local memory).
  //   Hint: Load w[k] from weight here too: its latency then hides behind the block reduction.
  //   Hint: Then, for rows longer than BLOCK * VEC * MAX_VECS, continue from i = (MAX_VECS * BLOCK + tid)
  //   Hint: * VEC in steps of BLOCK * VEC, adding squares only (those elements are re-read in pass 2).
  // Every thread gets the row's sum of squares (all threads must reach this line: it has barriers).
  const float scale = rsqrtf(course::block_reduce_sum<NUM_WARPS>(sum_sq, smem) / d + eps);
  // TODO: your code here.
  //   Hint: pass 2, the same indices as pass 1: out[i + j] = x[i + j] * scale * weight[i + j], computed
  //   Hint: in float and rounded back to T with course::store_from_float (a 16-byte store).
  //   Hint: The elements past the registers: load x and weight again (course::load_as_float), scale, store.
}

template <typename T>
__device__ void rmsnorm(T* __restrict__ out, const T* __restrict__ in, const T* __restrict__ weight,
                        int d, float eps) {
  __shared__ float smem[NUM_WARPS];
  const int64_t row = blockIdx.x;
  const T* x = in + row * d;
  T* o = out + row * d;
  constexpr int V = 16 / sizeof(T);  // 8 for fp16 and bf16
  // The whole block takes the same branch (d is uniform), so the barriers inside stay uniform too.
  if (d % V == 0) {
    rmsnorm_row<T, V>(o, x, weight, d, eps, smem);
  } else if (d % (V / 2) == 0) {
    rmsnorm_row<T, V / 2>(o, x, weight, d, eps, smem);
  } else if (d % 2 == 0) {
    rmsnorm_row<T, 2>(o, x, weight, d, eps, smem);
  } else {
    rmsnorm_row<T, 1>(o, x, weight, d, eps, smem);
  }
}

}  // namespace

extern "C" __global__ void __launch_bounds__(BLOCK)
rmsnorm_f16(half* out, const half* in, const half* weight, int d, float eps) {
  rmsnorm(out, in, weight, d, eps);
}
extern "C" __global__ void __launch_bounds__(BLOCK)
rmsnorm_bf16(__nv_bfloat16* out, const __nv_bfloat16* in, const __nv_bfloat16* weight, int d, float eps) {
  rmsnorm(out, in, weight, d, eps);
}
