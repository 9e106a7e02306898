// Your exercise file. Generated from solutions/day11/decode_attention.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: c601ada554812740
// Day 11, exercise 4: decode attention over a contiguous KV cache (fp16, head_dim 128, GQA).
//
//   q: [batch, num_qo_heads, 128]   k, v: [batch, kv_len, num_kv_heads, 128] (NHD)   o: like q
//   o[b, h] = softmax(q[b, h] . k[b, :, h / group] * sm_scale) @ v[b, :, h / group]
//   group = num_qo_heads / num_kv_heads (GQA: `group` query heads share one KV head)
//
// Modelled on FlashInfer's single/batch decode kernels (include/flashinfer/attention/decode.cuh).
// One block of 256 threads per (request, G query heads of one KV head): the grader launches
// decode_attention_g<G> with grid = (num_qo_heads / G, batch), block = (256,), G the largest of
// 8, 4, 2, 1 that divides `group`. The block reads its KV head's rows once for all G heads.
//
// Exercise 3's warp, grown to a block (course/attention/decode.cuh): 16 lanes share a KV row, lane tx
// owning dims [8 tx, 8 tx + 8) (one 16-byte load); the block's 16 lane groups ("token groups",
// ty = 0..15) take one token each per step, the block 16 tokens per step. YOUR main loop streams the
// K and V rows through a cp.async pipeline in shared memory and calls YOUR update() for every token;
// each token group keeps an online-softmax state (m, d, o) per head (course/attention/state.cuh:
// state_t, the course's copy of exercise 2's state), and YOUR merge_and_store combines the 16 groups'
// states at the end (exercise 3's merge across lane ^ 16, then across warps through shared memory).
// scale_log2 = sm_scale * log2(e): scores are kept in base 2, so exp is one ex2.approx.
#include <course/attention/decode.cuh>

namespace {

using namespace course::attention;
constexpr int HEAD_DIM = 128, BLOCK = 256, STAGES = 4;
using traits = decode_traits<HEAD_DIM, BLOCK>;
constexpr int VEC = traits::VEC, LANES = traits::LANES, GROUPS = traits::GROUPS, WARPS = traits::WARPS;

// Fold one token into the G states of this thread: k and v are this thread's 8 dims of the token's
// K and V rows; valid is false for a token past the end (it must not count). All 32 lanes of the
// warp call this together, the 16 lanes of a token group with the same token.
template <int G>
__device__ void update(state_t<VEC> (&st)[G], const float (&q)[G][VEC], const course::vec_t<half, VEC>& k,
                       const course::vec_t<half, VEC>& v, bool valid) {
  // TODO: your code here.
  //   Hint: Exercise 3's loop body, for G heads at once: the token's K and V are read once and serve
  //   Hint: all G query heads (that is GQA's saving). For each head g: the score x (partial dot product
  //   Hint: of q[g] with this thread's 8 dims of k, summed over the 16 lanes of the row), then the
  //   Hint: online step on st[g].m, st[g].d, st[g].o: rescale by 2^(m - m_new), add p = 2^(x - m_new).
}

// Merge the states of the block's 16 token groups into one per head, normalise it, and store head g's
// 128 outputs at o_heads + g * HEAD_DIM (half). smem: WARPS * G * (HEAD_DIM + 2) floats, which may be
// the pipeline's ring (all threads must be done with it). Every thread of the block calls this.
template <int G>
__device__ void merge_and_store(state_t<VEC> (&st)[G], float* smem, half* __restrict__ o_heads) {
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, tx = lane % LANES;
  float* smem_o = smem;                           // [WARPS][G][HEAD_DIM]
  float* smem_md = smem + WARPS * G * HEAD_DIM;   // [WARPS][G][2]: m, d
  // TODO: your code here.
  //   Hint: Three levels, like FlashInfer's sync_state: (1) the 2 token groups of a warp own the same
  //   Hint: dims: merge them across lane ^ 16 with shuffles (exercise 3); (2) lane group 0 of each warp
  //   Hint: writes its state (o, m, d) per head to shared memory; (3) after a barrier, thread c < G * 16
  //   Hint: merges the WARPS states of one (head g = c / 16, 8-dim chunk (c % 16) * 8), normalises
  //   Hint: (o / d) and stores 8 halves. state_t's merge/normalize (state.cuh) may do the arithmetic.
}

template <int G>
__device__ void decode_attention(const half* __restrict__ q, const half* __restrict__ k,
                                 const half* __restrict__ v, half* __restrict__ o, int kv_len,
                                 int num_qo_heads, int num_kv_heads, float scale_log2) {
  __shared__ __align__(16) unsigned char smem[decode_smem_bytes<G, HEAD_DIM, BLOCK, STAGES>()];
  const int b = blockIdx.y, head0 = blockIdx.x * G;  // this block's request and first query head
  const int kv_head = head0 / (num_qo_heads / num_kv_heads);
  const int tx = threadIdx.x % LANES, ty = threadIdx.x / LANES;
  const int64_t qo_offset = (static_cast<int64_t>(b) * num_qo_heads + head0) * HEAD_DIM;

  float qr[G][VEC];  // this thread's 8 dims of each of the G query heads, times scale_log2
  load_query<G, VEC>(qr, q + qo_offset, HEAD_DIM, tx, scale_log2);
  state_t<VEC> st[G];
  for (auto& s : st) s.init();  // empty states: m = -inf, d = 0, o = 0

  // Token t's row of this KV head: [batch, kv_len, num_kv_heads, HEAD_DIM], row-major.
  const int64_t row_stride = static_cast<int64_t>(num_kv_heads) * HEAD_DIM;
  const int64_t kv_base = static_cast<int64_t>(b) * kv_len * row_stride + kv_head * HEAD_DIM + tx * VEC;
  half* ring = reinterpret_cast<half*>(smem);  // [STAGES][2 (K, V)][BLOCK][VEC] halves
  // TODO: your code here.
  //   Hint: Step s gives token s * GROUPS + ty to this thread's token group (GROUPS = 16 tokens a step).
  //   Hint: Its K and V vectors (16 bytes each, at k + kv_base + t * row_stride) travel with cp.async
  //   Hint: (course::cp_async::load_128b, day 7) into THIS thread's own slots of a STAGES-deep ring
  //   Hint: in shared memory, issued STAGES - 1 steps ahead of the step being computed: the loads stay
  //   Hint: in flight while the thread computes, without holding registers. Each thread reads back
  //   Hint: only its own copies, so cp_async::wait_group alone orders them: no __syncthreads.

  // Merge the 16 token groups' states, normalise, and store each head's 128 outputs (16 bytes a thread).
  merge_and_store<G>(st, reinterpret_cast<float*>(smem), o + qo_offset);
}

}  // namespace

#define DECODE_KERNEL(G)                                                                           \
  extern "C" __global__ void __launch_bounds__(BLOCK)                                              \
  decode_attention_g##G(const half* q, const half* k, const half* v, half* o, int kv_len,          \
                        int num_qo_heads, int num_kv_heads, float scale_log2) {                    \
    decode_attention<G>(q, k, v, o, kv_len, num_qo_heads, num_kv_heads, scale_log2);               \
  }
DECODE_KERNEL(1)
DECODE_KERNEL(2)
DECODE_KERNEL(4)
DECODE_KERNEL(8)
