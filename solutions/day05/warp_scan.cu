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
  // BEGIN EXERCISE
  // HINT: Hillis-Steele in five steps: for offset = 1, 2, 4, 8, 16, each lane adds the value of the
  // HINT: lane `offset` below it (if there is one). After the step with offset o, lane i holds the sum
  // HINT: of the 2o values ending at i. (course::warp_inclusive_scan is the finished version: compare
  // HINT: afterwards; calling it here is refused.)
  // HINT2: up = __shfl_up_sync(0xffffffff, v, offset) (lane i gets lane i - offset's v); then
  // HINT2: if (lane >= offset) v += up;
  // HINT3: every lane must execute the shuffle, also those that discard its result: keep the
  // HINT3: __shfl_up_sync outside the `if (lane >= offset)`.
  // STUB: return v;  // this lane's own value only: wrong
#pragma unroll
  for (int offset = 1; offset < 32; offset *= 2) {
    const int up = __shfl_up_sync(course::FULL_MASK, v, offset);
    if (course::lane_id() >= offset) v += up;
  }
  return v;
  // END EXERCISE
}

}  // namespace

extern "C" __global__ void warp_scan(const int* __restrict__ x, int* __restrict__ out, int rows, int d) {
  // BEGIN EXERCISE
  // HINT: lane = the thread's lane (course::lane_id()), row = global thread id / 32 (one warp per row);
  // HINT: a warp past the last row returns as a whole; in and o point at the row.
  const int lane = course::lane_id();
  const int64_t row = course::global_thread_id() / 32;  // the same in all 32 lanes of a warp
  if (row >= rows) return;  // whole warps leave together: the shuffles below see all 32 lanes
  const int* in = x + row * d;
  int* o = out + row * d;
  // END EXERCISE
  // BEGIN EXERCISE
  // HINT: int carry = 0; for (int c = 0; c < d; c += 32): every lane loads in[c + lane], or 0 past
  // HINT: the end (all 32 lanes must reach the shuffles, even in the last, partial chunk);
  // HINT: s = scan_chunk(v) + carry; write o[c + lane] = s where c + lane < d;
  // HINT: carry = __shfl_sync(0xffffffff, s, 31): the last lane's total, for the next chunk.
  // HINT3: const int s = scan_chunk(j < d ? in[j] : 0) + carry;  (the load is guarded, the scan is not)
  int carry = 0;
  for (int c = 0; c < d; c += 32) {
    const int j = c + lane;
    const int s = scan_chunk(j < d ? in[j] : 0) + carry;
    if (j < d) o[j] = s;
    carry = course::warp_broadcast(s, 31);
  }
  // END EXERCISE
}
