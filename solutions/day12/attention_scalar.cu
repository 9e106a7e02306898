// Day 12, exercise 1: attention with the online softmax, one thread per query, no tensor cores.
//
//   q, o: [heads, q_len, head_dim]   k, v: [heads, kv_len, head_dim]   fp16, head_dim 64 or 128
//   o[h, i] = softmax_j(q[h, i] . k[h, j] * sm_scale) v[h, j]   over the keys j that query i sees:
//   all of them, or with `causal` those with j <= i + (kv_len - q_len) (the mask aligned to the end
//   of the KV: the last query sees every key, as when new tokens are appended to a KV cache).
//
// The baseline of the day's progression, and the algorithm without the machinery. A block of 64
// threads owns 64 consecutive queries of one head; the block walks over the keys in tiles of TILE,
// staged in shared memory (every thread reads the same key at the same time: a broadcast). Each
// thread keeps its output row (float, in registers), its query (in shared memory) and the
// online-softmax state:
//   m  the largest score seen so far (in the log2 domain: scores are multiplied by sm_scale * log2 e)
//   l  the sum of 2^(score - m) over the keys seen so far
// so that softmax never needs all scores of a row at once. The grader launches
// grid = (ceil(q_len / 64), heads), block = (64,).
#include <course/math.cuh>
#include <course/vec_dtypes.cuh>

namespace {

using namespace course;

constexpr int THREADS = 64;  // queries per block, one per thread
constexpr int TILE = 8;      // keys per shared-memory tile

template <int D>
__device__ void attention(const half* __restrict__ q, const half* __restrict__ k, const half* __restrict__ v,
                          half* __restrict__ o, int q_len, int kv_len, bool causal, float sm_scale) {
  __shared__ __align__(16) half k_tile[TILE * D];
  __shared__ __align__(16) half v_tile[TILE * D];
  const int64_t head = blockIdx.y;
  const int first_row = blockIdx.x * THREADS;
  const int row = first_row + threadIdx.x;  // this thread's query
  const bool active = row < q_len;
  q += head * q_len * D;
  o += head * q_len * D;
  k += head * kv_len * D;
  v += head * kv_len * D;

  // Keys this thread sees: [0, my_end); the block loads every tile that any of its queries sees.
  const int offset = kv_len - q_len;
  const int last_row = min(first_row + THREADS, q_len) - 1;
  const int block_end = causal ? max(0, min(kv_len, last_row + offset + 1)) : kv_len;
  const int my_end = !active ? 0 : (causal ? max(0, min(kv_len, row + offset + 1)) : kv_len);

  // The query row waits in shared memory (registers hold acc): one row of half2 per thread, padded
  // by one word so that the 32 rows a warp reads at once fall in 32 different banks.
  __shared__ half2 q_rows[THREADS][D / 2 + 1];
#pragma unroll
  for (int c = 0; c < D / 2; ++c) {
    q_rows[threadIdx.x][c] = active ? reinterpret_cast<const half2*>(q + static_cast<int64_t>(row) * D)[c]
                                    : __float2half2_rn(0.f);
  }
  const half2* q_row = q_rows[threadIdx.x];
  float acc[D];
#pragma unroll
  for (int i = 0; i < D; ++i) acc[i] = 0.f;
  float m = -math::inf, l = 0.f;
  const float scale_log2 = sm_scale * math::log2e;

  for (int t0 = 0; t0 < block_end; t0 += TILE) {
    __syncthreads();  // the previous tile is no longer read
    for (int c = threadIdx.x; c < TILE * D / 8; c += THREADS) {
      const int key = t0 + c / (D / 8), col = (c % (D / 8)) * 8;
      uint4 kc = make_uint4(0, 0, 0, 0), vc = kc;
      if (key < kv_len) {
        kc = *reinterpret_cast<const uint4*>(k + static_cast<int64_t>(key) * D + col);
        vc = *reinterpret_cast<const uint4*>(v + static_cast<int64_t>(key) * D + col);
      }
      reinterpret_cast<uint4*>(k_tile)[c] = kc;
      reinterpret_cast<uint4*>(v_tile)[c] = vc;
    }
    __syncthreads();
    const half2* k2 = reinterpret_cast<const half2*>(k_tile);
    const half2* v2 = reinterpret_cast<const half2*>(v_tile);
    // BEGIN EXERCISE
    // HINT: The online softmax over one tile of keys: what must you know about the whole tile before any weight
    // HINT: is computed, what happens to what was accumulated under the old max, and what of a tile whose keys
    // HINT: this query may not see?
    // HINT2: Three passes over the tile, all unrolled so s and acc stay in registers: the scores (scaled to base 2,
    // HINT2: -inf for a key this query may not see) and their max; the rescale of l and acc to the new max (or
    // HINT2: skip the tile when nothing is visible yet); each key's weight into l and weighted value into acc.
    // HINT3: my_end is the first key this thread may not see: kv_len, its causal diagonal, or 0 for an inactive
    // HINT3: thread. A loop indexed by a run-time value cannot keep an array in registers: with #pragma unroll
    // HINT3: every index is a constant, otherwise s and acc go to local memory.
    float s[TILE];
    float tile_max = -math::inf;
#pragma unroll  // over the keys of the tile
    for (int j = 0; j < TILE; ++j) {
      float dot = 0.f;
#pragma unroll  // over the head dim
      for (int i = 0; i < D / 2; ++i) {
        const float2 kf = __half22float2(k2[j * (D / 2) + i]);
        const float2 qf = __half22float2(q_row[i]);
        dot = fmaf(qf.x, kf.x, fmaf(qf.y, kf.y, dot));
      }
      s[j] = t0 + j < my_end ? dot * scale_log2 : -math::inf;
      tile_max = fmaxf(tile_max, s[j]);
    }
    const float m_new = fmaxf(m, tile_max);
    if (m_new == -math::inf) continue;
    const float alpha = math::ptx_exp2(m - m_new);
    l *= alpha;
#pragma unroll  // rescale acc
    for (int i = 0; i < D; ++i) acc[i] *= alpha;
#pragma unroll  // over the keys again
    for (int j = 0; j < TILE; ++j) {
      const float p = math::ptx_exp2(s[j] - m_new);
      l += p;
#pragma unroll  // and the head dim
      for (int i = 0; i < D / 2; ++i) {
        const float2 vf = __half22float2(v2[j * (D / 2) + i]);
        acc[2 * i] = fmaf(p, vf.x, acc[2 * i]);
        acc[2 * i + 1] = fmaf(p, vf.y, acc[2 * i + 1]);
      }
    }
    m = m_new;
    // END EXERCISE
  }
  if (active) {
    const float inv = l > 0.f ? 1.f / l : 0.f;
    half2* out = reinterpret_cast<half2*>(o + static_cast<int64_t>(row) * D);
#pragma unroll
    for (int i = 0; i < D / 2; ++i) out[i] = __floats2half2_rn(acc[2 * i] * inv, acc[2 * i + 1] * inv);
  }
}

}  // namespace

extern "C" __global__ void __launch_bounds__(THREADS)
attention_scalar_d64(const half* q, const half* k, const half* v, half* o, int q_len, int kv_len, int causal,
                     float sm_scale) {
  attention<64>(q, k, v, o, q_len, kv_len, causal != 0, sm_scale);
}

extern "C" __global__ void __launch_bounds__(THREADS)
attention_scalar_d128(const half* q, const half* k, const half* v, half* o, int q_len, int kv_len,
                      int causal, float sm_scale) {
  attention<128>(q, k, v, o, q_len, kv_len, causal != 0, sm_scale);
}
