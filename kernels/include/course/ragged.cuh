// course/ragged.cuh: ragged batches in the indptr (CSR) layout (day 8; the KV layouts of days 11-12).
//
// A batch of sequences of different lengths is stored packed, row after row, with no padding:
//
//   data:   [nnz, d]       the rows of sequence 0, then those of sequence 1, ...
//   indptr: [batch + 1]    indptr[0] = 0, indptr[i + 1] = indptr[i] + length[i], nnz = indptr[batch]
//
// so sequence i is rows indptr[i] .. indptr[i + 1] - 1 (none if it is empty). indptr is the exclusive
// prefix sum of the lengths, with the total appended. FlashInfer stores ragged K/V this way
// (BatchPrefillWithRaggedKVCache) and pages of a paged KV cache too (kv_indptr into kv_indices).
//
// Two ways to share the work: one block (or warp) per sequence, with row_range; or one thread (warp)
// per packed row, which balances long and short sequences, with find_sequence to learn whose row it is.
#pragma once
#include "common.cuh"

namespace course {
namespace ragged {

// The packed rows [begin, end) of one sequence.
struct RowRange {
  int64_t begin, end;
  COURSE_INLINE int64_t size() const { return end - begin; }
};

template <typename IdType>
COURSE_INLINE RowRange row_range(const IdType* indptr, int64_t i) {
  return {static_cast<int64_t>(indptr[i]), static_cast<int64_t>(indptr[i + 1])};
}

}  // namespace ragged
}  // namespace course

// find_sequence(indptr, batch, row): the sequence that packed row `row` (0 <= row < indptr[batch])
// belongs to, the largest i with indptr[i] <= row (empty sequences skipped), in about log2(batch)
// reads of indptr, is day 8's exercise 4: the course's version comes from day 8's headers.
#if __has_include(<day08/ragged.cuh>)
#include <day08/ragged.cuh>
#else
namespace course {
namespace ragged {
template <typename IdType> COURSE_INLINE int find_sequence(const IdType*, int, int64_t) {
  COURSE_LOCKED(IdType, "course::ragged::find_sequence", "day08", "ragged.cu");
  return 0;
}
}  // namespace ragged
}  // namespace course
#endif
