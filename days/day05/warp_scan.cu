// Your exercise file. Generated from solutions/day05/warp_scan.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: 00513e0198f80d46
// Day 5, exercise 1: an inclusive prefix sum (scan) of each row, one warp per row.
//
//   x, out: [rows, d] int32       out[r, j] = x[r, 0] + x[r, 1] + ... + x[r, j]
//
// Turning lengths into offsets (indptr, day 8), or counts into output positions (exercise 3), is
// this scan. A warp walks its row in chunks of 32: lane l takes element c + l, the 32 lanes scan the
// chunk with shfl_up in five steps, add the carry (the sum of all earlier chunks), and the last lane's
// result, broadcast with shfl_idx, becomes the carry of the next chunk. No shared memory, no barrier.
// The grader launches block = (256,) (8 warps, 8 rows) and grid = (ceil(rows / 8),).
#include <course/warp.cuh>

namespace {

// Inclusive scan of one value per lane over the warp (all 32 lanes call it).
COURSE_INLINE int scan_chunk(int v) {
  // TODO: your code here.
  //   Hint: Hillis-Steele in five steps: for offset = 1, 2, 4, 8, 16, each lane adds the value of the
  //   Hint: lane `offset` below it (if there is one). After the step with offset o, lane i holds the sum
  //   Hint: of the 2o values ending at i. (course::warp_inclusive_scan is the finished version: compare
  //   Hint: afterwards; calling it here is refused.)
  return v;  // this lane's own value only: wrong
}

}  // namespace

extern "C" __global__ void warp_scan(const int* __restrict__ x, int* __restrict__ out, int rows, int d) {
  // TODO: your code here.
  //   Hint: lane = the thread's lane (course::lane_id()), row = global thread id / 32 (one warp per row);
  //   Hint: a warp past the last row returns as a whole; in and o point at the row.
  // TODO: your code here.
  //   Hint: int carry = 0; for (int c = 0; c < d; c += 32): every lane loads in[c + lane], or 0 past
  //   Hint: the end (all 32 lanes must reach the shuffles, even in the last, partial chunk);
  //   Hint: s = scan_chunk(v) + carry; write o[c + lane] = s where c + lane < d;
  //   Hint: carry = __shfl_sync(0xffffffff, s, 31): the last lane's total, for the next chunk.
}
