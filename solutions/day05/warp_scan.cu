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
  // BEGIN EXERCISE
  // HINT: If every lane adds the value of the lane just below it, what does each lane hold? What if it
  // HINT: then adds the value two lanes below? How many such steps until lane 31 holds all 32 values?
  // HINT2: Five steps with a doubling distance. In each, every lane fetches the value of the lane that
  // HINT2: far below it, and keeps the sum only if that lane exists.
  // HINT3: Every lane must execute the shuffle, also those that discard its result: a shuffle inside the
  // HINT3: condition would leave lanes out of an exchange whose member mask names all 32.
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
  // HINT: Which row does a warp own, and which warps have no row? Who may leave, and when?
  // HINT2: The lane, the warp's row (the same in all 32 lanes), an early exit for whole warps past the
  // HINT2: last row, and pointers to the row in x and out.
  const int lane = course::lane_id();
  const int64_t row = course::global_thread_id() / 32;  // the same in all 32 lanes of a warp
  if (row >= rows) return;  // whole warps leave together: the shuffles below see all 32 lanes
  const int* in = x + row * d;
  int* o = out + row * d;
  // END EXERCISE
  // BEGIN EXERCISE
  // HINT: scan_chunk handles 32 values. A row is longer: what must each chunk's scan know about the
  // HINT: chunks before it, and which lane holds that after the chunk is scanned?
  // HINT2: A loop over the row in chunks of 32: each lane loads its element (or the identity past the
  // HINT2: end), the chunk is scanned and offset by a running carry, lanes inside the row store, and the
  // HINT2: carry is updated from the chunk's last lane, broadcast to all lanes.
  // HINT3: Guard the load, not the scan: in the last, partial chunk the lanes past d bring 0 and still
  // HINT3: take part in every shuffle. The new carry is the last lane's value after adding the old carry.
  int carry = 0;
  for (int c = 0; c < d; c += 32) {
    const int j = c + lane;
    const int s = scan_chunk(j < d ? in[j] : 0) + carry;
    if (j < d) o[j] = s;
    carry = course::warp_broadcast(s, 31);
  }
  // END EXERCISE
}
