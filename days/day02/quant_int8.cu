// Your exercise file. Generated from solutions/day02/quant_int8.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: 3caf32cc57affd40
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
  // TODO: your code here.
  //   Hint: What does a C++ cast from float to int do with 2.6, and with -2.6? Is that what the contract
  //   Hint: asks for?
  return 0;
}

}  // namespace

extern "C" __global__ void quantize_int8(int8_t* __restrict__ q, float* __restrict__ scales,
                                         const half* __restrict__ x, int d) {
  const int64_t row = blockIdx.x;
  const half* xr = x + row * d;
  int8_t* qr = q + row * d;
  // TODO: your code here.
  //   Hint: The scale depends on the whole row, and every element's quantised value depends on the scale:
  //   Hint: how many times must the block read the row, and what must all threads agree on in between?
}

extern "C" __global__ void dequantize_int8(half* __restrict__ out, const int8_t* __restrict__ q,
                                           const float* __restrict__ scales, int d) {
  const int64_t row = blockIdx.x;
  const int8_t* qr = q + row * d;
  half* outr = out + row * d;
  // TODO: your code here.
  //   Hint: The mirror image of quantize_int8's second pass: which access is now the 16-byte int8 one,
  //   Hint: and which ones are fp16?
}
