// Day 8, exercise 4: ragged batches in the indptr layout (course/ragged.cuh).
//
//   build_indptr  grid = (1,), block = (256,):   indptr[0] = 0, indptr[i + 1] = lengths[0] + ... + lengths[i]
//   segment_sum   grid = (batch,), block = (256,): sums[i] = sum of values[indptr[i] .. indptr[i + 1])
//   gather_rows   grid = (ceil(out_rows / 8),), block = (256,): a new packed batch made of the
//                 sequences ids[0], ids[1], ... of `data` (repeats allowed), with its indptr out_indptr:
//                 rows out_indptr[k] .. out_indptr[k + 1] of `out` are the rows of sequence ids[k].
//
// Lengths can be 0: an empty sequence has no rows, its sum is 0 and it adds nothing to `out`.
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
    // HINT: return the total before this tile, and move the total past the tile.
    // HINT2: const int prefix = total; total += tile_total; return prefix;
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
  // HINT: binary search over indptr[0 .. batch - 1], which is sorted: about log2(batch) reads, which
  // HINT: stay in L1/L2 when a whole grid searches the same indptr.
  // HINT2: lo = 0, hi = batch - 1 (the answer lies in [lo, hi]); while (lo < hi):
  // HINT2: mid = lo + (hi - lo + 1) / 2; if (indptr[mid] <= row) lo = mid; else hi = mid - 1.
  // HINT3: round mid UP ((hi - lo + 1) / 2): with lo = mid, rounding down would never move lo
  // HINT3: when hi = lo + 1, and the loop would never end. Among equal indptr values (empty
  // HINT3: sequences) the largest index wins, which is the non-empty sequence that owns the row.
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
  // HINT: indptr[1:] is the INCLUSIVE scan of the lengths: scan tile after tile, the callback adding
  // HINT: the total of the tiles before; indptr[0] = 0 on its own.
  // HINT2: thread 0 writes indptr[0] = 0. Then for base = 0, TILE, 2 * TILE, ... < batch:
  // HINT2:   int len[ITEMS]; cub::LoadDirectBlocked(threadIdx.x, lengths + base, len, valid, 0)
  // HINT2:   (valid = min(TILE, batch - base); thread t gets lengths base + t * ITEMS ...; 0 past the end);
  // HINT2:   BlockScan(temp).InclusiveSum(len, len, running): the running total of earlier tiles is added;
  // HINT2:   cub::StoreDirectBlocked(threadIdx.x, indptr + 1 + base, len, valid);
  // HINT2:   __syncthreads() before the next tile reuses temp.
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
  // HINT: a block-strided loop over the sequence's rows, then one block reduction; an empty
  // HINT: sequence still writes its 0.
  // HINT2: for (i = rows.begin + threadIdx.x; i < rows.end; i += BLOCK) acc += values[i];
  // HINT2: then total = BlockReduce(temp).Sum(acc) (valid in thread 0 only), and thread 0 writes
  // HINT2: sums[blockIdx.x].
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
  // HINT: which selected sequence k the row belongs to (find_sequence in out_indptr), then where
  // HINT: that row lives in data; the warp copies its d floats.
  // HINT2: k = find_sequence(out_indptr, num_ids, row): row is row (row - out_indptr[k])
  // HINT2: of sequence ids[k], which is packed row src = indptr[ids[k]] + (row - out_indptr[k]) of data.
  // HINT2: The warp copies the d floats: out[row * d + c] = data[src * d + c] for c = lane, lane + 32, ...
  const int k = find_sequence(out_indptr, num_ids, row);
  const int64_t src = indptr[ids[k]] + (row - out_indptr[k]);
  for (int c = lane; c < d; c += 32) out[row * d + c] = data[src * d + c];
  // END EXERCISE
}
