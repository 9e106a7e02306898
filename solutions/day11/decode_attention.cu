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
// BEGIN EXERCISE
// HINT: (Optional.) Your update() above handles an fp8 cache too; once you have written
// HINT: decode_attention_fp8 below, turn this on and the fp8 configurations take it instead.
// STUB: constexpr bool FP8_ON_TENSOR_CORES = false;
constexpr bool FP8_ON_TENSOR_CORES = true;
// END EXERCISE
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
  // BEGIN EXERCISE
  // HINT: (Optional, the fp8 cache at the speed of its bytes.) The scalar update is issue-bound on fp8:
  // HINT: each byte is converted alone and every head costs 16 FMAs a token. Give each warp tiles of 8
  // HINT: tokens and let mma.sync compute the tile's scores (heads x tokens) and its P.V: which operand
  // HINT: layouts let S's accumulators be P.V's B operand without a shuffle, and which order of the dims
  // HINT: lets every lane read whole 16-byte chunks of K and V and convert two bytes per cvt?
  // HINT2: Lane (g, t) holds query head g's dims [t D/4, (t+1) D/4) as fp16 pairs (zeros for g >= G); for
  // HINT2: k-step j its A registers are pairs 2j, 2j+1 and the B registers of token g's K row the
  // HINT2: two halves of word j of the same D/4 bytes (e4m3x4_to_f16x2). O^T = V^T . P^T: lane g owns V
  // HINT2: dims [g D/8, (g+1) D/8) of tokens 2t and 2t+1; a byte permute pairs the two tokens' bytes so
  // HINT2: that one cvt gives the A register (dim, tokens 2t, 2t+1). The warp's private cp.async ring of
  // HINT2: STAGES tiles needs only __syncwarp. Softmax per head over the quad (2 shuffles), lazily rescaled.
  // HINT3: Rescale only when some head's tile max passes its stale m by RESCALE (__any_sync: the O lanes
  // HINT3: hold heads 2t, 2t+1 and fetch their factors from lanes 8t and 8t+4); p = 2^(x - m) with m = 0
  // HINT3: while m is -inf (then every x so far is -inf). d sums this lane's p and is summed over the quad
  // HINT3: at the end; the warp's o goes through shared memory into st[] for merge_and_store.
  // HINT3: Copies into slot (step - 1) % STAGES are issued after the __syncwarp that follows the wait.
  // STUB: for (auto& s : st) s.init();
  // The query: this lane's fp16 pairs of head g, dims [t D/4, (t+1) D/4): word 2j and 2j + 1 are the A
  // registers a0 and a2 of k-step j (a1 = a3 = 0: rows 8..15 are no heads).
  uint32_t qa[fp8::K_WORDS][2];
#pragma unroll
  for (int j = 0; j < fp8::K_WORDS / 2; ++j) {
    uint4 w = make_uint4(0, 0, 0, 0);
    if (g < G) w = reinterpret_cast<const uint4*>(q + qo_offset + g * HEAD_DIM + t * (HEAD_DIM / 4))[j];
    qa[2 * j][0] = w.x, qa[2 * j][1] = w.y, qa[2 * j + 1][0] = w.z, qa[2 * j + 1][1] = w.w;
  }
  float acc[HEAD_DIM / 16][4] = {};      // O^T: m-tile i, c0/c2 head 2t, c1/c3 head 2t + 1 (dims below)
  float m = -course::math::inf, d = 0.f;  // head g: the stale max and this lane's part of the sum

  const int tiles = course::ceil_div(kv_len, TILE), steps = course::ceil_div(tiles, WARPS);
  // This lane's cp.async of a tile: copy c moves 16 bytes of K or V of token copy_row[c] (+ one block step
  // of tokens a step) from copy_src[c] (advanced after each issue) into byte copy_dst[c] of a slot.
  const __nv_fp8_e4m3* copy_src[fp8::COPIES];
  int copy_row[fp8::COPIES], copy_dst[fp8::COPIES];
#pragma unroll
  for (int c = 0; c < fp8::COPIES; ++c) {
    const int idx = lane + 32 * c, which = idx / (TILE * fp8::CHUNKS);  // 0: K, 1: V
    const int row = idx / fp8::CHUNKS % TILE, chunk = idx % fp8::CHUNKS;
    copy_row[c] = warp * TILE + row;  // its token in step 0
    copy_dst[c] = (which * TILE + row) * HEAD_DIM + (chunk ^ (row & fp8::SWIZZLE)) * 16;
    copy_src[c] = (which ? v : k) + head_base + copy_row[c] * row_stride + chunk * 16;
  }
  const int64_t step_stride = WARPS * TILE * row_stride;
  auto issue = [&](int step) {  // tile step * WARPS + warp into slot step % STAGES; steps in order
    unsigned char* slot = ring + step % STAGES * fp8::SLOT;
#pragma unroll
    for (int c = 0; c < fp8::COPIES; ++c) {
      const bool exists = copy_row[c] + step * WARPS * TILE < kv_len;
      course::cp_async::load<16>(slot + copy_dst[c], exists ? copy_src[c] : k, exists);  // zeros if no token
      copy_src[c] += step_stride;
    }
    course::cp_async::commit_group();
  };
  // A lane's bytes [byte0, byte0 + 4 * count) of row `row` of the K (which 0) or V tile, as 32-bit words.
  auto read_row = [&](const unsigned char* slot, int which, int row, int byte0, uint32_t* words, int count) {
#pragma unroll
    for (int w = 0; w < count; w += (count >= 4 ? 4 : 2)) {  // whole 16-byte chunks (8 bytes: d64's V)
      const int byte = byte0 + 4 * w, phys = ((byte / 16) ^ (row & fp8::SWIZZLE)) * 16 + byte % 16;
      const unsigned char* at = slot + (which * TILE + row) * HEAD_DIM + phys;
      if (count >= 4) {
        const uint4 x = *reinterpret_cast<const uint4*>(at);
        words[w] = x.x, words[w + 1] = x.y, words[w + 2] = x.z, words[w + 3] = x.w;
      } else {
        const uint2 x = *reinterpret_cast<const uint2*>(at);
        words[w] = x.x, words[w + 1] = x.y;
      }
    }
  };
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) issue(s);
  for (int step = 0; step < steps; ++step) {
    if constexpr (STAGES == 1) issue(step);
    course::cp_async::wait_group<(STAGES > 1 ? STAGES - 2 : 0)>();
    __syncwarp();  // every lane's copies of this tile are visible; every lane is done with step - 1
    const unsigned char* slot = ring + step % STAGES * fp8::SLOT;
    uint32_t kw[fp8::K_WORDS], va[fp8::V_WORDS], vb[fp8::V_WORDS];
    read_row(slot, 0, g, t * (HEAD_DIM / 4), kw, fp8::K_WORDS);          // K row g: token g of the tile
    read_row(slot, 1, 2 * t, g * (HEAD_DIM / 8), va, fp8::V_WORDS);      // V rows 2t, 2t + 1
    read_row(slot, 1, 2 * t + 1, g * (HEAD_DIM / 8), vb, fp8::V_WORDS);
    if constexpr (STAGES == 1) {
      __syncwarp();  // the single slot is free again: the next step's copies go into it
    } else {
      issue(step + STAGES - 1);  // into slot (step - 1) % STAGES, which every lane has read
    }

    // S = Q . K^T: the 8 tokens' scores of head g in s[0], s[1] (tokens 2t, 2t + 1).
    float s[4] = {};
#pragma unroll
    for (int j = 0; j < fp8::K_WORDS; ++j) {
      uint32_t b0, b1;
      fp8::e4m3x4_to_f16x2(kw[j], b0, b1);
      fp8::mma_16x8x16(s, qa[j][0], 0u, qa[j][1], 0u, b0, b1);
    }
    const int token = (step * WARPS + warp) * TILE + 2 * t;
    const float x0 = token < kv_len ? s[0] * qk_scale : -course::math::inf;
    const float x1 = token + 1 < kv_len ? s[1] * qk_scale : -course::math::inf;
    float top = fmaxf(x0, x1);
    top = fmaxf(top, __shfl_xor_sync(0xffffffffu, top, 1));
    top = fmaxf(top, __shfl_xor_sync(0xffffffffu, top, 2));
    if (__any_sync(0xffffffffu, top > m + fp8::RESCALE)) {  // rare: the first tile, then when the max jumps
      const float m_new = fmaxf(m, top);
      const float a = m_new == -course::math::inf ? 1.f : course::math::ptx_exp2(m - m_new);
      const float a_lo = __shfl_sync(0xffffffffu, a, 8 * t), a_hi = __shfl_sync(0xffffffffu, a, 8 * t + 4);
      d *= a;
      m = m_new;
#pragma unroll
      for (int i = 0; i < HEAD_DIM / 16; ++i) acc[i][0] *= a_lo, acc[i][1] *= a_hi, acc[i][2] *= a_lo, acc[i][3] *= a_hi;
    }
    const float m_use = m == -course::math::inf ? 0.f : m;  // m = -inf: every x so far is -inf, p = 0
    const float p0 = course::math::ptx_exp2(x0 - m_use), p1 = course::math::ptx_exp2(x1 - m_use);
    d += p0 + p1;
    const uint32_t p = fp8::f16x2(p0, p1);  // B of P.V: tokens 2t, 2t + 1 of head g

    // O^T += V^T . P^T: bytes (tokens 2t, 2t + 1) of one dim paired by a byte permute, then one cvt.
#pragma unroll
    for (int w = 0; w < fp8::V_WORDS; ++w) {
      uint32_t a[4];  // dims 4w .. 4w + 3 of this lane's V slice, each (token 2t, token 2t + 1)
      fp8::e4m3x4_to_f16x2(__byte_perm(va[w], vb[w], 0x5140), a[0], a[1]);
      fp8::e4m3x4_to_f16x2(__byte_perm(va[w], vb[w], 0x7362), a[2], a[3]);
      fp8::mma_16x8x8(acc[2 * w], a[0], a[1], p);
      fp8::mma_16x8x8(acc[2 * w + 1], a[2], a[3], p);
    }
  }
  course::cp_async::wait_all();
  __syncwarp();
  // The warp's state into st[] of its token group 0 (lanes 0 .. LANES - 1, 8 dims each), the others empty:
  // m-tile i's rows g and g + 8 are dims g D/8 + 2i and g D/8 + 2i + 1.
  d += __shfl_xor_sync(0xffffffffu, d, 1);
  d += __shfl_xor_sync(0xffffffffu, d, 2);
  static_assert(G * HEAD_DIM * 4 <= STAGES * fp8::SLOT, "the warp's o must fit its ring");
  float* out = reinterpret_cast<float*>(ring);  // [G][HEAD_DIM]
#pragma unroll
  for (int i = 0; i < HEAD_DIM / 16; ++i) {
    const int dim = g * (HEAD_DIM / 8) + 2 * i;
    if (2 * t < G) *reinterpret_cast<float2*>(out + 2 * t * HEAD_DIM + dim) = make_float2(acc[i][0], acc[i][2]);
    if (2 * t + 1 < G) *reinterpret_cast<float2*>(out + (2 * t + 1) * HEAD_DIM + dim) = make_float2(acc[i][1], acc[i][3]);
  }
  __syncwarp();
  const int tx = lane % LANES;
#pragma unroll
  for (int head = 0; head < G; ++head) {  // head's m and d live in lanes 4 head .. 4 head + 3
    st[head].init();
    const float m_h = __shfl_sync(0xffffffffu, m, 4 * head), d_h = __shfl_sync(0xffffffffu, d, 4 * head);
    if (lane < LANES) {
      st[head].m = m_h, st[head].d = d_h;
#pragma unroll
      for (int i = 0; i < VEC; ++i) st[head].o[i] = out[head * HEAD_DIM + tx * VEC + i];
    }
  }
  // END EXERCISE
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
