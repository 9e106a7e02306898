// Your exercise file. Generated from solutions/day08/ragged.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: b0ba011fe7859800
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
    // TODO: your code here.
    //   Hint: The callback is asked once per tile, in order, for the tile's prefix: what is it, and what must
    //   Hint: the functor remember for the next tile?
    return 0;
  }
};

// The sequence that packed row `row` (0 <= row < indptr[batch]) belongs to: the largest i with
// indptr[i] <= row, so empty sequences (indptr[i] == indptr[i + 1]) are skipped.
COURSE_INLINE int find_sequence(const int* indptr, int batch, int64_t row) {
  // TODO: your code here.
  //   Hint: indptr is sorted: how do you find the last entry <= row in about log2(batch) reads?
  return 0;
}

}  // namespace

// One block walks the lengths a tile at a time; RunningTotal carries the total across tiles.
extern "C" __global__ void __launch_bounds__(BLOCK)
build_indptr(const int* __restrict__ lengths, int* __restrict__ indptr, int batch) {
  __shared__ BlockScan::TempStorage temp;
  RunningTotal running{0};
  // TODO: your code here.
  //   Hint: indptr[1:] is which scan of the lengths? With one block and any batch size, how is the total of
  //   Hint: earlier tiles carried into each tile's scan?
}

// One block per sequence: each thread sums a strided share of its rows, then cub::BlockReduce.
extern "C" __global__ void __launch_bounds__(BLOCK)
segment_sum(const float* __restrict__ values, const int* __restrict__ indptr, float* __restrict__ sums) {
  __shared__ BlockReduce::TempStorage temp;
  const course::ragged::RowRange rows = course::ragged::row_range(indptr, blockIdx.x);
  float acc = 0.f;
  // TODO: your code here.
  //   Hint: One block per sequence: how do 256 threads share a sequence's rows, and what does an empty
  //   Hint: sequence write?
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
  //   Hint: Row `row` of out: which selected sequence does it belong to, which of that sequence's rows is
  //   Hint: it, and where is that row in data?
}
