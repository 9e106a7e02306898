// Your exercise file. Generated from solutions/day16/attention_wgmma.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: f57f87e1c054843c
// Day 16: FlashAttention-3-style prefill on Hopper: TMA loads, wgmma for S = Q K^T and O += P V, built as a
// ladder of three schedules, each measured against the last: serial, overlapped inside a warpgroup, ping-pong.
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
//     above it), once: every rung calls it;
//   - three schedules, one per rung (RUNG, a template parameter: each rung has its own kernels). Each issues
//     every tile's S_j and P_j V_j once, rescales O to the running max before P_j V_j is added, and releases
//     each stage (one arrival per consumer warpgroup on its empty barrier) once no wgmma reads it any more:
//       1. attention_wgmma_serial_*: one tile at a time, every wgmma waited for before the next step;
//       2. attention_wgmma_overlap_*: in a warpgroup, the softmax of S_{j+1} runs while P_j V_j is still on
//          the tensor cores;
//       3. attention_wgmma_*: rung 2, and across warpgroups GEMM issues take turns (named barriers), so one's
//          softmax runs while the other's GEMMs do (ping-pong).
// The tests: o against a float64 reference (fp16 tolerance), causal and not, s not a multiple of 128. The
// technique, in each rung's kernels' SASS: HGMMA, UTMALDG, SYNCS and MUFU.EX2, no LDG or HMMA, no spills;
// rung 2 adds WARPGROUP.DEPBAR.LE gsb0, 0x1 (one wgmma group left in flight during the softmax), rung 3
// adds BAR.ARV (the turns) to that.
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
constexpr int SERIAL = 1, OVERLAP = 2, PINGPONG = 3;  // the rungs: the consumers' schedule
constexpr float SLACK = 4.f;  // log2 units a row's running max may lag its scores' max (softmax, below)

template <int D>
struct Shared {
  half q[BM * D];  // D / 64 column blocks of BM x 64 (128-byte rows, 128-byte swizzle)
  half k[STAGES][BN * D];
  half v[STAGES][BN * D];
  uint64_t q_full, full[STAGES], empty[STAGES];
};

template <int D, bool CAUSAL, int RUNG>
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
    setmaxnreg_dec<24>();  // 24 x 128 + 240 x 256 registers: the 64K of the SM
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

  setmaxnreg_inc<240>();  // the consumers: O, S and two P buffers live at once while P V runs (rung 2)
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
    // q0 read afresh each tile (a shuffle ptxas neither hoists nor merges): otherwise ptxas keeps the
    // D / 16 Q descriptors in registers across the loop, registers that rung 2's overlap needs.
    const uint32_t qa = __shfl_sync(0xffffffff, q0, 0);
    wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < D / 16; kk++) {  // column block kk / 4, 32 bytes per k16 step inside it; the first
      wgmma_m64n128k16<half>(acc_s, make_descriptor(qa + (kk / 4) * BM * 128 + 32 * (kk % 4)),  // overwrites
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
  // m_run[h] moves only when the tile's max exceeds it by more than SLACK, so corr[h] is exactly 1 on most
  // tiles (the schedules then skip O's rescale at d 128: on the H100 99% -> 102% of cuDNN; at d 64 the
  // vote's branch cost more than its 32 multiplications, 96% -> 90%, so there O is always rescaled);
  // O / l stays exact, and every P is at most 2^SLACK.
  auto softmax = [&](int j, uint32_t (&pp)[BN / 16][4]) {
    const int n0 = j * BN;
    if (n0 + BN > s || (CAUSAL && n0 + BN > m0 + rows + 16 * warp)) {  // a tile that crosses an edge
      int last[2];  // per row h: the last key it sees, in columns past this thread's first of the tile
#pragma unroll
      for (int h = 0; h < 2; h++) last[h] = (CAUSAL ? min(s - 1, r_lo + 8 * h) : s - 1) - n0 - 2 * (lane % 4);
#pragma unroll
      for (int i = 0; i < 64; i++) {  // column n0 + 8 (i / 4) + 2 (lane % 4) + i % 2
        if (8 * (i / 4) + i % 2 > last[(i % 4) / 2]) acc_s[i] = -inf;
      }
    }
    // TODO: your code here.
    //   Hint: The online softmax of day 12, now on a wgmma accumulator fragment: each thread holds parts of two
    //   Hint: rows, and four threads share each row. Which values must those four agree on before anyone
    //   Hint: exponentiates, and what must a row that has seen only masked (-inf) scores still produce?
    corr[0] = corr[1] = 1.f; (void)pp; (void)scale_log2;
    // Given: a branch on l, which the exponentials feed, never taken (l is never the NaN 0xffffffff). ptxas
    // schedules inside a basic block and moves a wgmma wait to the top of its block: without this edge the
    // caller's next wgmma_wait<0> lands right after the masking and every MUFU.EX2 runs after P_{j-1} V_{j-1}
    // retired (rung 2's overlap lost; seen in the SASS). Row 1's l alone at d 128 causal: both rows pinned
    // there leave ptxas one register short (a spill); row 0's exponentials then overlap in one step of two.
    const float pinned = CAUSAL && D == 128 ? l_run[1] : l_run[0] + l_run[1];
    if (__float_as_uint(pinned) == 0xffffffffu) asm volatile("fence.acq_rel.cta;" ::: "memory");
  };
  if constexpr (RUNG == SERIAL) {
    // Rung 1, serial: for each tile j in order, S_j, its softmax, O rescaled, P_j V_j, the stage released;
    // each wgmma group waited for (wgmma_wait<0>) before anything reads its accumulators or registers.
    // TODO: your code here.
    //   Hint: Write the loop over the tiles as day 12's, now with asynchronous GEMMs: which results must have
    //   Hint: landed before the softmax may read S, before O may be rescaled, and before the producer may
    //   Hint: refill a stage? How many threads of a warpgroup arrive on the empty barrier?
    (void)p; (void)p_next;  // the two P buffers (A fragments), yours to use
  } else if constexpr (RUNG == OVERLAP) {
    // Rung 2, overlapped in the warpgroup: S_{j+1} and P_j V_j issued together, the softmax of S_{j+1}
    // running while P_j V_j is still in flight (wgmma_wait<1>: WARPGROUP.DEPBAR.LE gsb0, 0x1), so P_{j+1}
    // needs a buffer of its own; O rescaled and stage j released only once P_j V_j is retired.
    // TODO: your code here.
    //   Hint: The tensor cores idle while the SFU runs the softmax. Which GEMM does not depend on the softmax
    //   Hint: you are about to compute, so that it can run during it? wgmma groups retire in the order they
    //   Hint: were committed: which wait lets you read S_{j+1} while P_j V_j keeps going?
  } else {
    // Rung 3, ping-pong: rung 2's schedule, and every wgmma issue of a warpgroup inside its turn (between
    // my_turn() and pass_turn()), the turns alternating between the two consumer warpgroups, so that one's
    // softmax runs while the other's GEMMs do. Named barriers 8 and 9 (256 threads: this warpgroup's bar.sync
    // and the other's bar.arrive); the turns must balance, or a final bar.sync waits forever.
    const int mine = warpgroup == 1 ? 8 : 9, other = warpgroup == 1 ? 9 : 8;
    auto my_turn = [&]() { named_barrier_sync(mine, 256); };
    auto pass_turn = [&]() { asm volatile("bar.arrive %0, 256;\n" ::"r"(other) : "memory"); };

    // TODO: your code here.
    //   Hint: Rung 2 hides the softmax behind one warpgroup's own P V; the other warpgroup's GEMMs can hide it
    //   Hint: too, if the two never issue at the same time. What must a turn contain, where does it end, and
    //   Hint: who goes first?
  }

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

#define COURSE_ATTENTION(name, D, CAUSAL, RUNG)                                                        \
  extern "C" __global__ void __launch_bounds__(384, 1)                                                 \
      name(const __grid_constant__ TensorMap tq, const __grid_constant__ TensorMap tk,                 \
           const __grid_constant__ TensorMap tv, half* o, int s, float scale_log2) {                   \
    attention<D, CAUSAL, RUNG>(&tq, &tk, &tv, o, s, scale_log2);                                       \
  }
#define COURSE_RUNG(prefix, RUNG)                                  \
  COURSE_ATTENTION(prefix##_d64, 64, false, RUNG)                  \
  COURSE_ATTENTION(prefix##_d64_causal, 64, true, RUNG)            \
  COURSE_ATTENTION(prefix##_d128, 128, false, RUNG)                \
  COURSE_ATTENTION(prefix##_d128_causal, 128, true, RUNG)
COURSE_RUNG(attention_wgmma_serial, SERIAL)
COURSE_RUNG(attention_wgmma_overlap, OVERLAP)
COURSE_RUNG(attention_wgmma, PINGPONG)
