// Day 13, exercises 3 and 4: attention variants, the small pieces of CUDA that FlashInfer's
// `define_variant` renders into its attention kernels.
//
// The JIT renders a variant into day 12's batch prefill (kernels/templates/attention_variant.cu.jinja,
// grader/launchers/variants.py): this file's text comes first, then a struct whose
//   bool visible(int q_pos, int key, int qo_head)
// body calls one of the functions below. The kernel asks it for every score of every tile, on top of
// its own causal mask, and a key it hides gets no weight. q_pos is the query's position in its
// request's KV (a request's queries are its last qo_len tokens: q_pos = i + kv_len - qo_len for query
// i), key is the key's position, both from 0. The variants that use this file (grader/exercises/day13.py):
//   CHUNKED   = define_variant("chunked",   mask="return day13::chunked_visible(q_pos, key, chunk);", ...)
//   PREFIX_LM = define_variant("prefix_lm", mask="return day13::prefix_lm_visible(q_pos, key, prefix);", ...)
// The functions run for every score: keep them to a few integer operations, no loops, no memory.

namespace day13 {

// Chunked attention (Llama 4's local layers): the KV is cut into chunks of `chunk` tokens, [0, chunk),
// [chunk, 2 chunk), ...; a query sees only the keys of its own chunk. Run with causal: within its chunk a
// query sees the keys up to itself.
__device__ __forceinline__ bool chunked_visible(int q_pos, int key, int chunk) {
  // BEGIN EXERCISE
  // HINT: A query sees a key iff both lie in the same chunk of `chunk` positions (the kernel adds its causal
  // HINT: rule). What number identifies a position's chunk?
  // HINT2: Compute that number for the key and for the query, and compare.
  // HINT3: Positions are >= 0, so C's integer division rounds down and gives the chunk index directly; a
  // HINT3: negative position would need a floor division.
  // STUB: return false;  // hides every key: replace
  return key / chunk == q_pos / chunk;
  // END EXERCISE
}

// Prefix-LM (T5's and PaliGemma's decoder): the first `prefix` tokens (an image, a prompt) attend to each
// other both ways; every token after them is causal. Run WITHOUT the kernel's causal mask: this mask
// alone decides, so it must say both what the prefix sees and what the tokens after it see.
__device__ __forceinline__ bool prefix_lm_visible(int q_pos, int key, int prefix) {
  // BEGIN EXERCISE
  // HINT: Every query sees the whole prefix, even the prefix keys after itself; past the prefix, the causal
  // HINT: rule. Which two conditions, and how are they joined?
  // HINT2: Two conditions, either suffices. Check both ends: a query inside the prefix, a query after it.
  // HINT3: The first condition covers the bidirectional prefix (key before `prefix`), the second the causal
  // HINT3: part (key not after the query); there is no third case.
  // STUB: return false;  // hides every key: replace
  return key < prefix || key <= q_pos;
  // END EXERCISE
}

}  // namespace day13

// Compiled on its own, the file holds one kernel: the table of a mask over positions [0, n) x [0, n),
// out[q_pos * n + key] = visible (variant 0: chunked_visible, 1: prefix_lm_visible, with `param`). The
// grader compares it with numpy before any attention runs, so a wrong mask is named by its (q_pos, key).
extern "C" __global__ void mask_table(unsigned char* out, int n, int variant, int param) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n * n; i += gridDim.x * blockDim.x) {
    const int q_pos = i / n, key = i % n;
    out[i] = variant == 0 ? day13::chunked_visible(q_pos, key, param) : day13::prefix_lm_visible(q_pos, key, param);
  }
}
