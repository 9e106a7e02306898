// Day 2, exercise 3: per-row symmetric int8 quantisation and back, 16 bytes per access.
//
//   x, out: [rows, d] fp16    q: [rows, d] int8    scales: [rows] fp32
//   quantize_int8:   scale = max_i |x[r, i]| / 127;  q[r, i] = x[r, i] / scale rounded to the nearest
//                    integer (ties to even), saturated to [-127, 127];  a row of zeros: scale 0, q 0
//   dequantize_int8: out[r, i] = q[r, i] * scales[r], rounded to fp16
//
// The layout of FlashInfer's vec_t extended to int8 (course/vec_dtypes.cuh): one vec_t<int8_t, 16>
// is 16 quantised values in one 16-byte access, and the same 16 values as fp16 are two vec_t<half, 8>.
// One block of BLOCK threads per row: grid = (rows,), block = (BLOCK,). When d % 16 == 0 every row
// starts 16-byte aligned in x, q and out; other d fall back to one element per thread per step.
#include <course/vec_dtypes.cuh>

namespace {

constexpr int BLOCK = 128;  // threads per block (per row)
constexpr int VEC = 16;     // int8 values per 16-byte access

// Given: the maximum of every thread's v, returned to all threads of the block. A butterfly in each
// warp (day 3), then the warps' results through shared memory (day 6 builds block reductions).
__device__ float block_max(float v) {
  __shared__ float warp_max[BLOCK / 32];
  for (int mask = 16; mask >= 1; mask /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, mask));
  if (threadIdx.x % 32 == 0) warp_max[threadIdx.x / 32] = v;
  __syncthreads();
  v = warp_max[0];
  for (int w = 1; w < BLOCK / 32; ++w) v = fmaxf(v, warp_max[w]);
  return v;
}

COURSE_INLINE int8_t quantize(float x, float inv_scale) {
  // BEGIN EXERCISE
  // HINT: x * inv_scale rounded to the NEAREST integer (a cast truncates towards zero), then clamped.
  // HINT2: __float2int_rn (cvt.rni: round to nearest, ties to even) gives an int; min/max clamp it to
  // HINT2: [-127, 127] (symmetric: -128 is never used) before the cast to int8_t.
  // HINT3: return static_cast<int8_t>(max(-127, min(127, __float2int_rn(x * inv_scale))));
  // STUB: return 0;
  const int r = __float2int_rn(x * inv_scale);
  return static_cast<int8_t>(max(-127, min(127, r)));
  // END EXERCISE
}

}  // namespace

extern "C" __global__ void quantize_int8(int8_t* __restrict__ q, float* __restrict__ scales,
                                         const half* __restrict__ x, int d) {
  const int64_t row = blockIdx.x;
  const half* xr = x + row * d;
  int8_t* qr = q + row * d;
  // BEGIN EXERCISE
  // HINT: two passes over the row: the largest |x| (then block_max), then quantize with its scale.
  // HINT: 16 elements per step when d % VEC == 0: two 16-byte fp16 loads in, one 16-byte int8 store out.
  // HINT2: pass 1: for (i = threadIdx.x * VEC; i < d; i += BLOCK * VEC) load_as_float 8 halves at
  // HINT2: xr + i and 8 at xr + i + 8, amax = fmaxf(amax, fabsf(v)); else one element per thread per step.
  // HINT2: amax = block_max(amax); scale = amax / 127; thread 0 writes scales[row].
  // HINT2: pass 2: the same loop; course::vec_t<int8_t, VEC> o; o[k] = quantize(...); o.store(qr + i).
  // HINT3: const float inv_scale = amax > 0.f ? 127.f / amax : 0.f;  (a row of zeros: 0, not 0 / 0)
  float amax = 0.f;
  if (d % VEC == 0) {
    for (int i = threadIdx.x * VEC; i < d; i += BLOCK * VEC) {
      float lo[VEC / 2], hi[VEC / 2];
      course::load_as_float(lo, xr + i);
      course::load_as_float(hi, xr + i + VEC / 2);
#pragma unroll
      for (int k = 0; k < VEC / 2; ++k) amax = fmaxf(amax, fmaxf(fabsf(lo[k]), fabsf(hi[k])));
    }
  } else {
    for (int i = threadIdx.x; i < d; i += BLOCK) amax = fmaxf(amax, fabsf(course::to_float(xr[i])));
  }
  amax = block_max(amax);
  const float inv_scale = amax > 0.f ? 127.f / amax : 0.f;
  if (threadIdx.x == 0) scales[row] = amax / 127.f;
  if (d % VEC == 0) {
    for (int i = threadIdx.x * VEC; i < d; i += BLOCK * VEC) {
      float lo[VEC / 2], hi[VEC / 2];
      course::load_as_float(lo, xr + i);
      course::load_as_float(hi, xr + i + VEC / 2);
      course::vec_t<int8_t, VEC> o;
#pragma unroll
      for (int k = 0; k < VEC / 2; ++k) {
        o[k] = quantize(lo[k], inv_scale);
        o[k + VEC / 2] = quantize(hi[k], inv_scale);
      }
      o.store(qr + i);
    }
  } else {
    for (int i = threadIdx.x; i < d; i += BLOCK) qr[i] = quantize(course::to_float(xr[i]), inv_scale);
  }
  // END EXERCISE
}

extern "C" __global__ void dequantize_int8(half* __restrict__ out, const int8_t* __restrict__ q,
                                           const float* __restrict__ scales, int d) {
  const int64_t row = blockIdx.x;
  const int8_t* qr = q + row * d;
  half* outr = out + row * d;
  // BEGIN EXERCISE
  // HINT: the mirror of pass 2: one 16-byte int8 load, 16 products with the row's scale, two fp16 stores.
  // HINT2: const float scale = scales[row]; for (i = threadIdx.x * VEC; i < d; i += BLOCK * VEC)
  // HINT2: { course::vec_t<int8_t, VEC> v; v.load(qr + i); lo[k] = course::to_float(v[k]) * scale; ... }
  // HINT3: course::store_from_float(outr + i, lo); course::store_from_float(outr + i + VEC / 2, hi);
  const float scale = scales[row];
  if (d % VEC == 0) {
    for (int i = threadIdx.x * VEC; i < d; i += BLOCK * VEC) {
      course::vec_t<int8_t, VEC> v;
      v.load(qr + i);
      float lo[VEC / 2], hi[VEC / 2];
#pragma unroll
      for (int k = 0; k < VEC / 2; ++k) {
        lo[k] = course::to_float(v[k]) * scale;
        hi[k] = course::to_float(v[k + VEC / 2]) * scale;
      }
      course::store_from_float(outr + i, lo);
      course::store_from_float(outr + i + VEC / 2, hi);
    }
  } else {
    for (int i = threadIdx.x; i < d; i += BLOCK) outr[i] = course::from_float<half>(course::to_float(qr[i]) * scale);
  }
  // END EXERCISE
}
