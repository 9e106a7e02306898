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
  // BEGIN EXERCISE
  // HINT: block_sum.cu's two levels (a butterfly per warp, the warp sums through shared memory, a
  // HINT: butterfly again), except that here every thread needs the result, and a second barrier at
  // HINT: the end makes smem safe to reuse.
  // HINT2: lane, warp from threadIdx.x; for offset = 16 .. 1: v += __shfl_xor_sync(FULL_MASK, v, offset);
  // HINT2: lane 0 stores smem[warp]; __syncthreads(); v = smem[lane] (lanes < NUM_WARPS, else 0); the
  // HINT2: same butterfly: after it EVERY lane of EVERY warp holds the block's sum; __syncthreads(); return v.
  // HINT3: the last __syncthreads() keeps a fast warp from leaving and writing smem again (in a later
  // HINT3: reduction) while a slow warp still reads it; here it costs little and saves a subtle race.
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
  // HINT: Gemma stores weight - 1 (its weights are centred on 0): the factor is 1 + weight, in float.
  // HINT3: GEMMA is a compile-time constant: `GEMMA ? a : b` costs nothing at run time.
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
  // HINT: pass 1: load this thread's vectors of the row (and of the weight) into v and w, and add the
  // HINT: squares of the row's elements, in float, to sum_sq. Vector k of this thread starts at element
  // HINT: i = (k * BLOCK + tid) * VEC: a warp's 32 accesses are then contiguous (coalesced).
  // HINT2: for k < MAX_VECS, when i < d: v[k].load(x + i) (one 16-byte load when VEC * sizeof(T) == 16),
  // HINT2: w[k].load(weight + i) (its latency hides behind the block reduction), and sum_sq +=
  // HINT2: course::to_float(v[k][j]) squared for j < VEC. Then, for rows longer than BLOCK * VEC * MAX_VECS,
  // HINT2: continue from i = (MAX_VECS * BLOCK + tid) * VEC in steps of BLOCK * VEC, adding squares only
  // HINT2: (course::load_as_float into a float t[VEC]; those elements are read again in pass 2).
  // HINT: Then the scale: scale = 1 / sqrt(sum_sq over the whole row / d + eps), eps inside the root.
  // HINT3: #pragma unroll on the k loop: v can only stay in registers when every index into it is a
  // HINT3: compile-time constant (else it goes to local memory, and the technique check fails: no spills).
  // HINT3: const float scale = rsqrtf(row_sum(sum_sq, smem) / d + eps);  EVERY thread must reach row_sum
  // HINT3: (it has barriers), so call it after the loops, never inside `if (i < d)`.
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
  // HINT: pass 2, the same indices as pass 1: out[i + j] = x[i + j] * scale * gain<GEMMA>(weight[i + j]),
  // HINT: computed in float and rounded back to T with course::store_from_float (a 16-byte store).
  // HINT: The elements past the registers: load x and weight again, scale, store.
  // HINT2: for k < MAX_VECS (unrolled), when i < d: float y[VEC]; y[j] = to_float(v[k][j]) * scale *
  // HINT2: gain<GEMMA>(w[k][j]); store_from_float(out + i, y). Then the same loop as pass 1's tail, with
  // HINT2: x[i..i+VEC) loaded again (course::load_as_float) and weight loaded as T (vec_t::load) for gain.
  // HINT3: gain<GEMMA>() takes the weight in T: load the tail's weight with course::vec_t<T, VEC>::load.
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
  // HINT: block b normalises row b: x and o point at its first element (64-bit offsets: rows * d can pass 2^31).
  const int64_t row = blockIdx.x;
  const T* x = in + row * d;
  T* o = out + row * d;
  // HINT: pick the widest vector that divides d (FlashInfer: gcd(16 / sizeof(T), d)): 8 halves when
  // HINT: d % 8 == 0, else 4, else 2, else 1, so every row start stays aligned for its access width;
  // HINT: then run the row with that VEC. d is the same for the whole block: all threads take the
  // HINT: same branch, so the barriers inside stay uniform.
  // HINT2: constexpr int V = 16 / sizeof(T); if (d % V == 0) {...<V>} else if (d % (V / 2) == 0) {...<V / 2>}
  // HINT2: else if (d % 2 == 0) {...<2>} else {...<1>}: four instantiations of the row function.
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
