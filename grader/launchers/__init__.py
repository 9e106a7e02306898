"""Launch code of the course's kernels that more than the day teaching them uses: the day-14 API
(`grader.jit.ops`), the day modules, the tools. It imports only what is below the exercises (device,
paths, the JIT), never an exercise module, so each day module and `grader.jit.ops` import it.

    gemm.py     day 10's GEMM: its configuration (course/gemm.cuh's Config) and launch
    decode.py   day 11's decode attention over a contiguous KV cache
    prefill.py  day 12's batch prefill (ragged or paged KV), which day 13's attention variants share
    rope.py     day 13's RoPE family: a specialisation rendered by the JIT, and its launch
"""
