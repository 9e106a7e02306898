"""The day 10 GEMM's configuration space and `python -m grader autotune`, without a GPU."""
import dataclasses

import pytest

from grader import autotune, cli
from grader.exercises import day10
from grader.exercises.day10 import GemmConfig


def test_default_and_progression_configs_are_valid():
    for config in [day10.DEFAULT, *(c for c in day10.PROGRESSION.values() if c)]:
        assert config.validate() is config


def test_search_space_is_valid_distinct_and_fits_the_gpu():
    space = day10.search_space(227 * 1024)
    assert len(space) >= 12 and len(set(space)) == len(space)
    assert day10.DEFAULT in space
    for c in space:
        assert not c.problems(227 * 1024) and c.swizzle and c.threads in (128, 256), c
    small = day10.search_space(100 * 1024)
    assert small and all(c.smem_bytes() <= 100 * 1024 for c in small) and len(small) < len(space)


@pytest.mark.parametrize("changes,message", [
    ({"bk": 48}, "multiple of 32"),
    ({"bn": 192}, "power of two"),
    ({"bm": 80, "warps_m": 2}, "multiples of 16"),
    ({"warps_m": 8, "warps_n": 8, "bm": 128, "bn": 128}, "threads"),
    ({"bm": 256, "bn": 256, "warps_m": 2, "warps_n": 2}, "accumulators"),
    ({"stages": 0}, "positive integer"),
])
def test_invalid_configs_say_why(changes, message):
    config = dataclasses.replace(day10.DEFAULT, **changes)
    with pytest.raises(ValueError, match=message):
        config.validate()


def test_shared_memory_limit_is_checked():
    config = GemmConfig(128, 256, 64, 2, 4, stages=4)
    assert config.smem_bytes() == 4 * (128 * 64 + 64 * 256) * 2
    with pytest.raises(ValueError, match="shared memory"):
        config.validate(max_smem=164 * 1024)


def test_smem_counts_the_epilogue_tile_when_larger():
    config = GemmConfig(128, 256, 32, 2, 4, stages=2)
    assert config.smem_bytes() == 128 * (256 + 8) * 2


def test_defines_name_every_macro():
    defines = GemmConfig(128, 128, 64, 2, 2, 3, False).defines()
    assert defines == ("-DGEMM_BM=128", "-DGEMM_BN=128", "-DGEMM_BK=64", "-DGEMM_WARPS_M=2",
                       "-DGEMM_WARPS_N=2", "-DGEMM_STAGES=3", "-DGEMM_SWIZZLE=0")


def test_from_dict_round_trip_and_unknown_fields():
    assert GemmConfig.from_dict(dataclasses.asdict(day10.DEFAULT)) == day10.DEFAULT
    with pytest.raises(ValueError, match="unknown"):
        GemmConfig.from_dict({"bm": 128, "tile": 3})


@pytest.mark.parametrize("text,shape", [("4096", (4096,) * 3), ("2048x8192x1024", (2048, 8192, 1024))])
def test_parse_shape(text, shape):
    assert autotune.parse_shape(text) == shape


@pytest.mark.parametrize("text,message", [("40x40", "MxNxK"), ("abc", "MxNxK"), ("64x64x12", "multiple of 8")])
def test_parse_shape_errors(text, message):
    with pytest.raises(ValueError, match=message):
        autotune.parse_shape(text)


def test_candidates_put_the_default_first_and_cap():
    assert autotune.candidates(227 * 1024, 3)[0] == day10.DEFAULT
    assert len(autotune.candidates(227 * 1024, 3)) == 3
    with pytest.raises(ValueError, match="at least 1"):
        autotune.candidates(227 * 1024, 0)


def test_cli_lists_the_space_without_a_gpu(capsys):
    assert cli.main(["autotune", "--list", "--max-configs", "4"]) == 0
    head, _, *lines = capsys.readouterr().out.splitlines()  # a table: its headers, the rule, a row each
    assert head.split()[0] == "configuration" and len(lines) == 4 and lines[0].startswith(day10.DEFAULT.name)


def test_cli_rejects_a_bad_shape(capsys):
    assert cli.main(["autotune", "--shapes", "4095"]) == 2
    assert "multiple of 8" in capsys.readouterr().err


def test_save_merges_per_gpu(tmp_path):
    path = tmp_path / "tuned.json"
    autotune.save(path, "GPU A", {"8x8x8": {"config": {}}})
    autotune.save(path, "GPU A", {"16x16x16": {"config": {}}})
    autotune.save(path, "GPU B", {"8x8x8": {"config": {}}})
    import json

    data = json.loads(path.read_text())
    assert set(data["GPU A"]) == {"8x8x8", "16x16x16"} and set(data["GPU B"]) == {"8x8x8"}


def test_cli_fails_fast_without_a_gpu(monkeypatch, capsys):
    import time

    from grader import device

    monkeypatch.setenv(device.BACKEND_ENV, "emulator")
    start = time.perf_counter()
    assert cli.main(["autotune", "--shapes", "4096", "--max-configs", "1"]) == 2
    err = capsys.readouterr().err
    assert time.perf_counter() - start < 5 and err.count("\n") == 1, err
    assert "autotune times each configuration on a CUDA GPU" in err and "emulator" in err
