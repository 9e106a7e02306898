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
  // BEGIN EXERCISE
  // HINT: block_sum.cu's two levels, except that here every thread needs the result: how do you get it
  // HINT: to every warp? And when is smem safe to write again after the function returns?
  // HINT2: A butterfly per warp; one lane per warp writes to shared memory; a barrier; every warp reads
  // HINT2: the warp sums (0 past NUM_WARPS) and runs the same butterfly, so every lane of every warp holds
  // HINT2: the block's sum; a second barrier before returning.
  // HINT3: The last barrier keeps a fast warp from leaving and writing smem again (in a later reduction)
  // HINT3: while a slow warp still reads it; here it costs little and saves a subtle race.
  // STUB: return v;  // this thread's own value only: wrong
  const int lane = threadIdx.x % WARP_SIZE, warp = threadIdx.x / WARP_SIZE;
#pragma unroll
  for (int offset = WARP_SIZE / 2; offset > 0; offset /= 2) v += __shfl_xor_sync(FULL_MASK, v, offset);
  if (lane == 0) smem[warp] = v;
  __syncthreads();
  v = lane < NUM_WARPS ? smem[lane] : 0.f;
#pragma unroll
  for (int offset = WARP_SIZE / 2; offset > 0; offset /= 2) v += __shfl_xor_sync(FULL_MASK, v, offset);
  __syncthreads();
  return v;
  // END EXERCISE
}

// The factor each element is multiplied by after the scale: weight, or 1 + weight for Gemma.
template <bool GEMMA, typename T>
COURSE_INLINE float gain(T w) {
  // BEGIN EXERCISE
  // HINT: Gemma stores weight - 1 (its weights are centred on 0): what factor does that give, in float?
  // HINT3: GEMMA is a compile-time constant: a conditional on it costs nothing at run time.
  // STUB: return 0.f;
  return GEMMA ? 1.f + course::to_float(w) : course::to_float(w);
  // END EXERCISE
}

template <bool GEMMA, typename T, int VEC>
__device__ void rmsnorm_row(T* __restrict__ out, const T* __restrict__ x, const T* __restrict__ weight,
                            int d, float eps, float* smem) {
  const int tid = threadIdx.x;
  // This thread's part of the row and of the weight, kept as T (half the registers of float).
  course::vec_t<T, VEC> v[MAX_VECS], w[MAX_VECS];
  float sum_sq = 0.f;
  // BEGIN EXERCISE
  // HINT: Pass 1 must leave this thread's part of the row (and of the weight) in v and w for pass 2,
  // HINT: and produce the scale. Which elements does this thread own so that a warp's accesses are
  // HINT: contiguous, and what about a row longer than the registers hold?
  // HINT2: An unrolled loop over the MAX_VECS register vectors (guarded against d): load the row and the
  // HINT2: weight, add the squares in float. Then a loop over the rest of a long row, squares only
  // HINT2: (those elements are read again in pass 2). Then the scale from the block-wide sum, reached
  // HINT2: by every thread.
  // HINT3: Vector k of a thread starts at element (k * BLOCK + tid) * VEC, so a warp's 32 accesses are
  // HINT3: contiguous. The k loop must be unrolled: v stays in registers only when every index into it is
  // HINT3: a compile-time constant (else it goes to local memory, and the no-spills check fails). row_sum
  // HINT3: has barriers: call it after the loops, never inside the guard on d. eps goes inside the root.
  // STUB: const float scale = 0.f;
#pragma unroll
  for (int k = 0; k < MAX_VECS; ++k) {
    const int i = (k * BLOCK + tid) * VEC;
    if (i < d) {
      v[k].load(x + i);
      w[k].load(weight + i);
#pragma unroll
      for (int j = 0; j < VEC; ++j) sum_sq += course::to_float(v[k][j]) * course::to_float(v[k][j]);
    }
  }
#pragma unroll 1  // a rare path: keep it small
  for (int i = (MAX_VECS * BLOCK + tid) * VEC; i < d; i += BLOCK * VEC) {
    float t[VEC];
    course::load_as_float(t, x + i);
#pragma unroll
    for (int j = 0; j < VEC; ++j) sum_sq += t[j] * t[j];
  }
  const float scale = rsqrtf(row_sum(sum_sq, smem) / d + eps);
  // END EXERCISE
  // BEGIN EXERCISE
  // HINT: Pass 2 walks the same elements as pass 1: what is left in registers, and what must be read
  // HINT: again?
  // HINT2: The register vectors first: each element times the scale times its gain, in float, stored
  // HINT2: rounded to T (one wide store per vector). Then the tail of a long row: the row and the weight
  // HINT2: loaded again, scaled, stored.
  // HINT3: gain<GEMMA>() takes the weight in T: load the tail's weight as a vec_t of T, not as floats.
#pragma unroll
  for (int k = 0; k < MAX_VECS; ++k) {
    const int i = (k * BLOCK + tid) * VEC;
    if (i < d) {
      float y[VEC];
#pragma unroll
      for (int j = 0; j < VEC; ++j) y[j] = course::to_float(v[k][j]) * scale * gain<GEMMA>(w[k][j]);
      course::store_from_float(out + i, y);
    }
  }
#pragma unroll 1  // a rare path: keep it small
  for (int i = (MAX_VECS * BLOCK + tid) * VEC; i < d; i += BLOCK * VEC) {
    float t[VEC];
    course::vec_t<T, VEC> wt;
    course::load_as_float(t, x + i);
    wt.load(weight + i);
#pragma unroll
    for (int j = 0; j < VEC; ++j) t[j] = t[j] * scale * gain<GEMMA>(wt[j]);
    course::store_from_float(out + i, t);
  }
  // END EXERCISE
}

template <bool GEMMA, typename T>
__device__ void rmsnorm(T* __restrict__ out, const T* __restrict__ in, const T* __restrict__ weight,
                        int d, float eps) {
  __shared__ float smem[NUM_WARPS];
  // BEGIN EXERCISE
  // HINT: Which row is this block's, and which vector width keeps every row start aligned for every d?
  // HINT2: Pointers to the block's row (64-bit offsets); then a chain of tests on d from the widest
  // HINT2: vector (16 bytes) down to 1 element, each calling the row function with that width.
  // HINT3: d is the same for the whole block, so all threads take the same branch and the barriers
  // HINT3: inside the row function stay uniform.
  const int64_t row = blockIdx.x;
  const T* x = in + row * d;
  T* o = out + row * d;
  constexpr int V = 16 / sizeof(T);  // 8 for fp16 and bf16
  // The whole block takes the same branch (d is uniform), so the barriers inside stay uniform too.
  if (d % V == 0) {
    rmsnorm_row<GEMMA, T, V>(o, x, weight, d, eps, smem);
  } else if (d % (V / 2) == 0) {
    rmsnorm_row<GEMMA, T, V / 2>(o, x, weight, d, eps, smem);
  } else if (d % 2 == 0) {
    rmsnorm_row<GEMMA, T, 2>(o, x, weight, d, eps, smem);
  } else {
    rmsnorm_row<GEMMA, T, 1>(o, x, weight, d, eps, smem);
  }
  // END EXERCISE
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
