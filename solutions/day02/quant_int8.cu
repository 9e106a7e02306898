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
// The test: d from 1 to 8192 (also odd d and a row of zeros); scales within 2^-22 relative, every q
// exact (except an input that sits on a rounding tie within float error), out within fp16 tolerance;
// the technique check requires 16-byte loads and stores (LDG.E.128, STG.E.128) in both kernels.
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
  // HINT: What does a C++ cast from float to int do with 2.6, and with -2.6? Is that what the contract
  // HINT: asks for?
  // HINT2: Two steps: round the scaled value to an int with the rounding the contract names, then keep it
  // HINT2: inside the symmetric range before narrowing to int8_t.
  // HINT3: CUDA has a float-to-int conversion for every rounding mode (__float2int_rn, _rz, _ru, _rd);
  // HINT3: rn is to nearest, ties to even, as numpy's rint. Clamp before the cast: narrowing 200 to
  // HINT3: int8_t wraps to -56 instead of saturating.
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
  // HINT: The scale depends on the whole row, and every element's quantised value depends on the scale:
  // HINT: how many times must the block read the row, and what must all threads agree on in between?
  // HINT2: Pass 1: each thread's largest |x| over its part of the row, then block_max; one thread writes
  // HINT2: the row's scale. Pass 2: the same walk over the row, quantize, store. Both passes have a
  // HINT2: 16-elements-per-step path (d % VEC == 0) and a one-element fallback.
  // HINT3: Divide once: use the reciprocal of the scale in quantize, and give a row of zeros 0 for it
  // HINT3: (0 / 0 would make every q NaN). In the vector path 16 halves are two 16-byte loads (the second
  // HINT3: 8 elements further on), and the 16 int8 results go out as one vec_t<int8_t, VEC> store.
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
  // HINT: The mirror image of quantize_int8's second pass: which access is now the 16-byte int8 one,
  // HINT: and which ones are fp16?
  // HINT2: Read the row's scale once; walk the row as pass 2 does (vector path and fallback); each step:
  // HINT2: one int8 load, the products in float, the fp16 stores.
  // HINT3: 16 int8 values become 16 halves, 32 bytes: two 16-byte stores, the second half of the products
  // HINT3: 8 elements after the first. The fallback converts one int8 through float to half.
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
