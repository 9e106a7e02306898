// Your exercise file. Generated from solutions/day11/decode_attention.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: 66d7945ec5bdb7f6
// Day 11, exercise 4: decode attention over a contiguous KV cache (GQA).
//
//   q: [batch, num_qo_heads, D]   k, v: [batch, kv_len, num_kv_heads, D] (NHD) or
//   [batch, num_kv_heads, kv_len, D] (HND)   o: like q
//   o[b, h] = softmax(q[b, h] . k[b, :, h / group] * sm_scale) @ v[b, :, h / group]
//   group = num_qo_heads / num_kv_heads (GQA: `group` query heads share one KV head)
//
// Like FlashInfer's, the kernel is a template: q and o half or __nv_bfloat16, K and V the same or
// FP8 (__nv_fp8_e4m3, q and o half) with per-tensor scales k_scale and v_scale (the cache holds
// k / k_scale: o = softmax((q . k_scale k) * sm_scale) @ (v_scale v)), D = HEAD_DIM 64, 128 or 256,
// layout NHD or HND. The grader compiles the file once per configuration (the end of the file says
// how): write your code for any of them, the types, HEAD_DIM and LAYOUT are template parameters.
//
// Modelled on FlashInfer's single/batch decode kernels (include/flashinfer/attention/decode.cuh).
// One block of 256 threads per (request, G query heads of one KV head): the grader launches
// decode_attention_g<G> with grid = (num_qo_heads / G, batch), block = (256,), G the largest of
// 8, 4, 2, 1 that divides `group` (no 8 at d256). The block reads its KV head's rows once for all G
// heads.
//
// Exercise 3's warp, grown to a block (course/attention/decode.cuh's decode_traits): LANES = D / 8
// lanes share a KV row (16 at d128), lane tx owning dims [8 tx, 8 tx + 8) (one 16-byte load; 8 bytes
// of fp8); the block's GROUPS = 256 / LANES lane groups ("token groups", ty) take one token each per
// step. YOUR main loop streams the K and V rows through a cp.async pipeline in shared memory and
// calls YOUR update() for every token; each token group keeps an online-softmax state (m, d, o) per head
// (course/attention/state.cuh: state_t, the course's copy of exercise 2's state), and YOUR
// merge_and_store combines all token groups' states of a head into its output at the end.
// scale_log2 = sm_scale * log2(e): scores are kept in base 2, so exp is one ex2.approx.
// The test: o at fp16's tolerance (head by head too) for every configuration (dtypes, fp8 cache, D,
// NHD / HND, G), kv_len from 1; the technique: LDGSTS (cp.async), SHFL.BFLY and MUFU.EX2 in the SASS,
// no spills. Exercise 5 (decode_paged.cu) starts from your update(), main loop and merge.
// An fp8 cache takes its own path (decode_attention_fp8, after decode_attention; optional): each warp
// streams tiles of 8 tokens and computes their scores and P.V with mma.sync on fp16, two bytes per
// conversion, then hands its state to the same merge_and_store.
#include <course/attention/decode.cuh>

namespace {

using namespace course::attention;
constexpr int BLOCK = 256, STAGES = 4;
constexpr int VEC = decode_traits<128, BLOCK>::VEC, WARPS = BLOCK / 32;  // VEC = 8 for every HEAD_DIM

// Fold one token into the G states of this thread: k and v are this thread's 8 dims of the token's
// K and V rows (T: half, bf16 or fp8); valid is false for a token past the end (it must not count).
// All 32 lanes of the warp call this together, the LANES lanes of a token group with the same token.
template <int G, int LANES, typename T>
__device__ void update(state_t<VEC> (&st)[G], const float (&q)[G][VEC], const course::vec_t<T, VEC>& k,
                       const course::vec_t<T, VEC>& v, bool valid) {
  // TODO: your code here.
  //   Hint: This is exercise 3's per-token step for G query heads at once. What can the G heads share (that is
  //   Hint: GQA's saving), and which instructions must every lane execute whether or not its token exists?
}

// Merge the states of the block's token groups into one per head, normalise it, times v_scale (the
// fp8 cache's V scale; 1 otherwise), and store head g's HEAD_DIM outputs at o_heads + g * HEAD_DIM
// (T: half or bf16). smem: WARPS * G * (HEAD_DIM + 2) floats, which may be the pipeline's ring (all
// threads must be done with it). Every thread of the block calls this.
template <int G, int HEAD_DIM, typename T>
__device__ void merge_and_store(state_t<VEC> (&st)[G], float* smem, T* __restrict__ o_heads, float v_scale) {
  constexpr int LANES = HEAD_DIM / VEC;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, tx = lane % LANES;
  float* smem_o = smem;                           // [WARPS][G][HEAD_DIM]
  float* smem_md = smem + WARPS * G * HEAD_DIM;   // [WARPS][G][2]: m, d
  // TODO: your code here.
  //   Hint: Three levels of merging, from the cheapest: token groups of the same warp own the same dims; warps
  //   Hint: do not share registers; the last merge needs one thread per (head, 8-dim chunk). Which mechanism
  //   Hint: carries states at each level? The output is normalised and multiplied by v_scale.
}

template <int G, typename DTypeQ, typename DTypeKV, int HEAD_DIM, KVLayout LAYOUT>
__device__ void decode_attention(const DTypeQ* __restrict__ q, const DTypeKV* __restrict__ k,
                                 const DTypeKV* __restrict__ v, DTypeQ* __restrict__ o, int kv_len,
                                 int num_qo_heads, int num_kv_heads, float qk_scale, float v_scale) {
  using traits = decode_traits<HEAD_DIM, BLOCK>;
  constexpr int LANES = traits::LANES, GROUPS = traits::GROUPS;  // 16 lanes a row, 16 tokens a step at d128
  __shared__ __align__(16) unsigned char smem[decode_smem_bytes<G, HEAD_DIM, BLOCK, STAGES>()];
  const int b = blockIdx.y, head0 = blockIdx.x * G;  // this block's request and first query head
  const int kv_head = head0 / (num_qo_heads / num_kv_heads);
  const int tx = threadIdx.x % LANES, ty = threadIdx.x / LANES;
  const int64_t qo_offset = (static_cast<int64_t>(b) * num_qo_heads + head0) * HEAD_DIM;

  float qr[G][VEC];  // this thread's 8 dims of each of the G query heads, times qk_scale
  load_query<G, VEC>(qr, q + qo_offset, HEAD_DIM, tx, qk_scale);
  state_t<VEC> st[G];
  for (auto& s : st) s.init();  // empty states: m = -inf, d = 0, o = 0

  // Token t's K row (and V row) of this KV head, this thread's dims: k + kv_base + t * row_stride.
  // TODO: your code here.
  //   Hint: Where does token t of this request's KV head start in each layout? Which of the two offsets changes
  //   Hint: with t, and which type keeps a cache of more than 2^31 elements addressable?
  int64_t row_stride = 0, kv_base = 0;
  DTypeKV* ring = reinterpret_cast<DTypeKV*>(smem);  // [STAGES][2 (K, V)][BLOCK][VEC] elements
  // TODO: your code here.
  //   Hint: The loads of a token's K and V take a DRAM latency; the thread needs them one step later. How can
  //   Hint: a thread keep several steps of copies in flight without holding them in registers, and why does
  //   Hint: it need no __syncthreads to read them back? The technique: LDGSTS (cp.async), SHFL.BFLY, MUFU.EX2.

  // Merge the token groups' states, normalise, and store each head's HEAD_DIM outputs (8 a thread).
  merge_and_store<G, HEAD_DIM>(st, reinterpret_cast<float*>(smem), o + qo_offset, v_scale);
}

// ---- The fp8 cache on the tensor cores ------------------------------------------------------------
// With fp8 K and V a thread of the path above converts byte by byte and spends its G * 16 FMAs a
// token on CUDA cores: ~17 instructions per KV byte, twice fp16's per byte, so the halved bytes
// buy no speed (the kernel is issue-bound). Here each WARP takes tiles of TILE = 8 tokens and does a
// tile's G x 8 scores and its P.V as mma.sync on fp16 (an e4m3 value is exact in fp16):
//   scores  S [16 x 8]  = Q [16 x HEAD_DIM] . K^T      m16n8k16, rows = heads (G used), cols = tokens
//   output  O^T [16 x 8] += V^T [16 x 8] . P^T [8 x 8]  m16n8k8, rows = dims, cols = heads
// S's accumulator layout (lane: head g = lane / 4, tokens 2t, 2t + 1 with t = lane % 4) is exactly
// the B operand P^T of the second mma, so the probabilities never leave their registers. Two bytes
// become an f16x2 in one cvt.rn.f16x2.e4m3x2 (SASS F2FP). The order of the dims inside a dot
// product is free, so every lane reads whole 16-byte chunks (see fp8_traits). The softmax rescales
// lazily: the running max m only moves when a tile's max passes it by more than RESCALE (2^8 =
// 256 fits fp16's P easily); numerator and denominator use the same stale m, so the result is exact.
// TODO: your code here.
//   Hint: (Optional.) Your update() above handles an fp8 cache too; once you have written
//   Hint: decode_attention_fp8 below, turn this on and the fp8 configurations take it instead.
constexpr bool FP8_ON_TENSOR_CORES = false;
constexpr int TILE = 8;  // tokens per warp step: one n8 tile of scores, one k8 step of P.V
template <typename T> constexpr bool is_fp8 = false;
template <> constexpr bool is_fp8<__nv_fp8_e4m3> = true;

template <int HEAD_DIM>
struct fp8_traits {
  static constexpr int CHUNKS = HEAD_DIM / 16;                    // 16-byte chunks of an fp8 row
  static constexpr int SWIZZLE = (CHUNKS < 8 ? CHUNKS : 8) - 1;   // chunk c of row r sits at c ^ (r & SWIZZLE)
  static constexpr int K_WORDS = HEAD_DIM / 16;                   // a lane's 32-bit words of a K row (D/4 bytes)
  static constexpr int V_WORDS = HEAD_DIM / 32;                   // ... of a V row (D/8 bytes)
  static constexpr int SLOT = 2 * TILE * HEAD_DIM;                // bytes of a ring slot: K tile, V tile
  static constexpr int STAGES = HEAD_DIM <= 64 ? 4 : HEAD_DIM == 128 ? 3 : 1;  // 48 KiB of ring at most
  static constexpr int COPIES = 2 * TILE * CHUNKS / 32;           // 16-byte cp.async per lane per tile
  static constexpr float RESCALE = 8.f;  // log2 units the max may grow before o and d are rescaled

  // Four e4m3 bytes -> two f16x2 registers (exact): bytes 0, 1 into lo, bytes 2, 3 into hi (the lower
  // byte in the lower half). On sm_89+ one cvt.rn.f16x2.e4m3x2 each (SASS F2FP, reading either half of
  // the word in place); before, cuda_fp8.h's conversion in software.
  static COURSE_INLINE void e4m3x4_to_f16x2(uint32_t four, uint32_t& lo, uint32_t& hi) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
    asm("{\n.reg .b16 l, h;\nmov.b32 {l, h}, %2;\ncvt.rn.f16x2.e4m3x2 %0, l;\ncvt.rn.f16x2.e4m3x2 %1, h;\n}\n"
        : "=r"(lo), "=r"(hi)
        : "r"(four));
#else
    const __half2_raw a = __nv_cvt_fp8x2_to_halfraw2(static_cast<__nv_fp8x2_storage_t>(four & 0xFFFFu), __NV_E4M3);
    const __half2_raw b = __nv_cvt_fp8x2_to_halfraw2(static_cast<__nv_fp8x2_storage_t>(four >> 16), __NV_E4M3);
    lo = static_cast<uint32_t>(a.x) | (static_cast<uint32_t>(a.y) << 16);
    hi = static_cast<uint32_t>(b.x) | (static_cast<uint32_t>(b.y) << 16);
#endif
  }
  static COURSE_INLINE uint32_t f16x2(float lo, float hi) {
    const __half2 h = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<const uint32_t*>(&h);
  }
  // c += a . b on the tensor cores, fp16 in, fp32 accumulate (fragments: course/mma.cuh's comment).
  static COURSE_INLINE void mma_16x8x16(float (&c)[4], uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3,
                                        uint32_t b0, uint32_t b1) {
    asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
  }
  static COURSE_INLINE void mma_16x8x8(float (&c)[4], uint32_t a0, uint32_t a1, uint32_t b0) {
    asm("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5}, {%6}, {%0, %1, %2, %3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a0), "r"(a1), "r"(b0));
  }
};

template <int G, int HEAD_DIM, KVLayout LAYOUT>
__device__ void decode_attention_fp8(const half* __restrict__ q, const __nv_fp8_e4m3* __restrict__ k,
                                     const __nv_fp8_e4m3* __restrict__ v, half* __restrict__ o, int kv_len,
                                     int num_qo_heads, int num_kv_heads, float qk_scale, float v_scale) {
  using fp8 = fp8_traits<HEAD_DIM>;
  constexpr int LANES = HEAD_DIM / VEC, STAGES = fp8::STAGES;
  constexpr int RING = WARPS * STAGES * fp8::SLOT, MERGE = WARPS * G * (HEAD_DIM + 2) * 4;
  __shared__ __align__(16) unsigned char smem[RING > MERGE ? RING : MERGE];
  const int b = blockIdx.y, head0 = blockIdx.x * G, kv_head = head0 / (num_qo_heads / num_kv_heads);
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, g = lane / 4, t = lane % 4;
  const int64_t qo_offset = (static_cast<int64_t>(b) * num_qo_heads + head0) * HEAD_DIM;
  const int64_t row_stride = LAYOUT == KVLayout::HND ? HEAD_DIM : static_cast<int64_t>(num_kv_heads) * HEAD_DIM;
  const int64_t head_base = LAYOUT == KVLayout::HND
                                ? (static_cast<int64_t>(b) * num_kv_heads + kv_head) * kv_len * HEAD_DIM
                                : static_cast<int64_t>(b) * kv_len * row_stride + kv_head * HEAD_DIM;
  unsigned char* ring = smem + warp * STAGES * fp8::SLOT;  // this warp's ring: [STAGES][K, V][TILE][HEAD_DIM]
  state_t<VEC> st[G];  // the warp's result in the layout merge_and_store takes (token group 0 of the warp)
  // TODO: your code here.
  //   Hint: (Optional, the fp8 cache at the speed of its bytes.) The scalar update is issue-bound on fp8:
  //   Hint: each byte is converted alone and every head costs 16 FMAs a token. Give each warp tiles of 8
  //   Hint: tokens and let mma.sync compute the tile's scores (heads x tokens) and its P.V: which operand
  //   Hint: layouts let S's accumulators be P.V's B operand without a shuffle, and which order of the dims
  //   Hint: lets every lane read whole 16-byte chunks of K and V and convert two bytes per cvt?
  for (auto& s : st) s.init();
  merge_and_store<G, HEAD_DIM>(st, reinterpret_cast<float*>(smem), o + qo_offset, v_scale);
}

// The kernels' entry: the fp8 cache on the tensor cores (FP8_ON_TENSOR_CORES), the rest on decode_attention.
template <int G, typename DTypeQ, typename DTypeKV, int HEAD_DIM, KVLayout LAYOUT>
__device__ void decode_entry(const DTypeQ* __restrict__ q, const DTypeKV* __restrict__ k,
                             const DTypeKV* __restrict__ v, DTypeQ* __restrict__ o, int kv_len, int num_qo_heads,
                             int num_kv_heads, float scale_log2, float k_scale, float v_scale) {
  const float qk_scale = (scale_log2 * k_scale);  // (q . k_scale k) * sm_scale, in base 2
  if constexpr (is_fp8<DTypeKV> && FP8_ON_TENSOR_CORES)
    decode_attention_fp8<G, HEAD_DIM, LAYOUT>(q, k, v, o, kv_len, num_qo_heads, num_kv_heads, qk_scale, v_scale);
  else
    decode_attention<G, DTypeQ, DTypeKV, HEAD_DIM, LAYOUT>(q, k, v, o, kv_len, num_qo_heads, num_kv_heads,
                                                           qk_scale, v_scale);
}

}  // namespace

// The instantiations, named decode_attention_g<G>: by default the tuned case, fp16, HEAD_DIM 128, NHD;
// the grader compiles this file again for each other configuration (course/attention/decode_config.cuh).
#include <course/attention/decode_config.cuh>
#define DECODE_KERNEL(G)                                                                              \
  extern "C" __global__ void __launch_bounds__(BLOCK)                                                 \
  decode_attention_g##G(const DECODE_Q* q, const DECODE_KV* k, const DECODE_KV* v, DECODE_Q* o,       \
                        int kv_len, int num_qo_heads, int num_kv_heads,                               \
                        float scale_log2 DECODE_SCALE_PARAMS) {                                       \
    decode_entry<G, DECODE_Q, DECODE_KV, DECODE_HEAD_DIM, KVLayout::DECODE_LAYOUT>(                  \
        q, k, v, o, kv_len, num_qo_heads, num_kv_heads, scale_log2, DECODE_SCALE_ARGS);              \
  }
DECODE_KERNEL(1)
DECODE_KERNEL(2)
DECODE_KERNEL(4)
#if DECODE_HEAD_DIM < 256  // G = 8 at d256: merge_and_store's 66 KiB pass the 48 KiB of static shared memory
DECODE_KERNEL(8)
#endif
