"""Emulator: divergence and reconvergence, loops, barriers, shuffles (every mode, clamps, segments),
vote, match, activemask, redux, and the deadlocks a GPU would hang on."""
import numpy as np
import pytest

from grader.emulator import EmulatorFault
from grader.emulator.testing import run_ptx

LANE = np.arange(32)


def test_if_else_reconverges():
    body = """
    setp.lt.u32 %p1, %r1, 16;
    @%p1 bra A;
    mov.u32 %r2, 1;
    bra.uni END;
A:  mov.u32 %r2, 2;
END:
    shfl.sync.idx.b32 %r3, %r2, 31, 31, -1;   // every lane sees lane 31's value: the warp is whole again
    mad.lo.s32 %r2, %r3, 10, %r2;"""
    np.testing.assert_array_equal(run_ptx(body), np.where(LANE < 16, 12, 11))


def test_loop_with_per_thread_trip_count():
    body = """
    mov.u32 %r2, 0;
    mov.u32 %r3, 0;
LOOP:
    setp.gt.u32 %p1, %r3, %r1;
    @%p1 bra DONE;
    add.s32 %r2, %r2, %r3;
    add.s32 %r3, %r3, 1;
    bra.uni LOOP;
DONE:
    shfl.sync.bfly.b32 %r4, %r2, 1, 31, -1;
    add.s32 %r2, %r2, %r4;"""
    tri = LANE * (LANE + 1) // 2
    np.testing.assert_array_equal(run_ptx(body), tri + tri[LANE ^ 1])


@pytest.mark.parametrize("mode, b, c, expected", [
    ("up", 3, 0, np.where(LANE >= 3, LANE - 3, LANE)),
    ("down", 3, 31, np.where(LANE + 3 <= 31, LANE + 3, LANE)),
    ("bfly", 5, 31, LANE ^ 5),
    ("idx", 7, 31, np.full(32, 7)),
    # width 8: c = ((32 - 8) << 8) | 7; segments of 8 lanes
    ("idx", 2, 0x1807, (LANE & ~7) | 2),
    ("down", 3, 0x1807, np.where((LANE & 7) + 3 <= 7, LANE + 3, LANE)),
    ("up", 3, 0x1800, np.where((LANE & 7) >= 3, LANE - 3, LANE)),
    ("bfly", 4, 0x181F, LANE ^ 4),
])
@pytest.mark.parametrize("registers", [False, True])
def test_shfl_modes(mode, b, c, expected, registers):
    """b and c as immediates (each lane's source worked out once) and in registers (per thread)."""
    if registers:
        body = f"mov.u32 %r5, {b}; mov.u32 %r6, {c}; shfl.sync.{mode}.b32 %r2|%p1, %r1, %r5, %r6, -1;"
    else:
        body = f"shfl.sync.{mode}.b32 %r2|%p1, %r1, {b}, {c}, -1;"
    np.testing.assert_array_equal(run_ptx(body, threads=64), np.tile(expected, 2) + np.repeat([0, 32], 32))
    valid = run_ptx(body + " selp.u32 %r2, 1, 0, %p1;", threads=64)  # up, down: not clamped to itself
    np.testing.assert_array_equal(valid, np.tile((expected != LANE) | (mode in ("idx", "bfly")), 2))


def test_shfl_by_some_warps_of_the_block():
    """Only the second and fourth warps shuffle (whole warps, constant offset: each lane's source worked
    out once); the others keep their value."""
    body = """
    mov.u32 %r2, 7;
    and.b32 %r3, %r1, 32;
    setp.eq.u32 %p1, %r3, 0;
    @%p1 bra $L_done;
    shfl.sync.down.b32 %r2|%p2, %r1, 2, 31, -1;
$L_done:"""
    tid = np.arange(128)
    odd = (tid // 32) % 2 == 1
    expected = np.where(odd, np.where(tid % 32 + 2 <= 31, tid + 2, tid), 7)
    np.testing.assert_array_equal(run_ptx(body, threads=128), expected)


def test_shfl_predicate_says_whether_the_source_was_valid():
    body = "shfl.sync.down.b32 %r3|%p1, %r1, 4, 31, -1; selp.u32 %r2, 1, 0, %p1;"
    np.testing.assert_array_equal(run_ptx(body), (LANE + 4 <= 31).astype(np.uint32))


def test_shfl_of_a_float_and_a_subset_mask():
    body = """
    setp.lt.u32 %p1, %r1, 16;
    mov.u32 %r2, 99;
    @!%p1 bra END;
    cvt.rn.f32.u32 %f1, %r1;
    mov.b32 %r3, %f1;
    shfl.sync.bfly.b32 %r4, %r3, 1, 31, 65535;
    mov.b32 %f2, %r4;
    cvt.rzi.u32.f32 %r2, %f2;
END:"""
    np.testing.assert_array_equal(run_ptx(body), np.where(LANE < 16, LANE ^ 1, 99))


def test_vote_and_ballot():
    body = """
    and.b32 %r3, %r1, 1;
    setp.eq.u32 %p1, %r3, 1;
    vote.sync.ballot.b32 %r4, %p1, -1;
    vote.sync.any.pred %p2, %p1, -1;
    vote.sync.all.pred %p3, %p1, -1;
    vote.sync.uni.pred %p4, %p2, -1;
    selp.u32 %r5, 1, 0, %p2;
    selp.u32 %r6, 2, 0, %p3;
    selp.u32 %r7, 4, 0, %p4;
    or.b32 %r8, %r5, %r6;
    or.b32 %r8, %r8, %r7;
    xor.b32 %r2, %r4, %r8;"""
    np.testing.assert_array_equal(run_ptx(body), np.full(32, 0xAAAAAAAA ^ (1 | 4)))


def test_activemask_in_a_branch_and_match_any():
    body = """
    setp.lt.u32 %p1, %r1, 10;
    mov.u32 %r2, 0;
    @!%p1 bra OTHER;
    activemask.b32 %r2;
    bra.uni END;
OTHER:
    and.b32 %r3, %r1, 3;
    match.any.sync.b32 %r2, %r3, -4096;     // lanes 12..31: same value every 4th lane
END:"""
    got = run_ptx(body)
    np.testing.assert_array_equal(got[:10], np.full(10, 0x3FF))
    expect = [sum(1 << j for j in range(12, 32) if j % 4 == i % 4) for i in range(12, 32)]
    np.testing.assert_array_equal(got[12:], expect)


def test_redux_sync():
    body = "redux.sync.add.s32 %r3, %r1, -1; redux.sync.max.u32 %r4, %r1, -1; add.s32 %r2, %r3, %r4;"
    np.testing.assert_array_equal(run_ptx(body, threads=64), np.r_[np.full(32, 496 + 31), np.full(32, 1520 + 63)])


SMEM = ".shared .align 4 .b8 smem[256];"


def test_bar_sync_orders_shared_memory_across_warps():
    body = """
    mov.u64 %rd6, smem;
    mul.wide.u32 %rd7, %r1, 4;
    add.s64 %rd8, %rd6, %rd7;
    st.shared.u32 [%rd8], %r1;
    bar.sync 0;
    sub.s32 %r3, 63, %r1;
    mul.wide.u32 %rd9, %r3, 4;
    add.s64 %rd10, %rd6, %rd9;
    ld.shared.u32 %r2, [%rd10];"""
    np.testing.assert_array_equal(run_ptx(body, threads=64, decls=SMEM), 63 - np.arange(64))


def test_barrier_reached_by_part_of_the_block_is_reported():
    body = """
    setp.lt.u32 %p1, %r1, 32;
    @%p1 bra SKIP;
    bar.sync 0;
SKIP:
    mov.u32 %r2, 0;"""
    with pytest.raises(EmulatorFault, match="barrier reached by only part of a block.*32 of the 64"):
        run_ptx(body, threads=64)


def test_shuffle_from_an_exited_lane_is_reported():
    body = """
    setp.lt.u32 %p1, %r1, 16;
    @%p1 bra END;
    shfl.sync.bfly.b32 %r2, %r1, 16, 31, -1;
    st.global.b32 [%rd3], %r2;
END:
    ret;"""
    with pytest.raises(EmulatorFault, match="reads lane 0, which does not execute this shuffle"):
        run_ptx(body, result=None)


@pytest.mark.filterwarnings("error")
def test_spin_wait_on_a_flag_set_later_in_the_code():
    """Warp 1 spins on a shared flag that warp 0 sets in code placed after the loop: the scheduler must
    let warp 0 run (smallest-PC-first alone would spin forever)."""
    body = """
    mov.u64 %rd6, smem;
    setp.eq.u32 %p3, %r1, 0;
    @%p3 st.shared.u32 [%rd6], 0;
    bar.sync 0;
    setp.lt.u32 %p1, %r1, 32;
    @%p1 bra PRODUCER;
SPIN:
    ld.volatile.shared.u32 %r3, [%rd6];
    setp.eq.u32 %p2, %r3, 0;
    @%p2 bra SPIN;
    mov.u32 %r2, %r3;
    bra.uni END;
PRODUCER:
    st.volatile.shared.u32 [%rd6], 7;
    mov.u32 %r2, 1;
END:"""
    np.testing.assert_array_equal(run_ptx(body, threads=64, decls=SMEM), np.r_[np.ones(32), np.full(32, 7)])
    # (volatile accesses signal on purpose: no race is reported)


def test_uneven_block_has_a_partial_last_warp():
    body = "vote.sync.ballot.b32 %r2, 1, -1;"
    got = run_ptx(body, threads=40)
    np.testing.assert_array_equal(got, np.r_[np.full(32, 0xFFFFFFFF), np.full(8, 0xFF)])


CALLS = """
.func (.param .b32 func_retval0) twice(.param .b32 twice_param_0, .param .b32 twice_param_1)
{
    .reg .b32 %r<4>;
    .reg .pred %p<2>;
    ld.param.u32 %r1, [twice_param_0];
    ld.param.u32 %r2, [twice_param_1];
    mov.u32 %r3, 0;
LOOP:
    setp.eq.u32 %p1, %r2, 0;
    @%p1 bra DONE;
    add.s32 %r3, %r3, %r1;
    sub.s32 %r2, %r2, 1;
    bra.uni LOOP;
DONE:
    st.param.b32 [func_retval0+0], %r3;
    ret;
}
"""
CALLER = """
    mov.u32 %r2, 1000;
    and.b32 %r3, %r1, 1;
    setp.eq.u32 %p1, %r3, 0;
    @%p1 bra SKIP;
    {
    .param .b32 param0;
    st.param.b32 [param0+0], %r1;
    .param .b32 param1;
    st.param.b32 [param1+0], %r1;
    .param .b32 retval0;
    call.uni (retval0), twice, (param0, param1);
    ld.param.b32 %r2, [retval0+0];
    }
SKIP:
    shfl.sync.bfly.b32 %r4, %r2, 1, 31, -1;
    add.s32 %r2, %r2, %r4;"""


def test_call_of_a_function_not_inlined_divergent_with_a_loop():
    """Odd lanes call t -> t * t (a loop of t additions); even lanes skip; all meet at the shuffle."""
    sq = np.where(LANE % 2 == 1, LANE * LANE, 1000)
    np.testing.assert_array_equal(run_ptx(CALLER, module_decls=CALLS), sq + sq[LANE ^ 1])
