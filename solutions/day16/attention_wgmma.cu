// Day 16: FlashAttention-3-style prefill on Hopper: TMA loads, wgmma for S = Q K^T and O += P V, the softmax
// of one warpgroup overlapped with the GEMMs of the other (ping-pong).
//
//   o = softmax(q k^T / sqrt(D)) v per head (causal: query i sees keys 0..i); q, k, v, o: [heads, s, D]
//   row-major fp16, D = 64 or 128, passed to TMA as [heads * s, D] (the rows of a tile that lie past the
//   head's end belong to the next head or are zero: they are masked, never stored)
//
// One block of three warpgroups per 128 queries of one head: grid = (ceil(s / 128), heads).
// Given: warpgroup 0, the PRODUCER, whose one thread loads the Q tile once, then the K and V tiles (128 keys
// each) into a ring of STAGES stages (full / empty mbarriers, as day 15's GEMM); for the CONSUMERS
// (warpgroups 1 and 2, 64 queries each): issue_s(j) (S_j = Q K_j^T, one committed wgmma group, after
// waiting for stage j to be full), issue_pv(j, P) (O += P V_j, P from registers, one committed group), the
// masking at the start of softmax, the turn-taking primitives and the epilogue (O / l).
// You write, in the consumers:
//   - softmax(j, pp), the online softmax of day 12 on the wgmma accumulator fragment (its contract is
//     above it);
//   - the schedule: every tile's S_j and P_j V_j issued once, O rescaled to the running max before P_j V_j
//     is added, each stage released (one arrival per consumer warpgroup) once nothing reads it any more;
//     with two overlaps: in a warpgroup, the softmax of S_{j+1} runs while P_j V_j is still on the tensor
//     cores; across warpgroups, GEMM issues take turns (named barriers), so one's softmax runs while the
//     other's GEMMs do.
// The test: o against a float64 reference (fp16 tolerance), causal and not, s not a multiple of 128; the
// technique: HGMMA, UTMALDG, SYNCS, MUFU.EX2, BAR.ARV and WARPGROUP.DEPBAR.LE gsb0, 0x1 (one wgmma group
// left in flight during the softmax) in the SASS, no LDG or HMMA, no spills.
#include <course/hopper/tma.cuh>
#include <course/hopper/wgmma.cuh>
#include <course/math.cuh>
#include <course/mma.cuh>
COURSE_REQUIRE_ARCH_SPECIFIC(90);

namespace {

using namespace course::hopper;
using course::math::inf;
using course::math::ptx_exp2;

constexpr int BM = 128, BN = 128, STAGES = 3;  // queries per block, keys per tile, K/V stages

template <int D>
struct Shared {
  half q[BM * D];  // D / 64 column blocks of BM x 64 (128-byte rows, 128-byte swizzle)
  half k[STAGES][BN * D];
  half v[STAGES][BN * D];
  uint64_t q_full, full[STAGES], empty[STAGES];
};

template <int D, bool CAUSAL>
__device__ void attention(const TensorMap* tq, const TensorMap* tk, const TensorMap* tv, half* __restrict__ o,
                          int s, float scale_log2) {
  extern __shared__ __align__(1024) unsigned char raw[];
  Shared<D>& sh = *reinterpret_cast<Shared<D>*>(raw + ((1024 - smem_address(raw) % 1024) % 1024));
  const int warpgroup = threadIdx.x / 128, tid = threadIdx.x % 128;
  const int mt = CAUSAL ? gridDim.x - 1 - blockIdx.x : blockIdx.x;  // causal: the longest rows first
  const int m0 = mt * BM, row0 = blockIdx.y * s;  // the tile's first query; the head's first row
  const int tiles = ((CAUSAL ? min(s, m0 + BM) : s) + BN - 1) / BN;
  if (threadIdx.x == 0) {
    mbarrier_init(&sh.q_full, 1);
    for (int i = 0; i < STAGES; i++) {
      mbarrier_init(&sh.full[i], 1);
      mbarrier_init(&sh.empty[i], 2);
    }
    fence_mbarrier_init();
  }
  __syncthreads();

  if (warpgroup == 0) {  // the producer
    setmaxnreg_dec<40>();
    if (tid == 0) {
      mbarrier_arrive_expect_tx(&sh.q_full, BM * D * 2);
      for (int cb = 0; cb < D / 64; cb++) tma_load_2d(sh.q + cb * BM * 64, tq, &sh.q_full, 64 * cb, row0 + m0);
      for (int j = 0; j < tiles; j++) {
        const int stage = j % STAGES;
        if (j >= STAGES) mbarrier_wait(&sh.empty[stage], ((j / STAGES) - 1) & 1);
        mbarrier_arrive_expect_tx(&sh.full[stage], 2 * BN * D * 2);
        for (int cb = 0; cb < D / 64; cb++) {
          tma_load_2d(sh.k[stage] + cb * BN * 64, tk, &sh.full[stage], 64 * cb, row0 + j * BN);
          tma_load_2d(sh.v[stage] + cb * BN * 64, tv, &sh.full[stage], 64 * cb, row0 + j * BN);
        }
      }
    }
    return;
  }

  setmaxnreg_inc<232>();  // the consumers
  mbarrier_wait(&sh.q_full, 0);  // the Q tile: a thread may read TMA's bytes only after waiting on their barrier
  const int rows = (warpgroup - 1) * 64, warp = tid / 32, lane = tid % 32;
  const int r_lo = m0 + rows + 16 * warp + lane / 4;  // this thread's queries: r_lo (h = 0), r_lo + 8 (h = 1)
  const uint32_t q0 = smem_address(sh.q) + rows * 128;
  float acc_s[64], acc_o[D / 2];  // S: accumulator i at row 8 h, h = (i % 4) / 2, column 8 (i / 4) + 2 (lane % 4) + i % 2
  uint32_t p[BN / 16][4], p_next[BN / 16][4];  // P as the A fragments of BN / 16 k16 steps
  float m_run[2] = {-inf, -inf}, l_run[2] = {0.f, 0.f}, corr[2];
#pragma unroll
  for (int i = 0; i < D / 2; i++) acc_o[i] = 0.f;

  auto issue_s = [&](int j) {  // S_j = Q K_j^T, one committed group
    const int stage = j % STAGES;
    mbarrier_wait(&sh.full[stage], (j / STAGES) & 1);
    const uint32_t k0 = smem_address(sh.k[stage]);
    wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < D / 16; kk++) {  // column block kk / 4, 32 bytes per k16 step inside it; the first
      wgmma_m64n128k16<half>(acc_s, make_descriptor(q0 + (kk / 4) * BM * 128 + 32 * (kk % 4)),  // overwrites
                             make_descriptor(k0 + (kk / 4) * BN * 128 + 32 * (kk % 4)), kk > 0);
    }
    wgmma_commit();
  };
  auto issue_pv = [&](int j, const uint32_t (&pp)[BN / 16][4]) {  // O += P_j V_j, one committed group
    const uint32_t v0 = smem_address(sh.v[j % STAGES]);
    wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < BN / 16; kk++) wgmma_m64k16_rs<D, half>(acc_o, pp[kk], make_descriptor_mn(v0 + kk * 2048, BN * 128));
    wgmma_commit();
  };
  // softmax(j, pp): on entry acc_s holds S_j (the given code masks it: -inf where a key is past the end or,
  // causal, past the query); on exit pp holds P_j = 2^(S_j scale_log2 - m) as fp16, the A fragments of the
  // BN / 16 k16 steps of issue_pv, m_run[h] and l_run[h] (row h of this thread: h = 0, 1) are the running max
  // (log2 units) and sum over tiles 0..j, and corr[h] the factor that brings O and l from the old max to m.
  auto softmax = [&](int j, uint32_t (&pp)[BN / 16][4]) {
    const int n0 = j * BN;
    if (n0 + BN > s || (CAUSAL && n0 + BN > m0 + rows + 16 * warp)) {  // a tile that crosses an edge
#pragma unroll
      for (int i = 0; i < 64; i++) {
        const int col = n0 + 8 * (i / 4) + 2 * (lane % 4) + i % 2;
        if (col >= s || (CAUSAL && col > r_lo + 8 * ((i % 4) / 2))) acc_s[i] = -inf;
      }
    }
    // BEGIN EXERCISE
    // HINT: The online softmax of day 12, now on a wgmma accumulator fragment: each thread holds parts of two
    // HINT: rows, and four threads share each row. Which values must those four agree on before anyone
    // HINT: exponentiates, and what must a row that has seen only masked (-inf) scores still produce?
    // HINT2: Per row h of the thread: its own row max, then the quad's; the new running max, in the log2-scaled
    // HINT2: units of scale_log2; the correction factor for the old O and l; then every pair of S values
    // HINT2: exponentiated (one FFMA into ptx_exp2: MUFU.EX2), summed, and packed as one fp16x2 register of P's
    // HINT2: A fragment; last, l advanced.
    // HINT3: P reuses the S accumulator layout as wgmma's register A fragment: the pair (i, i + 1) is on row
    // HINT3: h = (i % 4) / 2 of 8-column group i / 4; a k16 step spans two such groups, so the pair
    // HINT3: becomes register 2 * ((i / 4) % 2) + h of k16 step (i / 4) / 2. A row with no finite score keeps
    // HINT3: m = -inf: subtract 0 instead of m then, or -inf - (-inf) makes NaN.
    // STUB: corr[0] = corr[1] = 1.f; (void)pp; (void)scale_log2;
    float mx[2] = {-inf, -inf}, sum[2] = {0.f, 0.f}, base[2];
#pragma unroll
    for (int i = 0; i < 64; i++) mx[(i % 4) / 2] = fmaxf(mx[(i % 4) / 2], acc_s[i]);
#pragma unroll
    for (int h = 0; h < 2; h++) {
      mx[h] = fmaxf(mx[h], __shfl_xor_sync(0xffffffff, mx[h], 1));
      mx[h] = fmaxf(mx[h], __shfl_xor_sync(0xffffffff, mx[h], 2));
      const float m_new = fmaxf(m_run[h], mx[h] * scale_log2);
      base[h] = m_new == -inf ? 0.f : m_new;
      corr[h] = ptx_exp2(m_run[h] - base[h]);
      m_run[h] = m_new;
    }
#pragma unroll
    for (int i = 0; i < 64; i += 2) {
      const int h = (i % 4) / 2;
      const float e0 = ptx_exp2(fmaf(acc_s[i], scale_log2, -base[h]));
      const float e1 = ptx_exp2(fmaf(acc_s[i + 1], scale_log2, -base[h]));
      sum[h] += e0 + e1;
      pp[(i / 4) / 2][2 * ((i / 4) % 2) + h] = course::mma::pack2<half>(e0, e1);
    }
#pragma unroll
    for (int h = 0; h < 2; h++) l_run[h] = l_run[h] * corr[h] + sum[h];
    // END EXERCISE
  };
  // Ping-pong: named barriers 8 and 9 (256 threads: this warpgroup's bar.sync and the other's bar.arrive).
  const int mine = warpgroup == 1 ? 8 : 9, other = warpgroup == 1 ? 9 : 8;
  auto my_turn = [&]() { named_barrier_sync(mine, 256); };
  auto pass_turn = [&]() { asm volatile("bar.arrive %0, 256;\n" ::"r"(other) : "memory"); };

  // BEGIN EXERCISE
  // HINT: Two things can hide the softmax: inside a warpgroup, the next S and this P V can be on the tensor
  // HINT: cores while the softmax of the next S runs; across warpgroups, one computes its softmax while the
  // HINT: other's GEMMs run. What must a turn contain, which wgmma_wait lets P V run on, and who goes first?
  // HINT2: Three parts. A prologue: S_0 and its softmax. A steady state per tile: one turn issuing the next S
  // HINT2: and this P V; wait until only P V is pending; the next tile's softmax into the other P buffer; wait
  // HINT2: for everything; release the stage; rescale O. An epilogue: the last P V in a turn of its own, the
  // HINT2: final release. Every issue sits between my_turn() and pass_turn(); the turns must balance (one
  // HINT2: warpgroup passes a first turn before, the other a last one after). Two P buffers alternate: unroll
  // HINT2: by two rather than copy them.
  // HINT3: Why O is rescaled after the full wait: the corr of S_{j+1}'s softmax applies to O including P_j V_j,
  // HINT3: which is in acc_o only once that group is done; touching acc_o while its wgmma is in flight is a race
  // HINT3: (the emulator names the accumulator). Accumulator i of O is on row (i % 4) / 2. The turn balance:
  // HINT3: warpgroup 2 arrives once on barrier 8 before its first turn and warpgroup 1 passes once more after
  // HINT3: its last, or one side's final bar.sync waits forever.
  // STUB: (void)my_turn; (void)pass_turn; (void)p_next;  // one warpgroup at a time, no overlap: correct, slow
  // STUB: for (int j = 0; j < tiles; j++) {
  // STUB:   issue_s(j); wgmma_wait<0>(); softmax(j, p);
  // STUB:   for (int i = 0; i < D / 2; i++) acc_o[i] = acc_o[i] * corr[(i % 4) / 2];
  // STUB:   issue_pv(j, p); wgmma_wait<0>(); if (tid == 0) mbarrier_arrive(&sh.empty[j % STAGES]);
  // STUB: }
  auto step = [&](int j, uint32_t (&pc)[BN / 16][4], uint32_t (&pn)[BN / 16][4]) {
    my_turn();
    issue_s(j + 1);
    issue_pv(j, pc);
    pass_turn();
    wgmma_wait<1>();
    softmax(j + 1, pn);
    wgmma_wait<0>();
    if (tid == 0) mbarrier_arrive(&sh.empty[j % STAGES]);
#pragma unroll
    for (int i = 0; i < D / 2; i++) acc_o[i] *= corr[(i % 4) / 2];
  };
  if (warpgroup == 2) asm volatile("bar.arrive 8, 256;\n" ::: "memory");
  my_turn();
  issue_s(0);
  pass_turn();
  wgmma_wait<0>();
  softmax(0, p);
  int j = 0;
  for (; j + 2 < tiles; j += 2) {
    step(j, p, p_next);
    step(j + 1, p_next, p);
  }
  if (j + 1 < tiles) {
    step(j, p, p_next);
    my_turn();
    issue_pv(j + 1, p_next);
  } else {
    my_turn();
    issue_pv(j, p);
  }
  if (warpgroup == 1) pass_turn();
  wgmma_wait<0>();
  if (tid == 0) mbarrier_arrive(&sh.empty[(tiles - 1) % STAGES]);
  // END EXERCISE

  // The epilogue: l summed over the quad, O / l stored as fp16 pairs; rows past the sequence skipped.
#pragma unroll
  for (int h = 0; h != 2; h++) {
    l_run[h] += __shfl_xor_sync(0xffffffff, l_run[h], 1);
    l_run[h] += __shfl_xor_sync(0xffffffff, l_run[h], 2);
  }
#pragma unroll
  for (int i = 0; i < D / 2; i += 2) {
    const int h = (i % 4) / 2, row = r_lo + 8 * h, col = 8 * (i / 4) + 2 * (lane % 4);
    if (row >= s) continue;
    const float inv = 1.f / l_run[h];
    *reinterpret_cast<uint32_t*>(o + static_cast<int64_t>(row0 + row) * D + col) =
        course::mma::pack2<half>(acc_o[i] * inv, acc_o[i + 1] * inv);
  }
}

}  // namespace

#define COURSE_ATTENTION(name, D, CAUSAL)                                                              \
  extern "C" __global__ void __launch_bounds__(384, 1)                                                 \
      name(const __grid_constant__ TensorMap tq, const __grid_constant__ TensorMap tk,                 \
           const __grid_constant__ TensorMap tv, half* o, int s, float scale_log2) {                   \
    attention<D, CAUSAL>(&tq, &tk, &tv, o, s, scale_log2);                                             \
  }
COURSE_ATTENTION(attention_wgmma_d64, 64, false)
COURSE_ATTENTION(attention_wgmma_d64_causal, 64, true)
COURSE_ATTENTION(attention_wgmma_d128, 128, false)
COURSE_ATTENTION(attention_wgmma_d128_causal, 128, true)
