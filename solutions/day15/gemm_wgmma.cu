// Day 15, exercise 3: the warp-specialised Hopper GEMM: TMA loads into a ring of stages, wgmma on them.
//
//   c = a @ b^T   a: [m, k], b: [n, k] (the layout of a linear layer's weight), c: [m, n], all row-major;
//                 T = half or __nv_bfloat16 in and out, accumulated in float; k a multiple of 8
//
// One block of three warpgroups (384 threads) per 128 x 128 tile of c: grid = (ceil(n / 128), ceil(m / 128)).
// Warpgroup 0 is the PRODUCER: one of its threads keeps STAGES slices in flight, each the 128 x 64 boxes of
// a and of b for one 64-wide step of k, loaded by TMA into shared memory (the 128-byte swizzle) and counted
// on that stage's FULL mbarrier. Warpgroups 1 and 2 are the CONSUMERS, rows 0-63 and 64-127 of the tile:
// they compute on a stage once it is full and give it back through its EMPTY mbarrier (count: 2, one
// arrival per consumer warpgroup) once the tensor cores are done with it. Stage s serves slices s,
// s + STAGES, s + 2 STAGES, ...; an mbarrier wait names the parity of the phase completion it waits for.
// You write the producer's and the consumers' loop bodies. The test: c against a float64 reference within
// the accumulation tolerance, awkward m, n, k included; the technique: HGMMA, UTMALDG, SYNCS, USETMAXREG in
// the SASS, no LDG and no HMMA, no spills.
#include <course/hopper/tma.cuh>
#include <course/hopper/wgmma.cuh>
COURSE_REQUIRE_ARCH_SPECIFIC(90);

namespace {

using namespace course::hopper;

constexpr int BM = 128, BN = 128, BK = 64;  // the tile of c, and k per stage (64 elements = 128 bytes)
constexpr int STAGES = 4;
constexpr int CONSUMERS = 2;                 // warpgroups that compute, 64 rows of the tile each
constexpr uint32_t STAGE_BYTES = (BM + BN) * BK * 2;

template <typename T>
struct Shared {
  T a[STAGES][BM * BK];  // each 16 KB, 1024-byte aligned: the swizzle atom
  T b[STAGES][BN * BK];
  uint64_t full[STAGES], empty[STAGES];
};

template <typename T>
__device__ void gemm(const TensorMap* tma_a, const TensorMap* tma_b, T* __restrict__ c, int m, int n, int k) {
  extern __shared__ __align__(1024) unsigned char raw[];
  Shared<T>& s = *reinterpret_cast<Shared<T>*>(raw + ((1024 - smem_address(raw) % 1024) % 1024));
  const int warpgroup = threadIdx.x / 128, tid = threadIdx.x % 128;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN, slices = (k + BK - 1) / BK;
  if (threadIdx.x == 0) {
    for (int i = 0; i < STAGES; i++) {
      mbarrier_init(&s.full[i], 1);           // the producer's arrive (with the bytes)
      mbarrier_init(&s.empty[i], CONSUMERS);  // one arrive per consumer warpgroup
    }
    fence_mbarrier_init();
  }
  __syncthreads();

  if (warpgroup == 0) {  // the producer
    setmaxnreg_dec<40>();
    if (tid == 0) {
      for (int i = 0; i < slices; i++) {
        const int stage = i % STAGES;
        // BEGIN EXERCISE
        // HINT: A stage may be refilled only after both consumers have released it, and its FULL barrier must
        // HINT: know how many bytes to wait for. Which completion of the stage's EMPTY barrier says it is free?
        // HINT2: For slice i: the first STAGES slices find their stage empty; a later one first waits on its stage's
        // HINT2: EMPTY barrier. Then one arrival on FULL announcing the stage's bytes, then the two TMA loads of the
        // HINT2: slice (a's rows of this tile, b's rows of this tile, the same k offset), both completing on FULL.
        // HINT2: The wrappers are in course/hopper/tma.cuh.
        // HINT3: Parity: the n-th completion of a barrier (counting from 0) has parity n % 2, and a wait names the
        // HINT3: parity of the completion it needs. Slice i is use number i / STAGES of its stage; it needs the
        // HINT3: consumers' release of the previous use, completion i / STAGES - 1 of EMPTY. Coordinates are
        // HINT3: innermost first: the k offset in elements, then the tile's first row (m0 for a, n0 for b).
        // STUB: (void)stage;
        if (i >= STAGES) mbarrier_wait(&s.empty[stage], ((i / STAGES) - 1) & 1);
        mbarrier_arrive_expect_tx(&s.full[stage], STAGE_BYTES);
        tma_load_2d(s.a[stage], tma_a, &s.full[stage], i * BK, m0);
        tma_load_2d(s.b[stage], tma_b, &s.full[stage], i * BK, n0);
        // END EXERCISE
      }
    }
    return;
  }

  setmaxnreg_inc<232>();  // the consumers
  const int rows = (warpgroup - 1) * 64;  // this warpgroup's rows of the tile
  float acc[64];
#pragma unroll
  for (int j = 0; j < 64; j++) acc[j] = 0.f;
  for (int i = 0; i < slices; i++) {
    const int stage = i % STAGES;
    // BEGIN EXERCISE
    // HINT: A consumer must not read a stage before its bytes have landed, and must not hand it back while the
    // HINT: tensor cores may still be reading it. Which barrier and parity guard the first, and when is the
    // HINT: stage really free?
    // HINT2: Per slice: wait on the stage's FULL barrier; point the descriptors at this warpgroup's 64 rows of the
    // HINT2: a stage and at the b stage; fence, the k16 steps of the slice, commit, wait for the group; then one
    // HINT2: thread of the warpgroup arrives on EMPTY (its count is the number of consumer warpgroups).
    // HINT3: The a stage holds 128 rows of 128 bytes in the swizzle: this warpgroup's rows start rows * 128 bytes
    // HINT3: in, a multiple of the 1024-byte atom, so its descriptors stay valid. Inside a stage the k16 step q
    // HINT3: is 32 q bytes along the rows. FULL is used once per STAGES slices: slice i waits for its completion
    // HINT3: number i / STAGES, parity (i / STAGES) % 2.
    // STUB: (void)stage;
    mbarrier_wait(&s.full[stage], (i / STAGES) & 1);
    const uint32_t a0 = smem_address(s.a[stage]) + rows * 128, b0 = smem_address(s.b[stage]);
    wgmma_fence();
#pragma unroll
    for (int q = 0; q < BK / 16; q++) wgmma_m64n128k16<T>(acc, make_descriptor(a0 + 32 * q), make_descriptor(b0 + 32 * q));
    wgmma_commit();
    wgmma_wait<0>();
    if (tid == 0) mbarrier_arrive(&s.empty[stage]);
    // END EXERCISE
  }
  // The epilogue: accumulator j of this thread is row 16 * warp + lane / 4 + 8 * ((j % 4) / 2), column
  // 8 * (j / 4) + 2 * (lane % 4) + j % 2 of the warpgroup's 64 x 128 block; stores guarded at the edge.
  const int warp = tid / 32, lane = tid % 32;
#pragma unroll
  for (int j = 0; j < 64; j += 2) {
    const int row = m0 + rows + 16 * warp + lane / 4 + 8 * ((j % 4) / 2);
    const int col = n0 + 8 * (j / 4) + 2 * (lane % 4);
    if (row >= m) continue;
    T* out = c + static_cast<int64_t>(row) * n + col;
    if (col < n) out[0] = course::from_float<T>(acc[j]);
    if (col + 1 < n) out[1] = course::from_float<T>(acc[j + 1]);
  }
}

}  // namespace

extern "C" __global__ void __launch_bounds__(384, 1) gemm_wgmma_f16(const __grid_constant__ TensorMap tma_a,
                                                                    const __grid_constant__ TensorMap tma_b,
                                                                    half* c, int m, int n, int k) {
  gemm(&tma_a, &tma_b, c, m, n, k);
}
extern "C" __global__ void __launch_bounds__(384, 1) gemm_wgmma_bf16(const __grid_constant__ TensorMap tma_a,
                                                                     const __grid_constant__ TensorMap tma_b,
                                                                     __nv_bfloat16* c, int m, int n, int k) {
  gemm(&tma_a, &tma_b, c, m, n, k);
}
