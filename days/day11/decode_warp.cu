// Your exercise file. Generated from solutions/day11/decode_warp.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: 5bb032d92a63596b
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
//   - o[b, h] combines both groups' states; lanes 0-15 store it.
// The test: o at fp16's tolerance, kv_len from 1 (group 1 sees no token) up. The technique: scores summed
// with warp shuffles (SHFL.BFLY), exp as ex2.approx (MUFU.EX2), the state in registers, your own butterfly
// and merge (not state_t::merge of state.cuh).
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
  //   Hint: Each lane group runs exercise 1's online softmax one token at a time, but no single lane can
  //   Hint: compute a token's score alone. How do 16 lanes agree on q . k_j, and how do the two groups' states
  //   Hint: become one at the end? The technique: SHFL.BFLY and MUFU.EX2, your own butterfly and merge.
}
