// Your exercise file. Generated from solutions/day11/decode_warp.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: 0f922deadb4d5055
// Day 11, exercise 3: one warp decodes one head (fp16, head_dim 128, no GQA yet, no pipeline).
//
//   q: [batch, num_heads, 128]   k, v: [batch, kv_len, num_heads, 128] (NHD)   o: like q
//   o[b, h] = softmax(q[b, h] . k[b, :, h] * sm_scale) @ v[b, :, h]
//
// One warp per (request, head): the grader launches grid = (num_heads, batch), block = (32,).
// The warp is the decode kernel's layout in small (course/attention/decode.cuh):
//   - LANES = 16 lanes share one KV row: lane tx = lane % 16 owns dims [8 tx, 8 tx + 8) of q, k, v
//     and o, and loads them with one 16-byte access (course::vec_t<half, 8>);
//   - the warp's 2 lane groups (ty = lane / 16) take different tokens: step s gives token 2 s + ty to
//     group ty, and each group keeps its own state (m, d, o[8]) over the tokens it saw;
//   - a score q . k_j is the sum of the 16 lanes' partial dot products: a butterfly of shuffles;
//   - at the end the 2 groups' states are merged (a shuffle across lane ^ 16), normalised, stored.
// scale_log2 = sm_scale * log2(e): q times it makes q . k the base-2 score of exercise 1.
#include <course/math.cuh>
#include <course/vec_dtypes.cuh>

namespace {

constexpr int HEAD_DIM = 128, VEC = 8, LANES = HEAD_DIM / VEC;

}  // namespace

extern "C" __global__ void __launch_bounds__(32)
decode_warp(const half* __restrict__ q, const half* __restrict__ k, const half* __restrict__ v,
            half* __restrict__ o, int kv_len, int num_heads, float scale_log2) {
  const int b = blockIdx.y, h = blockIdx.x, lane = threadIdx.x % 32;
  const int tx = lane % LANES, ty = lane / LANES;
  const int64_t qo_offset = (static_cast<int64_t>(b) * num_heads + h) * HEAD_DIM + tx * VEC;
  const int64_t row_stride = static_cast<int64_t>(num_heads) * HEAD_DIM;  // from token t to t + 1
  const int64_t kv_offset = static_cast<int64_t>(b) * kv_len * row_stride + h * HEAD_DIM + tx * VEC;
  // TODO: your code here.
  //   Hint: q in registers: this lane's 8 dims as float (course::load_as_float), times scale_log2.
  //   Hint: A state per lane: m = -inf, d = 0, acc[8] = 0 (o is the output). A step folds ONE token in:
  //   Hint: its score x (partial dot product, summed over the 16 lanes of the row), m_new = max(m, x), d and
  //   Hint: o scaled by 2^(m - m_new), p = 2^(x - m_new) added to d and p * v to o. Then the two lane
  //   Hint: groups' states merge across lane ^ 16 (exercise 2's merge), and o / d is the output.
}
