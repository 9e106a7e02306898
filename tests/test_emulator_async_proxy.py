"""The emulator's model of the async proxy (grader/emulator/ordering.py): TMA, cp.async and wgmma as the
hardware orders them. Each planted kernel has one ordering mistake that a GPU may or may not punish on a
given run (the emulator completes a TMA load at issue, so its results are often right); the emulator must
name it, with the source lines. Small kernels first, then the course's Hopper solutions with one change
each (the `planted` fixture grades them as the exercise). test_emulator_tma.py and test_emulator_wgmma.py
hold the rest: a box read with no wait, wrong expect_tx bytes (a deadlock), stores without
fence.proxy.async before a wgmma, A registers written after wgmma.fence, no wgmma.fence at all (its
accumulators written before the first mma_async)."""
import re

import numpy as np
import pytest

from grader import emulator
from grader.paths import SOLUTIONS
from test_emulator_tma import KERNEL as TMA_KERNEL, _reference, _run

# ---- small kernels --------------------------------------------------------------------------------

# load_tile (test_emulator_tma.py) with one thread waiting on the mbarrier, then optionally a barrier
ONE_WAITS = (TMA_KERNEL
             .replace("#ifndef NO_WAIT\n  asm volatile(", "#ifndef NO_WAIT\n  if (threadIdx.x == 0) asm volatile(")
             .replace("#endif\n  for (int i = threadIdx.x;", "#endif\n#ifdef SYNC\n  __syncthreads();\n#endif\n"
                                                         "  for (int i = threadIdx.x;"))

BULK_1D = r"""
#include <course/common.cuh>
COURSE_REQUIRE_ARCH_SPECIFIC(90);
// Thread 0 copies 1024 bytes with cp.async.bulk, expecting `expect` bytes on the mbarrier.
extern "C" __global__ void bulk_1d(const int4* src, int4* out, int expect) {
  __shared__ alignas(128) int4 buf[64];
  __shared__ alignas(8) unsigned long long bar;
  unsigned b = (unsigned)__cvta_generic_to_shared(&bar), s = (unsigned)__cvta_generic_to_shared(buf);
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(b) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(b), "r"(expect) : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], 1024, [%2];"
                 :: "r"(s), "l"(src), "r"(b) : "memory");
  }
#ifndef NO_WAIT
  asm volatile("{ .reg .pred p; W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0; @!p bra W; }"
               :: "r"(b) : "memory");
  out[threadIdx.x] = buf[threadIdx.x];
#endif
}
"""

CP_ASYNC = r"""
// Each thread copies 16 bytes with cp.async and reads its neighbour's (after a barrier).
extern "C" __global__ void cp_early(const int4* src, int4* out) {
  __shared__ int4 buf[64];
  unsigned s = (unsigned)__cvta_generic_to_shared(&buf[threadIdx.x]);
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(s), "l"(src + threadIdx.x) : "memory");
  asm volatile("cp.async.commit_group;" ::: "memory");
#ifndef NO_WAIT
  asm volatile("cp.async.wait_group 0;" ::: "memory");
#endif
  __syncthreads();
  out[threadIdx.x] = buf[(threadIdx.x + 1) % 64];
}
"""


def test_a_thread_that_did_not_wait_may_not_read_the_box(tmp_path):
    path = tmp_path / "tma.cu"
    path.write_text(ONE_WAITS.replace("__half", "unsigned short"))
    mod = emulator.load(path, ("-DROWS=16", "-DCOLS=24"))
    a = np.arange(16 * 24, dtype=np.uint16).reshape(16, 24)
    with pytest.raises(emulator.EmulatorFault, match=r"read before the mbarrier wait: .*tma.cu:\d+ by block "
                                                     r"\(0, 0, 0\) thread \(1, 0, 0\).*never waited for phase 0"):
        _run(mod, a, (16, 24), 0, 0, 0)


def test_a_barrier_after_one_thread_waited_makes_the_box_visible(tmp_path):
    path = tmp_path / "tma.cu"
    path.write_text(ONE_WAITS.replace("__half", "unsigned short"))
    mod = emulator.load(path, ("-DROWS=16", "-DCOLS=24", "-DSYNC"))
    a = np.arange(16 * 24, dtype=np.uint16).reshape(16, 24)
    np.testing.assert_array_equal(_run(mod, a, (16, 24), 0, 0, 0), _reference(a, (16, 24), 0, 0))


def _bulk(tmp_path, expect, options=()):
    path = tmp_path / "bulk.cu"
    path.write_text(BULK_1D)
    mod = emulator.load(path, options)
    src = emulator.DeviceArray.from_host(np.arange(256, dtype=np.int32))
    out = emulator.DeviceArray.from_host(np.zeros(256, np.int32))
    mod.get_function("bulk_1d")((1,), (64,), (src, out, np.int32(expect)))
    return out.get()


def test_a_1d_bulk_copy_lands(tmp_path):
    np.testing.assert_array_equal(_bulk(tmp_path, 1024), np.arange(256))


def test_expected_bytes_that_never_arrive_are_named_at_the_end(tmp_path):
    """Nobody waits, so nothing deadlocks: the kernel ends with 1024 of 2048 expected bytes."""
    with pytest.raises(emulator.EmulatorFault, match=r"(?s)transaction bytes never arrived: .*initialised by "
                                                     r".*bulk.cu:\d+.*expected 2048 bytes .*expect_tx.*bulk.cu:\d+.*"
                                                     r"got 1024"):
        _bulk(tmp_path, 2048, ("-DNO_WAIT",))


def _cp(tmp_path, options=()):
    path = tmp_path / "cp.cu"
    path.write_text(CP_ASYNC)
    mod = emulator.load(path, options)
    src = emulator.DeviceArray.from_host(np.arange(256, dtype=np.int32))
    out = emulator.DeviceArray.from_host(np.zeros(256, np.int32))
    mod.get_function("cp_early")((1,), (64,), (src, out))
    return out.get()


def test_cp_async_bytes_after_the_wait_and_a_barrier(tmp_path):
    np.testing.assert_array_equal(_cp(tmp_path), np.roll(np.arange(256), -4))


def test_cp_async_bytes_read_before_the_wait_are_named(tmp_path):
    with pytest.raises(emulator.EmulatorFault, match=r"read before cp.async.wait_group: .*cp.cu:\d+.*the cp.async "
                                                     r".*cp.cu:\d+"):
        _cp(tmp_path, ("-DNO_WAIT",))


# ---- the course's solutions, one change each ------------------------------------------------------

SMALL16 = [{"heads": 2, "seq": 200, "head_dim": 64, "causal": False}]
LONG_K = [{"m": 1, "n": 8, "k": 584, "dtype": "float16"}]  # more k slices than stages: stages are refilled


def plant(day: str, name: str, old: str, new: str) -> str:
    text = (SOLUTIONS / day / name).read_text()
    assert old in text, f"the planted change no longer applies: {old!r}"
    return text.replace(old, new)


def pingpong_only(text: str) -> str:
    """Day 16's file with rung 3's kernels alone (what attention_wgmma launches): a third of the compile."""
    for line in ("COURSE_RUNG(attention_wgmma_serial, SERIAL)\n", "COURSE_RUNG(attention_wgmma_overlap, OVERLAP)\n"):
        assert line in text, line
        text = text.replace(line, "")
    return text


def line_of(day: str, name: str, needle: str) -> int:
    return (SOLUTIONS / day / name).read_text().split(needle)[0].count("\n") + 1


def test_day16_without_the_q_wait_is_named(planted):
    """No consumer waits on q_full: the first S = Q K^T reads the Q tile whenever K and V land first (the
    race the H100 showed in 2 of 3 full runs, which the emulator passed before)."""
    text = pingpong_only(plant("day16", "attention_wgmma.cu", "  mbarrier_wait(&sh.q_full, 0);", ""))
    msg = planted("day16", "attention_wgmma", text, cases=SMALL16)
    init = line_of("day16", "attention_wgmma.cu", "mbarrier_init(&sh.q_full")
    load = line_of("day16", "attention_wgmma.cu", "tma_load_2d(sh.q ")
    assert msg and "read before the mbarrier wait: `wgmma.mma_async" in msg, msg
    assert f"attention_wgmma.cu:{load} " in msg and f"initialised by `mbarrier.init" in msg, msg
    assert f"attention_wgmma.cu:{init} " in msg and "never waited for phase 0" in msg, msg
    assert "mbarrier_wait(&bar, 0)" in msg, msg


def test_day16_stage_released_before_its_wgmma_retired_is_named(planted):
    """The consumer releases K/V stage j before wgmma_wait<0> retired P_j V_j, which reads V_j: the
    producer may refill it under the tensor cores (5 tiles of keys, 3 stages)."""
    text = pingpong_only(plant("day16", "attention_wgmma.cu",
                               "      wgmma_wait<0>();\n      if (tid == 0) mbarrier_arrive(&sh.empty[j % STAGES]);\n",
                               "      if (tid == 0) mbarrier_arrive(&sh.empty[j % STAGES]);\n      wgmma_wait<0>();\n"))
    msg = planted("day16", "attention_wgmma", text, cases=[{**SMALL16[0], "heads": 1, "seq": 600}])
    assert msg and "a stage overwritten while a wgmma still reads it" in msg, msg
    assert "cp.async.bulk.tensor" in msg and "wgmma.mma_async" in msg, msg


def test_day15_stage_released_before_its_wgmma_retired_is_named(planted):
    text = plant("day15", "gemm_persistent.cu",
                 "      wgmma_wait<1>();\n      if (previous >= 0 && tid == 0) mbarrier_arrive(&s.empty[previous]);\n",
                 "      if (tid == 0) mbarrier_arrive(&s.empty[stage]);\n      wgmma_wait<1>();\n")
    msg = planted("day15", "gemm_persistent", text, cases=LONG_K)
    assert msg and "a stage overwritten while a wgmma still reads it" in msg, msg
    assert re.search(r"gemm_persistent.cu:\d+", msg), msg


def test_day15_tma_store_of_stores_without_the_proxy_fence_is_named(planted):
    text = plant("day15", "gemm_persistent.cu", "  fence_proxy_async();\n  named_barrier_sync(warpgroup, 128);\n",
                 "  named_barrier_sync(warpgroup, 128);\n")
    msg = planted("day15", "gemm_persistent", text, cases=LONG_K[:1])
    assert msg and "without fence.proxy.async" in msg and "the source of a TMA store" in msg, msg


def test_day15_tma_store_before_the_barrier_is_named(planted):
    text = plant("day15", "gemm_persistent.cu", "  fence_proxy_async();\n  named_barrier_sync(warpgroup, 128);\n",
                 "  fence_proxy_async();\n")
    msg = planted("day15", "gemm_persistent", text, cases=LONG_K[:1])
    assert msg and "no barrier after the stores" in msg and "the source of a TMA store" in msg, msg


def test_day15_wgmma_on_stores_without_the_proxy_fence_is_named(planted):
    text = plant("day15", "wgmma_tile.cu", '    asm volatile("fence.proxy.async.shared::cta;\\n" ::: "memory");\n', "")
    msg = planted("day15", "wgmma_tile", text, cases=[{"count": 1, "k": 64, "dtype": "float16"}])
    assert msg and "without fence.proxy.async" in msg and re.search(r"wgmma_tile.cu:\d+", msg), msg
