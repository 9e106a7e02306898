// Your exercise file. Generated from solutions/day11/online_softmax.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: 4aa16863a7a815e2
// Day 11, exercise 1: the online softmax, one thread per row (the state (m, d, o) of state.cuh).
//
//   x: [rows, n] float   base-2 scores x_j = q . k_j * sm_scale * log2(e) (-inf: a masked key)
//   v: [rows, n, 4] float   the values, 4 dims each
//   m_out, d_out: [rows, tiles] float   o_out: [rows, tiles, 4] float   tiles = ceil(n / tile)
//
// Thread r walks row r's keys in tiles of `tile` keys, once, and keeps the running state
//
//     m = max_j x_j,   d = sum_j 2^(x_j - m),   o = sum_j 2^(x_j - m) v_j      (j: the keys seen)
//
// After tile t it writes its state (not divided by d) to m_out[r, t], d_out[r, t], o_out[r, t]: the
// grader compares each with numpy over the keys [0, (t + 1) * tile). Keys can be -inf (weight 0), a
// whole first tile can be -inf (the state stays empty: m = -inf, d = 0, o = 0), and scores go up to
// ~300, where 2^x overflows float unless the running max is subtracted first.
//
// One thread per row: the grader launches grid = (ceil(rows / 128),), block = (128,). The technique: exp
// as one ex2.approx (MUFU.EX2), the state in registers (no spills), your own state arithmetic (not
// state_t::merge of state.cuh).
#include <course/math.cuh>
#include <course/vec_dtypes.cuh>

namespace {

constexpr int N = 4;  // dims of v

}  // namespace

extern "C" __global__ void __launch_bounds__(128)
online_softmax(const float* __restrict__ x, const float* __restrict__ v, float* __restrict__ m_out,
               float* __restrict__ d_out, float* __restrict__ o_out, int rows, int n, int tile) {
  const int64_t row = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  const int tiles = (n + tile - 1) / tile;
  const float* x_row = x + row * n;
  const float* v_row = v + row * n * N;
  // TODO: your code here.
  //   Hint: The state (m, d, o) only means something relative to its m. When a tile raises the max, what
  //   Hint: happens to everything already summed? And what must an empty state (every key so far -inf) look
  //   Hint: like after a tile, without a NaN?
}
