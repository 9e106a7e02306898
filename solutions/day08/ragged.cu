// Day 8, exercise 4: ragged batches in the indptr layout (course/ragged.cuh).
//
//   build_indptr  grid = (1,), block = (256,):   indptr[0] = 0, indptr[i + 1] = lengths[0] + ... + lengths[i]
//   segment_sum   grid = (batch,), block = (256,): sums[i] = sum of values[indptr[i] .. indptr[i + 1])
//   gather_rows   grid = (ceil(out_rows / 8),), block = (256,): a new packed batch made of the
//                 sequences ids[0], ids[1], ... of `data` (repeats allowed), with its indptr out_indptr:
//                 rows out_indptr[k] .. out_indptr[k + 1] of `out` are the rows of sequence ids[k].
//
// Lengths can be 0: an empty sequence has no rows, its sum is 0 and it adds nothing to `out`.
// CUB's block primitives are allowed here (the includes below). The test: batches of 1 to 5000
// sequences, lengths 0 to 5000, row widths d from 1 to 128; indptr and the gathered rows exactly,
// the sums within float32 tolerance.
#include <cub/block/block_load.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_store.cuh>

#include <course/ragged.cuh>

namespace {

constexpr int BLOCK = 256;  // the grader launches exactly this many threads per block
constexpr int ITEMS = 4;    // build_indptr: lengths per thread and tile
constexpr int TILE = BLOCK * ITEMS;
constexpr int WARPS = BLOCK / 32;

using BlockScan = cub::BlockScan<int, BLOCK>;
using BlockReduce = cub::BlockReduce<float, BLOCK>;

// build_indptr's prefix callback: BlockScan calls it from warp 0 with the tile's total and adds what
// lane 0 returns to every output of the tile. One block walks the tiles in order, so the prefix of a
// tile is the running total of the tiles before it (course::RunningPrefix is the finished one).
struct RunningTotal {
  int total;
  __device__ int operator()(int tile_total) {
    // BEGIN EXERCISE
    // HINT: The callback is asked once per tile, in order, for the tile's prefix: what is it, and what must
    // HINT: the functor remember for the next tile?
    // HINT2: Return the total so far, after moving the stored total past this tile.
    // STUB: return 0;
    const int prefix = total;
    total += tile_total;
    return prefix;
    // END EXERCISE
  }
};

// The sequence that packed row `row` (0 <= row < indptr[batch]) belongs to: the largest i with
// indptr[i] <= row, so empty sequences (indptr[i] == indptr[i + 1]) are skipped.
COURSE_INLINE int find_sequence(const int* indptr, int batch, int64_t row) {
  // BEGIN EXERCISE
  // HINT: indptr is sorted: how do you find the last entry <= row in about log2(batch) reads?
  // HINT2: A binary search that keeps the answer inside [lo, hi]: probe the middle, keep the upper half
  // HINT2: when its entry is <= row, else the lower half, until one index is left.
  // HINT3: Round the middle UP: when lo moves to mid, rounding down would never move lo once hi = lo + 1,
  // HINT3: and the loop would never end. Among equal indptr values (empty sequences) the largest index
  // HINT3: wins, which is the non-empty sequence that owns the row.
  // STUB: return 0;
  int lo = 0, hi = batch - 1;
  while (lo < hi) {
    const int mid = lo + (hi - lo + 1) / 2;
    if (static_cast<int64_t>(indptr[mid]) <= row) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return lo;
  // END EXERCISE
}

}  // namespace

// One block walks the lengths a tile at a time; RunningTotal carries the total across tiles.
extern "C" __global__ void __launch_bounds__(BLOCK)
build_indptr(const int* __restrict__ lengths, int* __restrict__ indptr, int batch) {
  __shared__ BlockScan::TempStorage temp;
  RunningTotal running{0};
  // BEGIN EXERCISE
  // HINT: indptr[1:] is which scan of the lengths? With one block and any batch size, how is the total of
  // HINT: earlier tiles carried into each tile's scan?
  // HINT2: indptr[0] written once. Then a loop over tiles of TILE lengths: load blocked (0 past the end),
  // HINT2: an inclusive block scan with the running-total callback, store blocked below the end, a
  // HINT2: barrier before the next tile reuses the scan's storage.
  // HINT3: cub's direct blocked load and store (LoadDirectBlocked, StoreDirectBlocked) take the number of
  // HINT3: valid items, so a partial last tile neither reads nor writes past batch; the output is shifted
  // HINT3: by one (indptr + 1).
  if (threadIdx.x == 0) indptr[0] = 0;
  for (int base = 0; base < batch; base += TILE) {
    const int valid = min(TILE, batch - base);
    int len[ITEMS];
    cub::LoadDirectBlocked(threadIdx.x, lengths + base, len, valid, 0);
    BlockScan(temp).InclusiveSum(len, len, running);
    cub::StoreDirectBlocked(threadIdx.x, indptr + 1 + base, len, valid);
    __syncthreads();
  }
  // END EXERCISE
}

// One block per sequence: each thread sums a strided share of its rows, then cub::BlockReduce.
extern "C" __global__ void __launch_bounds__(BLOCK)
segment_sum(const float* __restrict__ values, const int* __restrict__ indptr, float* __restrict__ sums) {
  __shared__ BlockReduce::TempStorage temp;
  const course::ragged::RowRange rows = course::ragged::row_range(indptr, blockIdx.x);
  float acc = 0.f;
  // BEGIN EXERCISE
  // HINT: One block per sequence: how do 256 threads share a sequence's rows, and what does an empty
  // HINT: sequence write?
  // HINT2: A block-strided loop over the sequence's rows into each thread's accumulator, then one block
  // HINT2: reduction; one thread writes the sum (also 0 for an empty sequence).
  for (int64_t i = rows.begin + threadIdx.x; i < rows.end; i += BLOCK) acc += values[i];
  const float total = BlockReduce(temp).Sum(acc);
  if (threadIdx.x == 0) sums[blockIdx.x] = total;
  // END EXERCISE
}

// One warp per row of `out`: which selected sequence the row belongs to comes from a binary search
// of out_indptr (find_sequence above), so long and short sequences share the work evenly.
extern "C" __global__ void __launch_bounds__(BLOCK)
gather_rows(const float* __restrict__ data, const int* __restrict__ indptr, const int* __restrict__ ids,
            const int* __restrict__ out_indptr, float* __restrict__ out, int num_ids, int64_t out_rows,
            int d) {
  const int64_t row = static_cast<int64_t>(blockIdx.x) * WARPS + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (row >= out_rows) return;
  // BEGIN EXERCISE
  // HINT: Row `row` of out: which selected sequence does it belong to, which of that sequence's rows is
  // HINT: it, and where is that row in data?
  // HINT2: find_sequence in out_indptr gives the selection k; the row's offset inside it; the source row
  // HINT2: of data from indptr of ids[k]; the warp copies the d floats, lanes striding across the row.
  // HINT3: Form the row offsets in 64 bits (rows * d can pass 2^31) and let lane l take floats l, l + 32,
  // HINT3: ... so the warp's loads and stores are contiguous.
  const int k = find_sequence(out_indptr, num_ids, row);
  const int64_t src = indptr[ids[k]] + (row - out_indptr[k]);
  for (int c = lane; c < d; c += 32) out[row * d + c] = data[src * d + c];
  // END EXERCISE
}
