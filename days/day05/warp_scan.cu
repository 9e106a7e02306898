// Your exercise file. Generated from solutions/day05/warp_scan.cu by `python -m grader stubs`;
// edit freely: regenerating never overwrites a file you changed.
// stub-sha256: 866a4a01967e64fd
// Day 5, exercise 1: an inclusive prefix sum (scan) of each row, one warp per row.
//
//   x, out: [rows, d] int32       out[r, j] = x[r, 0] + x[r, 1] + ... + x[r, j]
//
// Turning lengths into offsets (indptr, day 8), or counts into output positions (exercise 4), is
// this scan. One warp owns a row of any length d (1, 31, 33, 4097 ...: rows longer than 32 and rows
// that end inside a warp's width), using register exchanges only: no shared memory, no barrier. The
// SASS must show shuffles (SHFL); course::warp_inclusive_scan, the finished version in
// course/warp.cuh, is refused here (compare with it afterwards). Compared exactly with numpy's cumsum.
// The grader launches block = (256,) (8 warps, 8 rows) and grid = (ceil(rows / 8),).
#include <course/warp.cuh>

namespace {

// Inclusive scan of one value per lane over the warp (all 32 lanes call it).
COURSE_INLINE int scan_chunk(int v) {
  // TODO: your code here.
  //   Hint: If every lane adds the value of the lane just below it, what does each lane hold? What if it
  //   Hint: then adds the value two lanes below? How many such steps until lane 31 holds all 32 values?
  return v;  // this lane's own value only: wrong
}

}  // namespace

extern "C" __global__ void warp_scan(const int* __restrict__ x, int* __restrict__ out, int rows, int d) {
  // TODO: your code here.
  //   Hint: Which row does a warp own, and which warps have no row? Who may leave, and when?
  // TODO: your code here.
  //   Hint: scan_chunk handles 32 values. A row is longer: what must each chunk's scan know about the
  //   Hint: chunks before it, and which lane holds that after the chunk is scanned?
}
