// Your exercise file. Generated from solutions/day08/ragged.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: ebc010457f8462d3
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
    // TODO: your code here.
    //   Hint: return the total before this tile, and move the total past the tile.
    return 0;
  }
};

// The sequence that packed row `row` (0 <= row < indptr[batch]) belongs to: the largest i with
// indptr[i] <= row, so empty sequences (indptr[i] == indptr[i + 1]) are skipped.
COURSE_INLINE int find_sequence(const int* indptr, int batch, int64_t row) {
  // TODO: your code here.
  //   Hint: binary search over indptr[0 .. batch - 1], which is sorted: about log2(batch) reads, which
  //   Hint: stay in L1/L2 when a whole grid searches the same indptr.
  return 0;
}

}  // namespace

// One block walks the lengths a tile at a time; RunningTotal carries the total across tiles.
extern "C" __global__ void __launch_bounds__(BLOCK)
build_indptr(const int* __restrict__ lengths, int* __restrict__ indptr, int batch) {
  __shared__ BlockScan::TempStorage temp;
  RunningTotal running{0};
  // TODO: your code here.
  //   Hint: indptr[1:] is the INCLUSIVE scan of the lengths: scan tile after tile, the callback adding
  //   Hint: the total of the tiles before; indptr[0] = 0 on its own.
}

// One block per sequence: each thread sums a strided share of its rows, then cub::BlockReduce.
extern "C" __global__ void __launch_bounds__(BLOCK)
segment_sum(const float* __restrict__ values, const int* __restrict__ indptr, float* __restrict__ sums) {
  __shared__ BlockReduce::TempStorage temp;
  const course::ragged::RowRange rows = course::ragged::row_range(indptr, blockIdx.x);
  float acc = 0.f;
  // TODO: your code here.
  //   Hint: a block-strided loop over the sequence's rows, then one block reduction; an empty
  //   Hint: sequence still writes its 0.
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
  // TODO: your code here.
  //   Hint: which selected sequence k the row belongs to (find_sequence in out_indptr), then where
  //   Hint: that row lives in data; the warp copies its d floats.
}
