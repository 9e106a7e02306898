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
  // BEGIN EXERCISE
  // HINT: This is exercise 3's per-token step for G query heads at once. What can the G heads share (that is
  // HINT: GQA's saving), and which instructions must every lane execute whether or not its token exists?
  // HINT2: The token's K and V elements converted to float once, outside the head loop; per head: the partial
  // HINT2: dot product, its sum over the row's LANES lanes (exercise 3's butterfly), the score replaced by
  // HINT2: -inf for an invalid token, the online step of exercise 1 on st[g].
  // HINT3: The butterfly shuffles: every lane runs it for every token, valid or not, BEFORE any `continue`.
  float kf[VEC], vf[VEC];
#pragma unroll
  for (int i = 0; i < VEC; ++i) kf[i] = course::to_float(k[i]), vf[i] = course::to_float(v[i]);
#pragma unroll
  for (int g = 0; g < G; ++g) {
    float score = 0.f;
#pragma unroll
    for (int i = 0; i < VEC; ++i) score += q[g][i] * kf[i];
#pragma unroll  // the butterfly: the whole score in every lane of the group, valid token or not
    for (int mask = LANES / 2; mask > 0; mask /= 2) score += __shfl_xor_sync(0xffffffffu, score, mask);
    const float x = valid ? score : -course::math::inf;
    const float m_new = fmaxf(st[g].m, x);
    if (m_new == -course::math::inf) continue;  // this group has seen no token yet
    const float a = course::math::ptx_exp2(st[g].m - m_new), p = course::math::ptx_exp2(x - m_new);
    st[g].d = st[g].d * a + p;
#pragma unroll
    for (int i = 0; i < VEC; ++i) st[g].o[i] = st[g].o[i] * a + p * vf[i];
    st[g].m = m_new;
  }
  // END EXERCISE
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
  // BEGIN EXERCISE
  // HINT: Three levels of merging, from the cheapest: token groups of the same warp own the same dims; warps
  // HINT: do not share registers; the last merge needs one thread per (head, 8-dim chunk). Which mechanism
  // HINT: carries states at each level? The output is normalised and multiplied by v_scale.
  // HINT2: A barrier first (smem may be the pipeline's ring). (1) Shuffles across the token groups of a warp,
  // HINT2: every lane taking part; (2) token group 0 of each warp writes its per-head state (o, m, d) to
  // HINT2: shared memory, then a barrier; (3) threads strided over G * LANES each merge the WARPS entries of
  // HINT2: one (head, chunk), normalise, scale and store 8 elements of T. state_t's merge and normalize
  // HINT2: may do the arithmetic.
  // HINT3: Every lane must shuffle (all 32), so no `if` around step (1); merge handles empty states
  // HINT3: (both m = -inf) by leaving the state as it is. At d256 LANES = 32: step (1) has nothing to do.
  __syncthreads();  // every thread is done with the ring
#pragma unroll
  for (int g = 0; g < G; ++g) {
#pragma unroll
    for (int mask = LANES; mask < 32; mask *= 2) {
      float other_o[VEC];
#pragma unroll
      for (int i = 0; i < VEC; ++i) other_o[i] = __shfl_xor_sync(0xffffffffu, st[g].o[i], mask);
      const float other_m = __shfl_xor_sync(0xffffffffu, st[g].m, mask);
      const float other_d = __shfl_xor_sync(0xffffffffu, st[g].d, mask);
      st[g].merge(other_o, other_m, other_d);
    }
  }
  if (lane < LANES) {
#pragma unroll
    for (int g = 0; g < G; ++g) {
#pragma unroll
      for (int i = 0; i < VEC; ++i) smem_o[(warp * G + g) * HEAD_DIM + tx * VEC + i] = st[g].o[i];
      smem_md[(warp * G + g) * 2] = st[g].m;
      smem_md[(warp * G + g) * 2 + 1] = st[g].d;
    }
  }
  __syncthreads();
  for (int c = threadIdx.x; c < G * LANES; c += BLOCK) {
    const int g = c / LANES, dim0 = (c % LANES) * VEC;
    state_t<VEC> merged;
    merged.init();
    for (int w = 0; w < WARPS; ++w) {
      float o[VEC];
#pragma unroll
      for (int i = 0; i < VEC; ++i) o[i] = smem_o[(w * G + g) * HEAD_DIM + dim0 + i];
      merged.merge(o, smem_md[(w * G + g) * 2], smem_md[(w * G + g) * 2 + 1]);
    }
    merged.normalize();
#pragma unroll
    for (int i = 0; i < VEC; ++i) merged.o[i] *= v_scale;
    course::store_from_float(o_heads + g * HEAD_DIM + dim0, merged.o);
  }
  // END EXERCISE
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
  // BEGIN EXERCISE
  // HINT: Where does token t of this request's KV head start in each layout? Which of the two offsets changes
  // HINT: with t, and which type keeps a cache of more than 2^31 elements addressable?
  // HINT2: A compile-time branch on LAYOUT: for each, the distance between consecutive tokens and the offset
  // HINT2: of token 0 of (b, kv_head), plus this thread's first dim; all in int64_t.
  // HINT3: NHD: consecutive tokens of one head are a whole row of all num_kv_heads heads apart; HND: one
  // HINT3: HEAD_DIM row apart, the head's tokens being contiguous. Token 0 of (b, kv_head) is then, in NHD,
  // HINT3: past b requests of kv_len such rows plus kv_head rows of HEAD_DIM; in HND, past
  // HINT3: b * num_kv_heads + kv_head spans of kv_len * HEAD_DIM. Cast before the first multiplication.
  // STUB: int64_t row_stride = 0, kv_base = 0;
  int64_t row_stride, kv_base;
  if constexpr (LAYOUT == KVLayout::HND) {
    row_stride = HEAD_DIM;
    kv_base = (static_cast<int64_t>(b) * num_kv_heads + kv_head) * kv_len * HEAD_DIM + tx * VEC;
  } else {
    row_stride = static_cast<int64_t>(num_kv_heads) * HEAD_DIM;
    kv_base = static_cast<int64_t>(b) * kv_len * row_stride + kv_head * HEAD_DIM + tx * VEC;
  }
  // END EXERCISE
  DTypeKV* ring = reinterpret_cast<DTypeKV*>(smem);  // [STAGES][2 (K, V)][BLOCK][VEC] elements
  // BEGIN EXERCISE
  // HINT: The loads of a token's K and V take a DRAM latency; the thread needs them one step later. How can
  // HINT: a thread keep several steps of copies in flight without holding them in registers, and why does
  // HINT: it need no __syncthreads to read them back? The technique: LDGSTS (cp.async), SHFL.BFLY, MUFU.EX2.
  // HINT2: A ring of STAGES slots per thread in shared memory (K and V each): a prologue issues the first
  // HINT2: STAGES - 1 steps; each step waits until its own copies landed, reads them into registers, issues
  // HINT2: the copies STAGES - 1 steps ahead into the slot just freed, and calls update(). Every thread runs
  // HINT2: the same number of steps (update shuffles); the ring is drained after the loop. Copies past the
  // HINT2: end are predicated off (zeros) but still committed.
  // HINT3: Commit a group on EVERY step, even past the end (an empty one): wait_group<n> counts
  // HINT3: groups, so a missing commit makes it wait for the wrong step's copies.
  // HINT3: (step + STAGES - 1) % STAGES == (step - 1) % STAGES: the new copies go into the slot that
  // HINT3: step - 1 already read into registers, so the ring never overwrites a slot still to be read.
  constexpr int BYTES = sizeof(DTypeKV) * VEC;
  auto slot = [&](int step, int which) {  // which 0: K, 1: V
    return ring + ((step % STAGES * 2 + which) * BLOCK + threadIdx.x) * VEC;
  };
  auto issue = [&](int step) {
    const int t = step * GROUPS + ty;
    const int64_t offset = t < kv_len ? kv_base + t * row_stride : -1;  // -1: no token
    const bool exists = offset >= 0;
    course::cp_async::load<BYTES>(slot(step, 0), k + (exists ? offset : 0), exists);  // zeros if no token
    course::cp_async::load<BYTES>(slot(step, 1), v + (exists ? offset : 0), exists);
    course::cp_async::commit_group();
  };
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) issue(s);
  const int steps = course::ceil_div(kv_len, GROUPS);
  for (int step = 0; step < steps; ++step) {
    course::cp_async::wait_group<STAGES - 2>();  // this step's copies have landed
    course::vec_t<DTypeKV, VEC> kv, vv;
    kv.load(slot(step, 0));
    vv.load(slot(step, 1));
    issue(step + STAGES - 1);  // into the slot read one step ago
    update<G, LANES>(st, qr, kv, vv, step * GROUPS + ty < kv_len);
  }
  course::cp_async::wait_all();  // even zero-filling copies write shared memory: none may land later
  // END EXERCISE

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
