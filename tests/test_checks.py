"""The checks catch what they must, and say where."""
import numpy as np
import pytest

from grader import checks, device, technique


def test_exact_match_passes():
    x = np.linspace(-1, 1, 100, dtype=np.float32)
    checks.assert_close(x, x.astype(np.float64))


def _poisoned(n: int, dt: str) -> np.ndarray:
    return device.to_host(device.empty(n, dt), dt)


@pytest.mark.parametrize("dt", ["float32", "float16", "bfloat16", "float64"])
def test_nan_poison_is_reported_as_unwritten(dt):
    got = _poisoned(40, dt)
    got[:33] = 1
    with pytest.raises(AssertionError, match=r"7 of 40 elements still hold the NaN poison.*never written.*index 33"
                                             r".*seed 5") as info:
        checks.assert_close(got.astype(np.float64) if dt == "float16" else got, np.ones(40), name="c", seed=5)
    assert "computed" not in str(info.value)


@pytest.mark.parametrize("dt", ["float32", "float16", "bfloat16"])
def test_a_computed_nan_is_not_called_unwritten(dt):
    """0 x inf on a zero row (eps outside the square root): written, and NaN."""
    got = _poisoned(40, dt)
    got[:] = 1
    with np.errstate(invalid="ignore"):
        got[5:10] = np.float32(0) * np.float32(np.inf)
    got[20] = np.nan  # the CPU's NaN: the emulator's arithmetic makes it
    with pytest.raises(AssertionError) as info:
        checks.assert_close(got, np.ones(40), name="c", seed=5)
    msg = str(info.value)
    assert "6 of 40 elements are NaN the kernel computed" in msg and "index 5" in msg, msg
    assert "never written" not in msg


def test_both_kinds_of_nan_are_counted_first_wrong_first():
    got = _poisoned(10, "float32")
    got[:3] = 1
    with np.errstate(invalid="ignore"):
        got[1] = np.float32(0) * np.float32(np.inf)
    with pytest.raises(AssertionError) as info:
        checks.assert_close(got, np.ones(10), name="c")
    msg = str(info.value)
    assert msg.index("computed") < msg.index("never written"), msg
    assert "1 of 10 elements are NaN the kernel computed" in msg and "7 of 10 elements still hold" in msg


def test_wrong_value_reports_worst_index_expected_got_and_relative_error():
    expected = np.arange(1, 11, dtype=np.float64)
    got = expected.astype(np.float32)
    got[6] = 7.5
    with pytest.raises(AssertionError) as info:
        checks.assert_close(got, expected, name="out", seed=1)
    msg = str(info.value)
    assert "index 6" in msg and "expected 7" in msg and "got 7.5" in msg and "7.14e-02" in msg
    assert "COURSE_SEED=1" in msg


def test_two_dimensional_index():
    got = np.zeros((3, 4), np.float32)
    got[2, 1] = 1
    with pytest.raises(AssertionError, match=r"index \(2, 1\)"):
        checks.assert_close(got, np.zeros((3, 4)))


def test_inf_rejected():
    with pytest.raises(AssertionError, match="Inf"):
        checks.assert_close(np.array([np.inf], np.float32), np.array([1.0]))


def test_fp32_tolerance_is_tight():
    expected = np.full(10, 1.0)
    checks.assert_close((expected * (1 + 5e-6)).astype(np.float32), expected)
    with pytest.raises(AssertionError, match="rtol=1e-05"):
        checks.assert_close((expected * (1 + 5e-5)).astype(np.float32), expected)


@pytest.mark.parametrize("dt,ok,bad", [("float16", 5e-4, 3e-3), ("bfloat16", 4e-3, 3e-2)])
def test_half_types_by_norm(dt, ok, bad):
    rng = np.random.default_rng(0)
    expected = rng.standard_normal(1000)
    checks.assert_close((expected * (1 + ok)).astype(device.dtype(dt)), expected, dt=dt)
    with pytest.raises(AssertionError, match="relative error norm"):
        checks.assert_close((expected * (1 + bad)).astype(device.dtype(dt)), expected, dt=dt)


def test_shape_mismatch_and_integers():
    with pytest.raises(AssertionError, match="shape"):
        checks.assert_close(np.zeros(3), np.zeros(4))
    with pytest.raises(AssertionError, match="first at index 2: expected 3, got 4"):
        checks.assert_close(np.array([1, 2, 4]), np.array([1, 2, 3]))


def test_untouched_elements():
    got = np.array([np.nan, 2.0, np.nan])
    checks.assert_untouched(got, np.array([True, False, True]))
    with pytest.raises(AssertionError, match="must be left alone"):
        checks.assert_untouched(got, np.array([True, True, False]))


def test_seed_replay(monkeypatch):
    monkeypatch.setenv(checks.SEED_ENV, "1234")
    assert checks.new_seed() == 1234
    monkeypatch.setenv(checks.SEED_ENV, "abc")
    with pytest.raises(ValueError, match="COURSE_SEED='abc'"):
        checks.new_seed()


def test_unknown_dtype_is_named():
    with pytest.raises(ValueError, match="unknown dtype 'float8'"):
        device.dtype("float8")


def test_a_missing_technique_is_one_sentence():
    """Several instructions missing from one kernel: each named once, the reason said once."""
    from grader import exercises, paths

    ex = exercises.get("day10", "gemm_mma")
    found = technique.problems(paths.DAYS / "day10" / ex.source, ex.technique)
    msg = "; ".join(found)
    assert msg.count("this exercise is graded on") == len(ex.technique), msg
    assert "no HMMA" in msg and "no LDSM" in msg, msg


@pytest.mark.parametrize("dt", ["float32", "float16"])
def test_numbers_wrong_beside_the_nans_are_counted_too(dt):
    """A kernel writing one element off: element 0 never written, every other one shifted. The NaN
    story alone said '1 of 33 ... never written'; the shifted 32 are counted too, with the first."""
    expected = np.arange(1, 34, dtype=np.float64)
    got = _poisoned(33, dt)
    got[1:] = expected[:-1]
    with pytest.raises(AssertionError) as info:
        checks.assert_close(got, expected, name="c", seed=5)
    msg = str(info.value)
    assert "1 of 33 elements still hold the NaN poison" in msg, msg
    assert "other elements differ too: 32, the first at index 1: expected 2, got 1" in msg, msg
    got[1:] = expected[1:]
    with pytest.raises(AssertionError) as info:
        checks.assert_close(got, expected, name="c", seed=5)
    assert "differ too" not in str(info.value)


def test_one_element_is_not_elements():
    """'1 elements written that must be left alone' (day 2's gather one element off) reads '1 element'."""
    got = _poisoned(4, "float32")
    got[3] = 1
    with pytest.raises(AssertionError, match=r"c: 1 element written that must be left alone; first at index 3"):
        checks.assert_untouched(got, np.arange(4) >= 2, name="c")
    got[2] = 1
    with pytest.raises(AssertionError, match=r"c: 2 elements written"):
        checks.assert_untouched(got, np.arange(4) >= 2, name="c")
    with pytest.raises(AssertionError, match=r"c: Inf in 1 element; first at index 1"):
        checks.assert_close(np.array([1, np.inf, 1], np.float32), np.ones(3), name="c")
