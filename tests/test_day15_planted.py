"""Day 15: planted wrong kernels, each derived from the solution by one targeted change, must fail with a
message a student understands; the solutions pass. The mistakes of Hopper code: a descriptor whose swizzle
disagrees with the stores, a missing fence.proxy.async, a box read before the mbarrier wait, the wrong
expect_tx bytes, a stage reused before the consumers released it, a wait on the wrong phase, and the
technique skipped (mma.sync instead of wgmma, plain loads instead of TMA); in the persistent GEMM, a tile
order that is not grouped, a store buffer written before the previous TMA store read it, a ring restarted
at every tile, an epilogue that stores nothing, and no wgmma group left in flight."""
import pytest

from grader.paths import SOLUTIONS

DAY = SOLUTIONS / "day15"


def solution(name: str) -> str:
    return (DAY / name).read_text()


OWN = {"tma.cuh": solution("tma.cuh")}  # tma_copy.cu's header of mbarrier and TMA instructions


def plant(text: str, old: str, new: str) -> str:
    assert old in text, f"the planted change no longer applies: {old!r}"
    return text.replace(old, new)


@pytest.mark.parametrize("name", ["wgmma_tile", "tma_copy", "gemm_wgmma", "gemm_persistent"])
def test_solutions_pass(planted, name):
    assert planted("day15", name, solution(f"{name}.cu"), files=OWN) is None


def test_a_descriptor_without_the_swizzle_reads_the_wrong_elements(planted):
    text = plant(solution("wgmma_tile.cu"), "| (1ull << 62);\n  // END EXERCISE", ";\n  // END EXERCISE")
    msg = planted("day15", "wgmma_tile", text)
    assert msg and "wgmma_tile" in msg, msg


def test_stores_without_the_proxy_fence_are_named(planted):
    text = plant(solution("wgmma_tile.cu"), '    asm volatile("fence.proxy.async.shared::cta;\\n" ::: "memory");\n', "")
    msg = planted("day15", "wgmma_tile", text)
    assert msg and "fence.proxy.async" in msg, msg


def test_a_box_read_before_the_wait_is_named(planted):
    text = plant(solution("tma_copy.cu"), "  hp::mbarrier_wait(&bar, 0);\n", "")
    msg = planted("day15", "tma_copy", text, files=OWN)
    assert msg and "before" in msg and "mbarrier" in msg, msg


def test_the_wrong_expect_tx_bytes_never_complete(planted):
    text = plant(solution("tma_copy.cu"), "(&bar, BOX_BYTES);", "(&bar, BOX_BYTES / 2);")
    msg = planted("day15", "tma_copy", text, files=OWN)
    assert msg and "mbarrier" in msg, msg


def test_tma_copy_with_plain_loads_fails_on_the_technique(planted):
    start = solution("tma_copy.cu").index("  if (threadIdx.x == 0) {\n    hp::mbarrier_init")
    end = solution("tma_copy.cu").index("  // END EXERCISE", start)
    plain = ("  for (int i = threadIdx.x; i < BOX * BOX; i += blockDim.x) {\n"
             "    const int r = i / BOX, c = i % BOX, row = row0 + r, col = col0 + c;\n"
             "    tile[swizzled_offset(r, c) / 2] = 0;  // no global pointer to read from: the box is not loaded\n"
             "  }\n  __syncthreads();\n  (void)bar;\n")
    text = solution("tma_copy.cu")[:start] + plain + solution("tma_copy.cu")[end:]
    msg = planted("day15", "tma_copy", text, files=OWN)
    assert msg and "UTMALDG" in msg, msg


def test_a_stage_reused_before_it_was_emptied_is_caught(planted):
    """The producer overwrites a stage the consumers may still be reading: wrong results on the cases
    whose K needs more slices than there are stages (the emulator runs the producer ahead)."""
    text = plant(solution("gemm_wgmma.cu"),
                 "        if (i >= STAGES) mbarrier_wait(&s.empty[stage], ((i / STAGES) - 1) & 1);\n", "")
    msg = planted("day15", "gemm_wgmma", text)
    assert msg and "gemm_wgmma" in msg, msg


def test_a_consumer_waiting_on_the_wrong_phase_is_caught(planted):
    text = plant(solution("gemm_wgmma.cu"), "mbarrier_wait(&s.full[stage], (i / STAGES) & 1);",
                 "mbarrier_wait(&s.full[stage], 0);")
    msg = planted("day15", "gemm_wgmma", text)
    assert msg and "gemm_wgmma" in msg, msg


def test_a_tile_order_that_is_not_grouped_is_named(planted):
    text = plant(solution("gemm_persistent.cu"), "  tm = first + r % rows;\n  tn = r / rows;\n",
                 "  tm = t / tiles_n;\n  tn = t % tiles_n;\n  (void)first; (void)rows; (void)r;\n")
    msg = planted("day15", "gemm_persistent", text)
    assert msg and "tile_of(" in msg and "grouped order" in msg, msg


def test_a_store_buffer_written_before_the_store_read_it_is_named(planted):
    text = plant(solution("gemm_persistent.cu"), "  if (tid == 0) bulk_wait_group_read<0>();\n  named_barrier_sync",
                 "  named_barrier_sync")
    msg = planted("day15", "gemm_persistent", text)
    assert msg and "while a TMA store still reads it" in msg, msg


def test_a_ring_restarted_at_every_tile_is_caught(planted):
    """The consumers start each tile at stage 0, phase 0, while the producer carries on around the ring."""
    text = plant(solution("gemm_persistent.cu"), "    int previous = -1;", "    stage = 0, phase = 0;\n    int previous = -1;")
    msg = planted("day15", "gemm_persistent", text)
    assert msg and "gemm_persistent" in msg, msg


def test_an_epilogue_that_stores_nothing_is_caught(planted):
    start = solution("gemm_persistent.cu").index("  if (tid == 0) bulk_wait_group_read<0>();\n  named_barrier_sync")
    end = solution("gemm_persistent.cu").index("  // END EXERCISE", start)
    plain = "  (void)acc; (void)cs; (void)tma_c; (void)m0; (void)n0; (void)scale; (void)warp; (void)lane;\n"  # c: TMA only
    text = solution("gemm_persistent.cu")[:start] + plain + solution("gemm_persistent.cu")[end:]
    msg = planted("day15", "gemm_persistent", text)
    assert msg and "gemm_persistent" in msg, msg


def test_no_wgmma_group_in_flight_fails_on_the_technique(planted):
    text = plant(solution("gemm_persistent.cu"),
                 "      wgmma_wait<1>();\n      if (previous >= 0 && tid == 0) mbarrier_arrive(&s.empty[previous]);\n      previous = stage;\n",
                 "      wgmma_wait<0>();\n      if (tid == 0) mbarrier_arrive(&s.empty[stage]);\n")
    msg = planted("day15", "gemm_persistent", text)
    assert msg and "0x1" in msg, msg


def test_fp8_values_read_as_bf16_are_caught(planted):
    """The 16-bit wgmma on e4m3 bytes: exercise 4 still passes, exercise 5 fails."""
    text = plant(solution("gemm_persistent.cu"),
                 "  if constexpr (IS_FP8<T>) {\n    wgmma_m64k32_e4m3<BN>(acc, da, db);\n  } else {\n"
                 "    wgmma_m64k16<BN, T>(acc, da, db);\n  }\n", "  wgmma_m64k16<BN, T>(acc, da, db);\n")
    assert planted("day15", "gemm_persistent", text) is None
    msg = planted("day15", "gemm_fp8", text)
    assert msg and "gemm_persistent_e4m3" in msg, msg


def test_fp8_scales_left_out_are_caught(planted):
    text = plant(solution("gemm_persistent.cu"), "(scale * acc[j])", "(acc[j])")
    text = plant(text, "(scale * acc[j + 1])", "(acc[j + 1])")
    msg = planted("day15", "gemm_fp8", text)
    assert msg and "gemm_persistent_e4m3" in msg, msg
