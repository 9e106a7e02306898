"""Day 15 self-check (Hopper, sm_90a). Your kernels: `pytest days/day15`; the course's: `pytest days/day15 --solutions`.

How to read the output:
- On a GPU that is not an sm_90 (Hopper) one the checks skip with that sentence; without a GPU the
  emulator runs them, and names a missing wgmma.fence, an accumulator read before wgmma.wait_group, a
  descriptor whose swizzle disagrees with the layout it reads, a box read before the mbarrier wait, or
  an expect_tx byte count that never completes, each with your source line.
- wgmma_tile compares D = A @ B^T + D with float64 numpy by the norm of the error, allowing fp32
  accumulation error that grows with K (grader/references/tolerances.py: accumulate_tolerance). A wrong
  swizzle or descriptor gives errors of order 1; "still hold the NaN poison" means outputs never written.
- tma_copy compares every 16-bit pattern exactly, at sizes whose last boxes cross the matrix's edge
  (33 x 72, 129 x 1000): the TMA unit fills the outside with zeros, your stores must stop at the edge.
- gemm_wgmma computes C = A @ B^T (B [N, K]: a linear layer's weight) at sizes that are not multiples of
  its 128 x 128 tile (1 x 8 x 8, 129 x 136 x 200), with fp32 accumulation checked as on day 10; a
  producer that reuses a stage before the consumers released it, or a consumer that waits on the wrong
  phase, shows up as wrong values or as an mbarrier the emulator names as never completing.
- gemm_persistent checks its tile order alone first (tile_of: every tile once, in grouped order, the
  first wrong tile named), then C = A @ B^T as gemm_wgmma, with grids smaller than the tile count, so
  each block takes several tiles: a ring phase not carried from tile to tile, or a store buffer written
  again before the previous tile's TMA store read it, shows up as wrong values.
- gemm_fp8 runs the same kernel on e4m3 inputs (day 10's per-tensor quantisation) with bf16 output,
  against the float64 product of the dequantised inputs: fp32 accumulation and one bf16 rounding.
- The technique is checked on the SASS for sm_90a: HGMMA for wgmma_tile; UTMALDG and SYNCS (the
  mbarrier) and no LDG for tma_copy; for gemm_wgmma HGMMA, UTMALDG, SYNCS and USETMAXREG, no LDG or
  HMMA, no spills; for gemm_persistent also UTMASTG (c stored by TMA, no STG) and
  WARPGROUP.DEPBAR.LE gsb0, 0x1 (one wgmma group in flight); for gemm_fp8 QGMMA.64x256x32 E4M3.
The checks themselves are in grader/exercises/day15.py.
"""
from grader.day_tests import exercise_tests

globals().update(exercise_tests("day15", perf={
    "tma_copy": "bandwidth", "gemm_wgmma": "throughput", "gemm_persistent": "throughput", "gemm_fp8": "throughput"}))
