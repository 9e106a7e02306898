// course/vec_dtypes.cuh: vec_t<T, N>, N elements of T moved with one wide load or store (day 2).
//
// Modelled on FlashInfer's include/flashinfer/vec_dtypes.cuh: a GPU moves memory in 32-byte sectors
// and a thread can load up to 16 bytes in one instruction (LDG.E.128). vec_t packs N elements into
// an aligned register array and loads / stores them through an integer type of the same width, so
// the compiler emits one 128-bit access instead of N narrow ones. Element types: float, half,
// __nv_bfloat16, int8_t (vec_t<int8_t, 16>: 16 quantised values in one 16-byte access) and the two
// FP8 formats of sm_89 and newer (day 10): __nv_fp8_e4m3 (4 exponent bits, 3 mantissa bits, largest
// finite 448, no infinity: weights and activations) and __nv_fp8_e5m2 (largest finite 57344: gradients).
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include "common.cuh"

namespace course {

// The unsigned type whose width is Bytes: what one load instruction of that width moves.
template <size_t Bytes> struct bits_t;
template <> struct bits_t<1> { using type = uint8_t; };
template <> struct bits_t<2> { using type = uint16_t; };
template <> struct bits_t<4> { using type = uint32_t; };
template <> struct bits_t<8> { using type = uint2; };
template <> struct bits_t<16> { using type = uint4; };

// Conversions between the course's element types and float (the type arithmetic is done in).
template <typename T> COURSE_INLINE float to_float(T x);
template <> COURSE_INLINE float to_float<float>(float x) { return x; }
template <> COURSE_INLINE float to_float<half>(half x) { return __half2float(x); }
template <> COURSE_INLINE float to_float<__nv_bfloat16>(__nv_bfloat16 x) { return __bfloat162float(x); }
template <> COURSE_INLINE float to_float<int8_t>(int8_t x) { return static_cast<float>(x); }  // exact

template <typename T> COURSE_INLINE T from_float(float x);
template <> COURSE_INLINE float from_float<float>(float x) { return x; }
template <> COURSE_INLINE half from_float<half>(float x) { return __float2half_rn(x); }
template <> COURSE_INLINE __nv_bfloat16 from_float<__nv_bfloat16>(float x) { return __float2bfloat16_rn(x); }
// int8: rounded to the nearest integer (ties to even, as the float conversions), saturated to [-128, 127].
template <> COURSE_INLINE int8_t from_float<int8_t>(float x) {
  return static_cast<int8_t>(max(-128, min(127, __float2int_rn(x))));
}
// FP8: widening is exact; narrowing rounds to nearest even and saturates to the largest finite value
// (cvt.rn.satfinite: a value past 448 becomes 448, not NaN), as the quantisers of FP8 GEMMs do.
template <> COURSE_INLINE float to_float<__nv_fp8_e4m3>(__nv_fp8_e4m3 x) { return static_cast<float>(x); }
template <> COURSE_INLINE float to_float<__nv_fp8_e5m2>(__nv_fp8_e5m2 x) { return static_cast<float>(x); }
template <> COURSE_INLINE __nv_fp8_e4m3 from_float<__nv_fp8_e4m3>(float x) { return __nv_fp8_e4m3(x); }
template <> COURSE_INLINE __nv_fp8_e5m2 from_float<__nv_fp8_e5m2>(float x) { return __nv_fp8_e5m2(x); }

template <typename T, size_t N>
struct vec_t {
  static constexpr size_t bytes = sizeof(T) * N;
  static_assert(bytes == 1 || bytes == 2 || bytes == 4 || bytes == 8 || bytes == 16,
                "vec_t must be 1, 2, 4, 8 or 16 bytes wide");
  using bits = typename bits_t<bytes>::type;

  alignas(bytes) T data[N];

  COURSE_INLINE T& operator[](size_t i) { return data[i]; }
  COURSE_INLINE const T& operator[](size_t i) const { return data[i]; }

  COURSE_INLINE void fill(T value) {
#pragma unroll
    for (size_t i = 0; i < N; ++i) data[i] = value;
  }
  // One load of `bytes` bytes. `ptr` must be aligned to `bytes`.
  COURSE_INLINE void load(const T* ptr) {
    *reinterpret_cast<bits*>(data) = *reinterpret_cast<const bits*>(ptr);
  }
  // One store of `bytes` bytes. `ptr` must be aligned to `bytes`.
  COURSE_INLINE void store(T* ptr) const {
    *reinterpret_cast<bits*>(ptr) = *reinterpret_cast<const bits*>(data);
  }
};

// N elements as float, loaded from any element type with one wide load.
template <typename T, size_t N>
COURSE_INLINE void load_as_float(float (&out)[N], const T* ptr) {
  vec_t<T, N> v;
  v.load(ptr);
#pragma unroll
  for (size_t i = 0; i < N; ++i) out[i] = to_float(v[i]);
}

// N floats rounded to T and written with one wide store.
template <typename T, size_t N>
COURSE_INLINE void store_from_float(T* ptr, const float (&in)[N]) {
  vec_t<T, N> v;
#pragma unroll
  for (size_t i = 0; i < N; ++i) v[i] = from_float<T>(in[i]);
  v.store(ptr);
}

}  // namespace course
