// day08/ragged.cuh: the course's find_sequence (day 8, exercise 4), which course/ragged.cuh gives later
// kernels over ragged batches.
#pragma once
#include <course/common.cuh>

namespace course {
namespace ragged {

// The sequence that packed row `row` (0 <= row < indptr[batch]) belongs to: the largest i with
// indptr[i] <= row, so empty sequences (indptr[i] == indptr[i + 1]) are skipped. Binary search:
// about log2(batch) reads of indptr, which stays in L1/L2 when many threads search it.
template <typename IdType>
COURSE_INLINE int find_sequence(const IdType* indptr, int batch, int64_t row) {
  int lo = 0, hi = batch - 1;  // the answer lies in [lo, hi]
  while (lo < hi) {
    const int mid = lo + (hi - lo + 1) / 2;
    if (static_cast<int64_t>(indptr[mid]) <= row) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return lo;
}

}  // namespace ragged
}  // namespace course
