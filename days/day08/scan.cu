// Your exercise file. Generated from solutions/day08/scan.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: 8be21339d805f915
// Day 8, exercise 2: a single-pass exclusive prefix sum of int32, with CUB's block primitives and a
// decoupled look-back between blocks.
//
//   out[i] = in[0] + ... + in[i - 1]   (out[0] = 0),  in, out: [n] int32
//   grid = (ceil(n / TILE),), block = (256,), TILE = 256 * 16 items
//   tile_status: [grid] uint64, tile_counter: [1] uint32, both zeroed by the grader before each launch
//
// One block scans one tile: cub::BlockLoad brings 16 consecutive items into each thread's registers
// (coalesced, through shared memory: BLOCK_LOAD_WARP_TRANSPOSE), cub::BlockScan computes the tile's
// exclusive sums, cub::BlockStore writes them back. What the tile must add is the sum of all earlier
// tiles: BlockScan asks for it through a prefix callback, the decoupled look-back. You write that
// callback (course::LookbackPrefix), the publication of the tile states it reads and claim_tile in
// scan.cuh beside this file, then the kernel here with them; exercise 3 (compact.cu) builds on your
// scan.cuh through course/scan.cuh, which is not to be included here.
//
//   lookback_i32  grid = (number of probed tiles,), block = (32,): the grader's probe of your
//                 look-back alone: block b runs it for tile tiles[b] with aggregate aggregates[b],
//                 against tile states the grader published beforehand in a random mix of aggregates
//                 and inclusive prefixes, as blocks finishing in any order leave them.
//
// The test: n from 1 to 2^24 + 5, compared exactly, and the probe. The SASS of exclusive_sum_i32 must
// show an atomic add (ATOMG.E.ADD), a warp vote (VOTE.ANY), a 64-bit release store and acquire load at
// GPU scope (STG.E.64.STRONG.GPU, LDG.E.64.STRONG.GPU) and no spills; the source inline PTX
// st.release.gpu.global and ld.acquire.gpu.global. The benchmark expects 70% of the copy bandwidth.
#include <cub/block/block_load.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_store.cuh>

#include "scan.cuh"

namespace {

constexpr int BLOCK = 256;  // the grader launches exactly this many threads per block
constexpr int ITEMS = 16;   // items per thread
constexpr int TILE = BLOCK * ITEMS;

using BlockLoad = cub::BlockLoad<int, BLOCK, ITEMS, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
using BlockStore = cub::BlockStore<int, BLOCK, ITEMS, cub::BLOCK_STORE_WARP_TRANSPOSE>;
using BlockScan = cub::BlockScan<int, BLOCK, cub::BLOCK_SCAN_WARP_SCANS>;

using Lookback = course::LookbackPrefix<int>;  // yours: scan.cuh
using WarpReduce = Lookback::WarpReduce;

}  // namespace

extern "C" __global__ void __launch_bounds__(BLOCK)
exclusive_sum_i32(const int* __restrict__ in, int* __restrict__ out, int64_t n,
                  unsigned long long* tile_status, unsigned* tile_counter) {
  __shared__ union {
    BlockLoad::TempStorage load;
    BlockScan::TempStorage scan;
    BlockStore::TempStorage store;
  } temp;
  __shared__ WarpReduce::TempStorage warp_temp;
  int items[ITEMS];
  // TODO: your code here.
  //   Hint: Claim, load, scan with your look-back as BlockScan's prefix callback, store. What must the
  //   Hint: last, partial tile do differently?
}

// The grader's probe of the look-back alone (given; not part of the exercise).
extern "C" __global__ void __launch_bounds__(BLOCK)
lookback_i32(unsigned long long* tile_status, const long long* __restrict__ tiles,
             const int* __restrict__ aggregates, int* __restrict__ exclusive) {
  __shared__ WarpReduce::TempStorage warp_temp;
  Lookback lookback(tile_status, tiles[blockIdx.x], warp_temp);
  const int prefix = lookback(aggregates[blockIdx.x]);
  if (threadIdx.x == 0) exclusive[blockIdx.x] = prefix;
}
