// Day 5, exercise 3: softmax over the last axis, one warp per row, for fp32 and fp16.
//
//   in, out: [rows, d]      out[r, j] = exp(x[r, j] - m) / sum_k exp(x[r, k] - m),  m = max_k x[r, k]
//
// Subtracting the row's maximum changes nothing mathematically (it cancels), but it keeps every
// exponent <= 0: exp never overflows (exp(89) is already inf in float32) and the largest term is 1,
// so the sum never underflows to 0 either. Without it, logits near +-90 give inf / inf or 0 / 0 = NaN.
//
// One warp owns a row; the row's max and sum are warp reductions that you write here as butterflies
// of __shfl_xor_sync, with no shared memory and no __syncthreads. To read the row from memory
// only once, each lane keeps its part in registers as float: CACHED vectors of VEC elements, 32 per
// lane, 1024 elements per row. Longer rows work too: the part past the registers is read again in each
// later pass. Exponentials use the SFU: exp(x) = 2^(x * log2(e)) with course::math::ptx_exp2 (one
// MUFU.EX2), as FlashInfer's softmax does (exp_shifted below).
//
// VEC is 16 bytes (4 floats or 8 halves) when d is a multiple of that, so that every row start is
// aligned for 16-byte access; otherwise 1 element, and then only CACHED elements per lane stay in
// registers (a slower path for odd shapes, kept small). The grader launches block = (256,) (8 warps,
// 8 rows per block) and grid = (ceil(rows / 8),); d from 1 to 4097 (also shorter than a warp and not a
// multiple of VEC), inputs up to +-90, fp32 and fp16 within the dtype's tolerance of a float64
// reference. The SASS must show SHFL.BFLY and MUFU.EX2 and no register spills (v must stay in
// registers: index it only with compile-time constants); the course's finished reductions are refused.
// The benchmark expects 80% of the copy bandwidth.
#include <course/math.cuh>
#include <course/vec_dtypes.cuh>

namespace {

constexpr int BLOCK = 256;
constexpr int WARP_SIZE = 32;
constexpr unsigned FULL_MASK = 0xffffffffu;

// Vectors each lane keeps in registers: 32 elements per lane (1024 per row) with 16-byte vectors.
template <typename T>
constexpr int CACHED_VECS = 32 / (16 / sizeof(T));

COURSE_INLINE float exp_shifted(float x, float max) {
  return course::math::ptx_exp2((x - max) * course::math::log2e);
}

template <typename T, int VEC>
__device__ void softmax_row(T* __restrict__ out, const T* __restrict__ in, int d) {
  constexpr int CACHED = CACHED_VECS<T>;  // 8 vectors of 4 floats, or 4 vectors of 8 halves
  const int lane = threadIdx.x % WARP_SIZE;
  float v[CACHED][VEC];  // this lane's part of the row; every index a compile-time constant (registers)
  // BEGIN EXERCISE
  // HINT: Three passes over the row: its max, the sum of the shifted exponentials, the normalised output.
  // HINT: Which of them can reuse what an earlier pass left in v, and what must a lane do with the part of
  // HINT: a long row that does not fit in v?
  // HINT2: Each pass has two loops: an unrolled one over the CACHED register vectors (guarded against d),
  // HINT2: then a strided loop over the rest of the row, re-read from memory. Between the passes, a
  // HINT2: butterfly turns every lane's partial max (then sum) into the row's, in every lane. Pass 2 can
  // HINT2: leave the exponentials in v for pass 3.
  // HINT3: Vector k of a lane starts at element (k * 32 + lane) * VEC: the 32 lanes' vectors of one k are
  // HINT3: contiguous, so each load instruction of the warp reads one contiguous span. Every lane runs
  // HINT3: both butterflies, also lanes with no element of a short row: their -inf and 0 are the
  // HINT3: identities of max and +, so they change nothing.
  float m = -course::math::inf;
#pragma unroll
  for (int k = 0; k < CACHED; ++k) {
    const int i = (k * 32 + lane) * VEC;
    if (i < d) {
      course::load_as_float(v[k], in + i);
#pragma unroll
      for (int j = 0; j < VEC; ++j) m = fmaxf(m, v[k][j]);
    }
  }
  for (int i = (CACHED * 32 + lane) * VEC; i < d; i += 32 * VEC) {
    float t[VEC];
    course::load_as_float(t, in + i);
#pragma unroll
    for (int j = 0; j < VEC; ++j) m = fmaxf(m, t[j]);
  }
#pragma unroll
  for (int offset = WARP_SIZE / 2; offset > 0; offset /= 2) m = fmaxf(m, __shfl_xor_sync(FULL_MASK, m, offset));

  float s = 0.f;
#pragma unroll
  for (int k = 0; k < CACHED; ++k) {
    if ((k * 32 + lane) * VEC < d) {
#pragma unroll
      for (int j = 0; j < VEC; ++j) {
        v[k][j] = exp_shifted(v[k][j], m);
        s += v[k][j];
      }
    }
  }
  for (int i = (CACHED * 32 + lane) * VEC; i < d; i += 32 * VEC) {
    float t[VEC];
    course::load_as_float(t, in + i);
#pragma unroll
    for (int j = 0; j < VEC; ++j) s += exp_shifted(t[j], m);
  }
#pragma unroll
  for (int offset = WARP_SIZE / 2; offset > 0; offset /= 2) s += __shfl_xor_sync(FULL_MASK, s, offset);
  const float inv = 1.f / s;

#pragma unroll
  for (int k = 0; k < CACHED; ++k) {
    const int i = (k * 32 + lane) * VEC;
    if (i < d) {
#pragma unroll
      for (int j = 0; j < VEC; ++j) v[k][j] *= inv;
      course::store_from_float(out + i, v[k]);
    }
  }
  for (int i = (CACHED * 32 + lane) * VEC; i < d; i += 32 * VEC) {
    float t[VEC];
    course::load_as_float(t, in + i);
#pragma unroll
    for (int j = 0; j < VEC; ++j) t[j] = exp_shifted(t[j], m) * inv;
    course::store_from_float(out + i, t);
  }
  // END EXERCISE
}

template <typename T>
__device__ void softmax(T* __restrict__ out, const T* __restrict__ in, int rows, int d) {
  // BEGIN EXERCISE
  // HINT: Which row does each warp own, and when may the fast 16-byte path be used for it?
  // HINT2: The warp's row from the global thread id; whole warps past the last row leave; pointers to the
  // HINT2: row; then softmax_row with the 16-byte vector width when d allows it, else with width 1.
  // HINT3: The exit must be uniform across the warp: never let single lanes leave early, or the
  // HINT3: butterflies of softmax_row lose partners.
  const int64_t row = course::global_thread_id() / 32;
  if (row >= rows) return;  // a whole warp leaves together: the shuffles see all 32 lanes
  T* o = out + row * d;
  const T* x = in + row * d;
  constexpr int V = 16 / sizeof(T);  // 4 floats or 8 halves: one 16-byte access
  // d is the same for the whole warp, so all 32 lanes take the same branch.
  if (d % V == 0) {
    softmax_row<T, V>(o, x, d);
  } else {
    softmax_row<T, 1>(o, x, d);
  }
  // END EXERCISE
}

}  // namespace

extern "C" __global__ void __launch_bounds__(BLOCK)
softmax_f32(float* __restrict__ out, const float* __restrict__ in, int rows, int d) {
  softmax(out, in, rows, d);
}
extern "C" __global__ void __launch_bounds__(BLOCK)
softmax_f16(half* __restrict__ out, const half* __restrict__ in, int rows, int d) {
  softmax(out, in, rows, d);
}
