// Your exercise file. Generated from solutions/day11/decode_attention.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: 537d047aefe1941f
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
                                 int num_qo_heads, int num_kv_heads, float scale_log2, float k_scale,
                                 float v_scale) {
  using traits = decode_traits<HEAD_DIM, BLOCK>;
  constexpr int LANES = traits::LANES, GROUPS = traits::GROUPS;  // 16 lanes a row, 16 tokens a step at d128
  __shared__ __align__(16) unsigned char smem[decode_smem_bytes<G, HEAD_DIM, BLOCK, STAGES>()];
  const int b = blockIdx.y, head0 = blockIdx.x * G;  // this block's request and first query head
  const int kv_head = head0 / (num_qo_heads / num_kv_heads);
  const int tx = threadIdx.x % LANES, ty = threadIdx.x / LANES;
  const int64_t qo_offset = (static_cast<int64_t>(b) * num_qo_heads + head0) * HEAD_DIM;

  float qr[G][VEC];  // this thread's 8 dims of each of the G query heads, times scale_log2 * k_scale
  load_query<G, VEC>(qr, q + qo_offset, HEAD_DIM, tx, scale_log2 * k_scale);  // (q . k_scale k) * sm_scale
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

}  // namespace

// The instantiations, named decode_attention_g<G>: by default the tuned case, fp16, HEAD_DIM 128, NHD;
// the grader compiles this file again for each other configuration (course/attention/decode_config.cuh).
#include <course/attention/decode_config.cuh>
#define DECODE_KERNEL(G)                                                                              \
  extern "C" __global__ void __launch_bounds__(BLOCK)                                                 \
  decode_attention_g##G(const DECODE_Q* q, const DECODE_KV* k, const DECODE_KV* v, DECODE_Q* o,       \
                        int kv_len, int num_qo_heads, int num_kv_heads,                               \
                        float scale_log2 DECODE_SCALE_PARAMS) {                                       \
    decode_attention<G, DECODE_Q, DECODE_KV, DECODE_HEAD_DIM, KVLayout::DECODE_LAYOUT>(              \
        q, k, v, o, kv_len, num_qo_heads, num_kv_heads, scale_log2, DECODE_SCALE_ARGS);              \
  }
DECODE_KERNEL(1)
DECODE_KERNEL(2)
DECODE_KERNEL(4)
#if DECODE_HEAD_DIM < 256  // G = 8 at d256: merge_and_store's 66 KiB pass the 48 KiB of static shared memory
DECODE_KERNEL(8)
#endif
