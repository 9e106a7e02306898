"""The catalogue of what the course says (grader/messages.py): both languages for every entry, the same
fields in each, the glossary's terms in the Chinese, every key the code asks for present, and the
messages a student meets first (a check's failure, a grade, a lesson's first cell) in Chinese under
COURSE_LANG=zh."""
import re
import string
from pathlib import Path

import numpy as np
import pytest

from grader import checks, isolation, messages, paths
from test_notebooks_zh import CJK, glossary, uses_term

KEYS = sorted(messages.CATALOGUE)
CODE = re.compile(r"`[^`]*`|\{[^}]*\}|[A-Z_]+=\S+|\S+\.(?:cu|py)\b|sm_\d+|\bNaN\b|\bInf\b|\bSMs?\b|\bL2\b")


def _fields(text: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(text) if f}


@pytest.mark.parametrize("key", KEYS)
def test_every_message_has_both_languages_with_the_same_fields(key):
    entry = messages.CATALOGUE[key]
    assert set(entry) == {"en", "zh"}, f"{key}: {sorted(entry)}"
    assert _fields(entry["en"]) == _fields(entry["zh"]), key
    words = CODE.sub(" ", entry["en"])
    if re.search(r"[A-Za-z]{3,}", words):
        assert CJK.search(entry["zh"]), f"{key}: the Chinese is not Chinese"


@pytest.mark.parametrize("key", KEYS)
def test_the_chinese_uses_the_glossary(key):
    terms, entry = glossary(), messages.CATALOGUE[key]
    words = CODE.sub(" ", entry["en"])
    missing = [f"{t} -> {terms[t]}" for t in terms if uses_term(words, t, terms) and terms[t] not in entry["zh"]]
    assert not missing, f"{key}: {missing}"


def _keys_in_use() -> tuple[set[str], set[str]]:
    """The keys the course's code says literally (say("key", ...)) and the catalogue keys it names as
    strings (a table of them, as cli's); messages.py's CATALOGUE, which defines them, is no use of them."""
    asked, named = set(), set()
    for path in (paths.ROOT / "grader").rglob("*.py"):
        text = path.read_text()
        if path == paths.ROOT / "grader" / "messages.py":
            text = text[text.index("\n}\n"):]  # its functions only
        asked |= set(re.findall(r"\bsay\(\s*[\"']([\w. ]+)[\"']", text))
        named |= set(re.findall(r"[\"']([\w.]+)[\"']", text)) & set(messages.CATALOGUE)
    return asked, named


def _unused_keys() -> set[str]:
    """Entries nothing asks for: not said or named by the code, not a tech.* entry whose English is some
    exercise's technique words (messages.described), nor looked up by a prefix (word(), helped(), plots)."""
    from grader import exercises

    asked, named = _keys_in_use()
    words = {w for day in sorted(p.name for p in paths.DAYS.glob("day[0-9][0-9]"))
             for ex in exercises.day_exercises(day) for t in getattr(ex, "technique", ()) for w in t.words}
    described = {k for k, e in messages.CATALOGUE.items() if k.startswith("tech.") and e["en"] in words}
    looked_up = {k for k in messages.CATALOGUE if k.startswith(("status.", "ceiling.", "limiter.", "mix.", "help.", "plot.",
                                                                 "sassname.", "sass.res.", "stage.",
                                                                 "stagefrom."))}
    return set(messages.CATALOGUE) - asked - named - described - looked_up


def test_every_key_the_code_asks_for_exists():
    asked, _ = _keys_in_use()
    assert asked, "no say(...) call found"
    assert not asked - set(messages.CATALOGUE), sorted(asked - set(messages.CATALOGUE))
    unused = _unused_keys()
    assert not unused, "entries nothing asks for: " + ", ".join(sorted(unused))


def test_an_entry_nobody_uses_is_found(monkeypatch):
    """The check above reads the code that uses the catalogue, not the catalogue itself: a planted entry,
    and a tech.* entry no technique holds, fail it."""
    monkeypatch.setitem(messages.CATALOGUE, "planted.nobody_says_this", {"en": "unused", "zh": "没人用"})
    monkeypatch.setitem(messages.CATALOGUE, "tech.planted", {"en": "no technique's words", "zh": "没有哪个技术要点"})
    assert _unused_keys() == {"planted.nobody_says_this", "tech.planted"}


def test_a_failed_check_speaks_the_lessons_language(monkeypatch):
    got, expected = np.array([1.0, np.nan, 3.0], np.float32), np.array([1.0, 2.0, 4.0])
    for lang, says in (("en", "elements outside"), ("zh", "个元素中有")):
        monkeypatch.setenv("COURSE_LANG", lang)
        monkeypatch.chdir(paths.ROOT)
        with pytest.raises(AssertionError) as e:
            checks.assert_close(got, expected, dt="float32", name="out", seed=7)
        text = str(e.value)
        assert ("NaN the kernel computed" if lang == "en" else "核函数算出的 NaN") in text, text
        with pytest.raises(AssertionError) as e:
            checks.assert_close(np.array([1.0, 2.5], np.float32), np.array([1.0, 2.0]), dt="float32", name="out")
        assert says in str(e.value), str(e.value)


def test_a_grade_and_the_lessons_first_cell_in_chinese(monkeypatch, capsys):
    monkeypatch.setenv("COURSE_LANG", "zh")
    monkeypatch.chdir(paths.ROOT)
    outcome = isolation.Outcome("day01/vector_add", "failed", "", 2, 7)
    assert str(outcome) == "day01/vector_add：未通过（2/7 个用例）"
    assert "需要" not in messages.say("setup.gpu", day="day01", device="H100", sm="sm_90", sms=132, l2=50)
    assert messages.say("cli.error", message="x") == "错误：x"


def test_the_child_is_told_the_language(monkeypatch, tmp_path):
    assert "COURSE_LANG" in isolation._ENV_KEEP
    monkeypatch.delenv("COURSE_LANG", raising=False)
    monkeypatch.chdir(paths.NOTEBOOKS / "zh")  # a Chinese lesson's kernel: its folder decides, no $COURSE_LANG
    assert isolation._child_env(tmp_path)["COURSE_LANG"] == "zh"
    monkeypatch.chdir(paths.NOTEBOOKS)
    assert isolation._child_env(tmp_path)["COURSE_LANG"] == "en"


@pytest.mark.parametrize("argv,says", [
    (["check", "day99"], "没有这一天 'day99'"),
    (["hint", "day02", "nosuch"], "day02 没有练习 'nosuch'"),
    (["check", "day02", "--nosuch"], "错误：无法识别的参数：--nosuch"),
    (["check"], "python -m grader check：错误：缺少必需的参数：day（见 python -m grader check --help）"),
    (["nosuch"], "错误：参数 command：无效的选择：'nosuch'（可选："),
    (["check", "day02", "--timeout", "0"], "错误：参数 --timeout：应为正数，得到 '0'"),
    (["sass", "--kernel"], "错误：参数 --kernel：需要一个值"),
    (["progress"], "个练习，已编辑"),
    (["show-config"], "核函数加载自"),
    (["debug", "day12", "prefill", "--solutions", "--source", "x.cu"], "错误：--solutions 和 --source：只能选一个"),
    (["debug", "day05", "rmsnorm"], "debug 逐个分块跟踪注意力核函数：只支持 day11 或 day12"),
    (["profile", "day01"], "day01 没有哪个练习有可以分析的基准测试"),
    (["compile", "README.md"], "错误：README.md 不是 .cu 文件（CUDA C 源文件以 .cu 结尾）"),
    (["sass", "grader"], "错误：grader 是一个文件夹"),
    (["sass", "nosuch.cu"], "错误：没有这个文件：nosuch.cu"),
    (["sass", "days/day01/vector_add.cu", "--compare", "x.cu", "--ptx-map"], "错误：--compare 和 --ptx-map：只能选一个"),
])
def test_the_command_line_speaks_chinese(monkeypatch, capsys, argv, says):
    from grader import cli

    monkeypatch.setenv("COURSE_LANG", "zh")
    monkeypatch.chdir(paths.ROOT)
    try:
        cli.main(argv)
    except SystemExit:
        pass
    out = capsys.readouterr()
    assert says in out.out + out.err, out


def test_an_exercise_s_own_diagnosis_replays_in_the_lessons_language(monkeypatch):
    """Messages an exercise words itself (here day 11's empty-row lse) end with the catalogue's replay."""
    from grader.references.decode_attention import assert_lse

    monkeypatch.chdir(paths.ROOT)
    for lang, says in (("en", "[seed 5: rerun with COURSE_SEED=5]"), ("zh", "[种子 5：用 COURSE_SEED=5 重新运行]")):
        monkeypatch.setenv("COURSE_LANG", lang)
        with pytest.raises(AssertionError) as e:
            assert_lse(np.array([1.0, 0.0]), np.array([-np.inf, 0.0]), name="lse2", seed=5)
        assert str(e.value).endswith(says), str(e.value)


def test_where_kernels_run_is_said_in_the_lessons_language(monkeypatch):
    """The emulator's name and why kernels run there, as the banner and show-config print them."""
    from grader.emulator.backend import EmulatorBackend

    monkeypatch.chdir(paths.ROOT)
    monkeypatch.setenv("COURSE_LANG", "zh")
    backend = EmulatorBackend()
    assert backend.properties()["name"] == "PTX 模拟器（CPU，numpy）"
    assert backend.why_not_hardware().startswith("这里的核函数 (kernel) 在 PTX 模拟器上运行")


def test_a_benchmark_speaks_the_lessons_language(monkeypatch, capsys):
    """bench's lines: untimed on the emulator (the measurement, its label, the report), a timed table's head,
    and a kernel refused for its wrong output."""
    from types import SimpleNamespace

    from grader import bench

    monkeypatch.chdir(paths.ROOT)
    monkeypatch.setenv("COURSE_LANG", "zh")
    untimed = SimpleNamespace(timed=False, memory_report=lambda: "TABLE")
    monkeypatch.setattr(bench.device, "current", lambda: untimed)
    m = bench.measure("yours", lambda: None, size=4)
    assert capsys.readouterr().out == "yours：在模拟器上不计时（计时需要 CUDA GPU）；它最后一次启动的访存统计：\nTABLE\n"
    ceiling = bench.copy_ceiling(64)
    assert ceiling.label == "copy (ceiling)，在模拟器上不计时（计时需要 CUDA GPU）"
    report = bench.Report("t", "n", "GB/s", {"yours": [m]}, [ceiling])
    assert report.table() == "t\n在模拟器上不计时（计时需要 CUDA GPU）：每个核函数的访存统计已打印在上面"
    timed = bench.Report("t", "n", "GB/s", {"yours": [bench.Measurement("yours", 8, 1.0, 8)]},
                         [bench.Measurement("copy", 8, 1.0, 8)])
    _, head, *_, units = timed.table().splitlines()
    assert head.split()[0] == "规模" and head.endswith("上限") and units == "（GB/s；占上限的 %）", timed.table()
    assert messages.say("bench.wrong_output", label="yours", error="x") == "yours：没有做基准测试，它的输出是错的（x）"


def test_the_emulator_s_memory_statistics_in_chinese(monkeypatch):
    """The memory table (headers, n-way, note), a launch's lines and the notebooks' one-line summary."""
    from grader import device, notebook
    from grader.emulator import program, report

    monkeypatch.chdir(paths.ROOT)
    monkeypatch.setenv(device.BACKEND_ENV, "emulator")
    monkeypatch.setenv("COURSE_LANG", "zh")
    module = device.load_source(r'''
    extern "C" __global__ void conflicts(float* y) {
      __shared__ float s[64 * 32];
      s[threadIdx.x * 64] = threadIdx.x;
      __syncthreads();
      y[threadIdx.x] = s[threadIdx.x * 64];
    }''', "conflicts.cu")
    device.launch(module.get_function("conflicts"), (1,), (32,), (device.empty(32),))
    table = report.memory_table()
    assert table.split()[:4] == ["源代码行", "存储空间", "请求数", "每个请求"], table
    assert "路）" in table and "n 路存储体冲突" in table, table
    text = report.launch_text(program.last_launch)
    assert "网格" in text and "条线程束指令" in text and "指令构成：" in text, text
    assert "其他 " in text and "other" not in text, text  # the families a SASS name does not cover
    summary = notebook.memory_summary()
    assert summary.startswith("global 1 个请求，每个请求 4.00 个扇区（理想 4.00）；shared 2 个请求") and "波前" in summary, \
        summary


def test_an_open_design_s_verdicts_in_chinese(monkeypatch):
    """Every sentence of open_design's judgement, in the lessons' language."""
    from grader import bench, device
    from grader.exercises import open_design

    monkeypatch.chdir(paths.ROOT)
    monkeypatch.setenv(device.BACKEND_ENV, "emulator")
    monkeypatch.setenv("COURSE_LANG", "zh")
    module = device.load_source(r'''
    extern "C" __global__ void k_plan(int* plan) { plan[0] = 0; plan[1] = 70000; plan[2] = 100; plan[3] = -1; }
    ''', "k.cu")
    with pytest.raises(AssertionError) as e:
        open_design.read_plan(module, "k", (), "(m)")
    assert str(e.value).startswith("k_plan (m) 写出了不可能的启动配置：网格 grid.x = 0（应为 1 .. 2^31 - 1）；"
                                   "网格 grid.y = 70000"), str(e.value)
    assert "线程块 block.x = 100" in str(e.value) and "-1 字节的动态共享内存" in str(e.value), str(e.value)
    bad = {"global": {"requests": 10, "sectors": 320, "ideal": 40, "bytes": 1280},
           "shared": {"requests": 4, "wavefronts": 32, "ideal": 4, "max_ways": 8}}
    wrong = open_design.statistics_verdict(bad, 256, reread=64)
    assert [w.split("：")[0] for w in wrong] == ["读取没有合并访存", "输入被读了 4.75 遍（读取了 1,280 字节，输入有 256 字节，允许再读 64 字节）",
                                               "读取太窄", "共享内存存储体冲突"], wrong
    empty = {"global": dict.fromkeys(bad["global"], 0), "shared": dict.fromkeys(bad["shared"], 0)}
    assert open_design.statistics_verdict(empty, 1) == ["它没有从全局内存读取任何数据"]
    plan = open_design.Plan((132, 1), 256, 0)
    assert open_design.parallelism_verdict(plan)[0].startswith("GPU 上的并行度不够：完整规模形状的计划（网格 (132, 1)，线程块 256")
    monkeypatch.setattr(bench, "time_ms", lambda run, **_: [2.0])
    share, wrong = open_design.bandwidth_verdict(lambda: None, 1_000_000, bench.Measurement("copy (ceiling)", 1, 1.0, 2_000_000))
    assert wrong == ["0 GB/s：是 copy（2 GB/s）的 25%，低于设计所需的 75%"], wrong
    with pytest.raises(AssertionError) as e:
        open_design.fail_if(["x"], "colsum (m)", plan)
    assert str(e.value) == "colsum (m)，启动配置为网格 (132, 1)，线程块 256，0 B 动态共享内存：设计没有达标：\n  - x"


@pytest.mark.parametrize("key, fields, says", [
    ("bench.below_target", {"exercise": "day05/rmsnorm", "label": "yours", "ratio": "72%", "target": "80%",
                            "table": "yours"}, "day05/rmsnorm：yours 在最大规模上达到本次运行测得上限的 72%；目标是 80%"),
    ("bench.largest_failed", {"exercise": "e", "status": "未通过", "error": "x"}, "e：没有做基准测试：最大的用例未通过：x"),
    ("memory.instead", {"exercise": "e", "case": "n=4"}, "e：在模拟器上不计时（基准测试需要 CUDA GPU）"),
])
def test_the_self_check_s_benchmark_lines_in_chinese(monkeypatch, key, fields, says):
    monkeypatch.chdir(paths.ROOT)
    monkeypatch.setenv("COURSE_LANG", "zh")
    assert messages.say(key, **fields).startswith(says)


def test_the_profile_speaks_the_lessons_language(monkeypatch):
    """`grader profile`'s table (row names, stall meanings, the emulator's lines) and its legend."""
    from grader import ncu, profile

    monkeypatch.chdir(paths.ROOT)
    monkeypatch.setenv("COURSE_LANG", "zh")
    found = [{"kernel": "k", "columns": {"yours": {"duration": "1.0 us", "stalls": "long_scoreboard 3.0"}},
              "lines": {"yours": [{"line": "k.cu:3", "kind": "global", "requests": 1000, "per_request": 8.0,
                                   "ideal": 4.0, "instruction": "ld.global.f32"}]}}]
    text = profile.render(found, estimates=True)
    assert "k (PTX 模拟器给出的估计值，没有在 GPU 上测量)" in text and "耗时" in text and "模拟器上无" in text, text
    assert "long_scoreboard：在等全局/本地内存的读取（L1TEX）" in text, text
    assert "k，你的：离理想值最远的访存指令（估计值）" in text and "源代码行" in text, text
    assert "你的（估计）" in text and "yours" not in text, text  # the column: a plot phrase
    assert profile.legend().startswith("怎么读这张表：\n  耗时：核函数在 GPU 上的时间"), profile.legend()
    assert ncu.STALLS == tuple(ncu.stall_meanings("en")) and "long_scoreboard" in ncu.STALLS


def test_the_debugger_speaks_the_lessons_language(monkeypatch):
    """`grader debug`'s report: the steps that agreed, the first divergence, a token group's rescale."""
    from grader import debug

    monkeypatch.chdir(paths.ROOT)
    monkeypatch.setenv("COURSE_LANG", "zh")
    report = debug.Report("t", ["分块 0", "分块 1"], 2e-4)
    assert report.text() == "t\n每一步之后核函数都与 float64 参考结果一致（分块 0 .. 分块 1：共 2 步）；最大行误差 2.0e-04（容差 4e-03）"
    report.divergence = debug.Divergence("KV 分块 2", "头 0", 1.0, float("nan"), "x", detail=["y"])
    assert report.text().splitlines()[1:] == ["在此之前一致：分块 0 .. 分块 1：共 2 步（最大行误差 2.0e-04）",
                                              "第一次出现分歧在 KV 分块 2 之后：头 0：期望 1，得到 nan（从未写入：毒值；或是算出来的，"
                                              "如 0 / 0 或 inf - inf）（x）", "  y"]
    lines = debug._group_lines(np.array([0.0, 0.0, 5.0, 0.0]), 2, 4, 2)
    assert lines == ["核函数把词元分给 2 个词元组（词元 j 归组 j mod 2），每组有自己的 (m, d, o)，直到合并：词元组 0 (0 -> 5) "
                     "的最大值在这个分块中上升：它的 d 和 o 必须乘以 2^(m_old - m_new)"], lines


def test_the_timeline_s_stage_table_in_chinese(monkeypatch):
    from grader import profile

    monkeypatch.chdir(paths.ROOT)
    monkeypatch.setenv("COURSE_LANG", "zh")
    stage = {"stage": "s", "source": "x.cu", "kernels": [], "instructions": 10, "active_threads": 32.0, "bytes": 64,
             "sectors": 4.0, "ideal": 4.0, "requests": 1, "extra_wavefronts": 0}
    text = profile.stage_table({"config": "c", "stages": [stage]})
    assert text.split()[:3] == ["级", "核函数来自", "核函数"] and "（模拟器上没有）" in text, text
    assert text.endswith("模拟器上的解码步骤（c）：逐级计数，是估计值（不计时）"), text


def test_why_a_machine_cannot_run_an_exercise_in_chinese(monkeypatch):
    """The skip reason of every GPU-only test on a machine without one, and the self-check's not-run lines."""
    from grader import exercises, runner

    monkeypatch.chdir(paths.ROOT)
    monkeypatch.setenv("COURSE_LANG", "zh")
    monkeypatch.setattr(runner.device, "why_no_gpu", lambda: "没有驱动")
    assert runner.why_not_here(exercises.get("day01", "vector_add")) == \
        "需要 CUDA GPU：没有驱动。没有 GPU 也能做编译和 SASS 检查（python -m grader compile day01）。"
    assert messages.say("not_run.whole", first="x", exercise="e") == "x（完整信息在 e 的第一个失败里）"
    assert messages.say("not_run.stopped", exercise="e", first="x") == "未运行：e 的检查进程已结束（x）"
    assert messages.say("runner.needs_arch", exercise="e", needed=90, have="sm_80").startswith("e 需要 sm_90 或更新的 GPU")
    assert messages.say("runner.needs_exact_arch", exercise="e", needed=90, have="sm_80").startswith("e 需要 sm_90 的 GPU")


def test_the_profile_s_cells_in_chinese(monkeypatch):
    """What the table's cells say besides numbers: on the emulator and from Nsight Compute."""
    from grader import ncu

    monkeypatch.chdir(paths.ROOT)
    monkeypatch.setenv("COURSE_LANG", "zh")
    metrics = {ncu.METRICS["global_ld_requests"]: 0.0, ncu.METRICS["global_ld_sectors"]: 0.0,
               ncu.METRICS["threads_per_instruction"]: 31.5, ncu.METRICS["theoretical_occupancy"]: 50.0,
               ncu.METRICS["limit_registers"]: 4.0}
    cells = ncu.rows(metrics)
    assert (cells["sectors"], cells["active_threads"]) == ("没有全局内存读取（LDG）", "32 个中的 31.5"), cells
    assert cells["theoretical"].startswith("50%（限制因素："), cells
    for key, zh in (("cell.not_timed", "不计时（模拟器）"), ("cell.no_shared", "没有共享内存访问"),
                    ("cell.extra", "多出 3 个波前"), ("cell.mma_share", "mma：占线程束指令的 3"),
                    ("cell.occupancy", "3（3 个线程块，每块 3 个线程；限制因素：3）")):
        fields = {f: 3 for f in ("count", "share", "frac", "blocks", "threads", "limiter")}
        assert messages.say(key, **fields) == zh


def test_the_summary_names_the_ceiling_in_the_lessons_language(monkeypatch):
    """'copy bandwidth 的 87%' was half English; a name the catalogue lacks (cuBLAS) stays as it is."""
    from grader.pytest_plugin import format_table

    row = {"exercise": "day07/colsum", "passed": 1, "failed": 0, "skipped": 0, "status": "passed",
           "ratio": 0.87, "ceiling": "copy bandwidth"}
    monkeypatch.setenv("COURSE_LANG", "zh")
    assert "拷贝带宽的 87%" in format_table([row]) and "copy" not in format_table([row])
    assert "cuBLAS 的 50%" in format_table([{**row, "ratio": 0.5, "ceiling": "cuBLAS"}])
    monkeypatch.setenv("COURSE_LANG", "en")
    assert "87% of copy bandwidth" in format_table([row])


def test_the_profile_s_limiters_mix_and_ncu_s_problems_in_chinese(monkeypatch):
    """The occupancy limiter and instruction-mix families inside the table, ncu's problems as the
    profile reports them (its own ==ERROR== text stays as ncu printed it), and a kernel's second launch."""
    from grader import device, ncu, profile, profile_estimates

    monkeypatch.chdir(paths.ROOT)
    monkeypatch.setenv(device.BACKEND_ENV, "emulator")
    monkeypatch.setenv("COURSE_LANG", "zh")
    metrics = {ncu.METRICS["theoretical_occupancy"]: 50.0, ncu.METRICS["limit_registers"]: 4.0,
               ncu.METRICS["limit_shared_mem"]: 4.0, ncu.METRICS["limit_blocks"]: 32.0}
    assert ncu.rows(metrics)["theoretical"] == "50%（限制因素：寄存器和共享内存（每个 SM 4 个线程块））"
    assert (ncu.rows(metrics)["dram"], ncu.rows(metrics)["duration"]) == ("无", "无")  # not measured
    module = device.load_source(r'''
    extern "C" __global__ void k(const float* x, float* y) { y[threadIdx.x] = x[threadIdx.x] * 2.0f; }''', "k.cu")
    with profile_estimates.recording() as records:
        device.launch(module.get_function("k"), (1,), (64,), (device.empty(64), device.empty(64)))
    cells = profile_estimates.rows(records[0], {"registers": 16, "shared": 0})
    assert "全局内存" in cells["mix"] and "整数与逻辑运算" in cells["mix"] and "memory" not in cells["mix"], cells["mix"]
    assert cells["theoretical"].endswith("限制因素：线程块大小（每个 SM 的线程束数）和每个 SM 的线程块数）"), cells
    assert ncu.problem("x ERR_NVGPUCTRPERM y").startswith("这块 GPU 不允许当前用户读取它的性能计数器")
    assert ncu.problem("==ERROR== Failed to find metric sm__nope\n") == "ncu 报错：Failed to find metric sm__nope"
    assert ncu.problem("==WARNING== No kernels were profiled.\n").startswith("ncu 没有分析到任何核函数")
    with pytest.raises(ValueError, match="不是 Nsight Compute 的 CSV"):
        ncu.parse_csv('"a","b"\n')
    launches = [{"kernel": ncu.MARK_KERNEL, "grid": 1, "metrics": {}}] + [{"kernel": "k", "grid": 1, "metrics": {}}] * 2
    tables = profile.gpu_tables(launches, [{"label": "yours", "size": 1, "nbytes": 0, "flops": 0.0}])
    assert [t["kernel"] for t in tables] == ["k", "k（第 2 次启动）"]
    assert profile._failure("e", None, "a\nb") == "e: 性能分析进程在报告结果之前就停止了：a | b"


def test_malformed_data_from_the_student_s_process_in_chinese(monkeypatch):
    from grader import exercises, runner

    monkeypatch.chdir(paths.ROOT)
    monkeypatch.setenv("COURSE_LANG", "zh")
    ex = exercises.get("day01", "vector_add")
    with pytest.raises(AssertionError, match="^day01/vector_add：学生的进程返回的数据格式不对（"):
        runner.verify(ex, ex.cases[0], {"nonsense": 1}, 0)


def test_the_check_table_s_result_column_in_chinese(monkeypatch):
    """`grader check` and pytest's summary wrote FAILED / skipped in the Chinese table."""
    from grader.pytest_plugin import format_table

    monkeypatch.setenv("COURSE_LANG", "zh")
    rows = [{"exercise": f"day02/{s}", "passed": 0, "failed": 1, "skipped": 0, "status": s, "ratio": None,
             "ceiling": None} for s in ("FAILED", "skipped", "passed")]
    results = [line.split()[4] for line in format_table(rows).splitlines()[2:]]
    assert results == ["未通过", "跳过", "通过"], format_table(rows)
    monkeypatch.setenv("COURSE_LANG", "en")
    assert [line.split()[4] for line in format_table(rows).splitlines()[2:]] == ["FAILED", "skipped", "passed"]


def test_why_the_emulator_skips_a_case_in_chinese(monkeypatch):
    """The first skip reason pytest's summary repeats: a case too large for the CPU."""
    from grader import exercises
    from grader.emulator.scaling import runs_on_emulator

    monkeypatch.chdir(paths.ROOT)
    monkeypatch.setenv("COURSE_LANG", "zh")
    monkeypatch.delenv("COURSE_EMULATOR_FULL", raising=False)
    ex = exercises.get("day02", "strided_gather")
    why = [runs_on_emulator(ex, c)[1] for c in ex.cases if not runs_on_emulator(ex, c)[0]]
    assert why and why[0].startswith("对模拟器来说太大（") and "day02/strided_gather 较小的用例已运行" in why[0], why


def _help_texts(parser) -> list[str]:
    """Every help text of a parser and its subcommands' parsers."""
    import argparse

    found = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            found += [a.help for a in action._choices_actions]
            for sub in action.choices.values():
                found += _help_texts(sub)
        elif action.help:
            found.append(action.help)
    return found


def test_every_help_text_of_the_command_line_is_in_the_catalogue(monkeypatch):
    """`python -m grader ... --help` in Chinese needs each help text (cli.py's, each command module's
    HELP and options) in the catalogue, word for word; and no help.* entry outlives its help text."""
    from grader import cli

    monkeypatch.chdir(paths.ROOT)
    monkeypatch.setenv("COURSE_LANG", "en")
    english = set(_help_texts(cli.parser()))
    held = {e["en"] for k, e in messages.CATALOGUE.items() if k.startswith("help.") and k != "help.commands"}
    assert not english - held, f"help texts without Chinese: {sorted(english - held)}"
    assert not held - english, f"help.* entries no parser has: {sorted(held - english)}"
    assert messages.say("help.commands", "en") in cli.__doc__ or "help.commands" in cli.__doc__


@pytest.mark.parametrize("argv", [["--help"], ["check", "--help"], ["debug", "--help"], ["profile", "--help"]])
def test_the_command_line_s_help_in_chinese(monkeypatch, capsys, argv):
    from grader import cli

    monkeypatch.chdir(paths.ROOT)
    monkeypatch.setenv("COURSE_LANG", "zh")
    with pytest.raises(SystemExit):
        cli.main(argv)
    out = capsys.readouterr().out
    assert out.startswith("用法：python -m grader") and "选项:" in out and "显示本帮助信息并退出" in out, out
    for english in ("usage:", "options:", "positional arguments", "show this help", "default:", "instead of"):
        assert english not in out, f"{english!r} in {out}"
    monkeypatch.setenv("COURSE_LANG", "en")
    with pytest.raises(SystemExit):
        cli.main(argv)
    assert capsys.readouterr().out.startswith("usage: python -m grader")


@pytest.mark.parametrize("title, zh", [
    ("column sums, 2^26 floats: tall (N = 32), square, wide (M = 64)", "列求和，2^26 个 float：高（N = 32）、方阵、宽（M = 64）"),
    ("TMA copy, 64 x 64 boxes of fp16, square matrices", "TMA 拷贝，64 x 64 的 fp16 方块，方阵"),
    ("batch prefill, fp16 causal, 4 query heads, d 128", "批量预填充, fp16 因果, 4 查询头, d 128"),
    ("strided_gather, 4096 floats out", "strided_gather, 4096 个 float 输出"),
    ("shape (0 decode, 1 tall, 2 wide)", "形状（0 解码，1 高，2 宽）"),
])
def test_the_plots_titles_come_from_the_catalogue(title, zh):
    """Plot labels are catalogue entries (plot.*) like every other message; titles once left English."""
    from grader import plots

    assert not hasattr(plots, "ZH_LABELS")
    assert plots.translate(title, "zh") == zh and plots.translate(title, "en") == title


def test_a_benchmark_table_s_title_and_series_in_chinese(monkeypatch):
    from grader import bench

    monkeypatch.chdir(paths.ROOT)
    monkeypatch.setenv("COURSE_LANG", "zh")
    m = bench.Measurement("yours", 8, 1.0, 8)
    report = bench.Report("fp32 transpose, n x n", "n", "GB/s", {"yours": [m], "solution": [m]}, [m])
    title, head = report.table().splitlines()[:2]
    assert title == "fp32 转置, n x n" and head.split()[1:3] == ["你的", "参考解答"], report.table()
    assert messages.ceiling(bench.Report("t", "n", "Texp/s").ceiling_label) == "它的上限"
    monkeypatch.setenv("COURSE_LANG", "en")
    assert report.table().splitlines()[1].split()[1:3] == ["yours", "solution"]


def test_the_debugger_s_bad_sizes_in_chinese(monkeypatch, tmp_path):
    from grader import debug

    monkeypatch.chdir(paths.ROOT)
    monkeypatch.setenv("COURSE_LANG", "zh")
    (tmp_path / "k.cu").write_text("// no tile here\n")
    with pytest.raises(ValueError, match="^k.cu：找不到每个分块的键数（.*）；请用 --tile N 给出$"):
        debug._tile_of("prefill", tmp_path / "k.cu")
    with pytest.raises(ValueError, match=r"^--heads 3 必须是 --kv-heads 2 的倍数（GQA）$"):
        debug._decode_inputs(np.random.default_rng(0), 1, 4, 3, 2)


def test_the_emulator_s_refusals_and_a_bad_backend_in_chinese(monkeypatch):
    """What a lesson's code meets on the emulator (a timer, a cupy function it lacks) and a mistyped
    COURSE_BACKEND."""
    from grader import backend, device
    from grader.emulator import cupy_shim

    monkeypatch.chdir(paths.ROOT)
    monkeypatch.setenv("COURSE_LANG", "zh")
    with pytest.raises(backend.NoTiming, match="^cupy.cuda.Event: 模拟器不模拟计时"):
        cupy_shim.cuda.Event
    with pytest.raises(backend.NoGPU, match=r"^cupy.fft 在模拟器上不可用"):
        cupy_shim.fft
    with pytest.raises(ValueError, match="^COURSE_BACKEND='nosuch'：应为 .* 之一$"):
        device._backend_named("nosuch")


def test_the_plots_own_words_in_chinese(monkeypatch):
    from types import SimpleNamespace

    from grader import plots

    monkeypatch.chdir(paths.ROOT)
    monkeypatch.setenv("COURSE_LANG", "zh")
    monkeypatch.setattr(plots, "use_cjk_font", lambda: None)
    with pytest.warns(UserWarning, match="^图中的中文标签需要 zh extra"):
        assert plots.label_language() == "en"
    monkeypatch.setattr(plots, "label_language", lambda: "zh")
    with pytest.raises(ValueError, match="^day02/x：没有可以画的核函数启动$"):
        plots.emulator_figure(SimpleNamespace(key="day02/x"), {}, {})


def test_a_kernel_fault_on_the_emulator_and_answer_s_errors_in_chinese(monkeypatch):
    from grader import answers, device

    monkeypatch.chdir(paths.ROOT)
    monkeypatch.setenv(device.BACKEND_ENV, "emulator")
    monkeypatch.setenv("COURSE_LANG", "zh")
    module = device.load_source(r'''
    extern "C" __global__ void oob(float* y) { y[threadIdx.x + 1000000] = 1.0f; }''', "oob.cu")
    with pytest.raises(device.KernelFault, match="^oob 在模拟器上出错："):
        device.launch(module.get_function("oob"), (1,), (32,), (device.empty(32),))
    with pytest.raises(ValueError, match="没有第 99 道思考题"):
        answers.model_answer("day02", 99, "zh")


SAID_MODULES = ("profile", "ncu", "profile_estimates", "plots", "debug", "bench", "tables", "cli")
_ENGLISH = re.compile(r"(?:raise \w+\(|print\(|warn\(|fail\()\s*f?[\"']([^\"']*[A-Za-z]{3,}[^\"']*)[\"']")


@pytest.mark.parametrize("module", SAID_MODULES)
def test_these_modules_say_nothing_in_english_outside_the_catalogue(module):
    """What grader profile, debug, the plots and a benchmark's table raise, print or warn comes from the
    catalogue (a string of fields and punctuation, as f"{ex.key}: " + say(...), is no English)."""
    text = (paths.ROOT / "grader" / f"{module}.py").read_text()
    english = [m.group(1) for m in _ENGLISH.finditer(text) if re.search(r"[A-Za-z]{3,}", _without_fields(m.group(1)))]
    assert not english, english


def _without_fields(text: str) -> str:
    """An f-string's literal text: its {fields} (nested ones too, and one the quote cut off) removed."""
    while (shorter := re.sub(r"\{[^{}]*\}", "", text)) != text:
        text = shorter
    return re.sub(r"\{.*$", "", text)


ENGLISH_RUN = re.compile(r"(?<![\w.:=/-])[A-Za-z]{3,}(?:[ ,]+[A-Za-z]{2,})+(?![\w.:=(/-])")


def english(text: str) -> list[str]:
    """Runs of English words in a message, outside identifiers (names with _ . : = or digits)."""
    return ENGLISH_RUN.findall(text)


def _raised_english(path: Path, only: str | None = None) -> list[str]:
    """The English string literals a module raises (`only`: raises of that exception) or asserts with,
    outside the catalogue's say(...)."""
    import ast

    found = []

    def literals(node):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "say":
            return
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            found.extend(f"{path.name}:{node.lineno}: {w}" for w in english(node.value))
        for child in ast.iter_child_nodes(node):
            literals(child)

    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Raise) and node.exc is not None:
            if only is None or getattr(getattr(node.exc, "func", None), "id", None) == only:
                literals(node.exc)
        elif isinstance(node, ast.Assert) and node.msg is not None and only is None:
            literals(node.msg)
    return found


DIAGNOSING = sorted({f"exercises/{m}" for m in ("day01", "day02", "day03", "day04", "day05", "day06", "day07", "day08",
                                                  "day09", "day10", "day11", "day12", "day13", "day13_cache", "day14",
                                                  "day15", "day16", "capstone", "open_design")}
                    | {f"references/{p.stem}" for p in (paths.ROOT / "grader" / "references").glob("*.py")})


@pytest.mark.parametrize("module", DIAGNOSING)
def test_an_exercise_s_diagnoses_come_from_the_catalogue(module):
    """What an exercise raises when a kernel is wrong (or its input is) is the catalogue's, so a Chinese
    lesson reads it in Chinese."""
    found = _raised_english(paths.ROOT / "grader" / f"{module}.py")
    assert not found, found


def test_an_exercise_s_hints_in_chinese(monkeypatch):
    """The most specific help a wrong kernel gets (day 2's truncation, day 12's bad shapes) has no English
    sentence under COURSE_LANG=zh, and reads as before in English."""
    from grader.exercises import day02, day12

    monkeypatch.chdir(paths.ROOT)
    v = np.array([1.7, -2.6])
    for lang in ("zh", "en"):
        monkeypatch.setenv("COURSE_LANG", lang)
        said = [day02._quant_diagnosis(np.trunc(v), v, np.rint(v)),
                day02._quant_diagnosis(np.array([-1.0, -1.0]), v, np.array([5.0, 7.0]))]
        for args in ((1, 1, 7, False), (0, 1, 64, False), (4, 2, 64, True)):
            with pytest.raises(ValueError) as e:
                day12.validate(*args)
            said.append(str(e.value))
        if lang == "zh":
            assert all(CJK.search(s) and not english(s) for s in said), said
        else:
            assert "truncated instead of rounded to nearest" in said[0] and "never written?" in said[1], said


def test_grader_compile_s_lines_in_chinese(monkeypatch, capsys, tmp_path):
    """compile's per-file lines and its summary (here a file with no kernel), in the lessons' language."""
    from grader import cli

    monkeypatch.chdir(paths.ROOT)
    (tmp_path / "empty.cu").write_text("__device__ float twice(float x) { return 2 * x; }\n")
    for lang, says in (("zh", ("失败  sm_80", "没有定义核函数（没有 __global__ 函数）", "1 次编译中 0 次成功")),
                       ("en", ("ERROR sm_80", "defines no kernel (no __global__ function)", "0 of 1 compilations succeeded"))):
        monkeypatch.setenv("COURSE_LANG", lang)
        assert cli.main(["compile", str(tmp_path / "empty.cu"), "--arch", "sm_80"]) == 1
        out = capsys.readouterr().out
        assert all(s in out for s in says), out


def test_the_technique_check_and_the_sass_report_in_chinese(monkeypatch, tmp_path):
    """A missing (and a forbidden) instruction, as the technique check words it, and grader sass's
    report and comparison: no English but opcodes, file and kernel names (the technique's own words,
    `why`, come from the exercise)."""
    from grader import sass, technique

    monkeypatch.chdir(paths.ROOT)
    monkeypatch.setenv("COURSE_LANG", "zh")
    (tmp_path / "k.cu").write_text('extern "C" __global__ void k(float* y) { y[threadIdx.x] = 1.0f; }\n')
    (tmp_path / "k2.cu").write_text('extern "C" __global__ void k(float* y) { y[threadIdx.x] = 2.0f * y[threadIdx.x]; }\n')
    wanted = technique.Technique(why="线程束洗牌", require=("SHFL",), forbid=("STG",), kernels=("k", "nosuch"))
    assert technique._problems(tmp_path / "k.cu", [wanted], None) == ["k.cu 里没有核函数 nosuch"]
    found = technique._problems(tmp_path / "k.cu", [technique.Technique(why="线程束洗牌", require=("SHFL",), forbid=("STG",))],
                                None)
    assert found[0] == "k 的 SASS 里没有 SHFL（线程束洗牌）：这个练习考查的是线程束洗牌", found
    assert found[1].startswith("k 的 SASS 里有 STG") and not any(english(f) for f in found), found
    for text in (sass.report(tmp_path / "k.cu"), sass.compare(tmp_path / "k.cu", tmp_path / "k2.cu")):
        assert "寄存器" in text and "合计" in text and not english(text), text
    with pytest.raises(ValueError, match="里没有核函数 'x'；它的函数有：k$"):
        sass.report(tmp_path / "k.cu", kernel="x")
    for text in (sass.ptx_map(tmp_path / "k2.cu", "ld,st"), sass.ptx_map(tmp_path / "k.cu", "shfl")):
        lines = [re.sub(r"^\s*(PTX|SASS)\b|^\s*k2?\.cu:\d+\s.*", "", line) for line in text.splitlines()]
        assert ("按 k2.cu 的行列出" in text or "没有以 shfl 开头的 PTX 指令" in text) and not english("\n".join(lines)), text


@pytest.mark.parametrize("body, says", [
    ("y[threadIdx.x + 1000000] = 1.0f;", "全局内存写入越界"),
    ("y[threadIdx.x + 32] = 1.0f;", "超出"),
    ("*(float*)((char*)y + 2) = 1.0f;", "地址未对齐"),
    ("extern __shared__ float s[]; s[threadIdx.x + 4096] = 1.0f; y[0] = s[0];", "共享内存写入越界"),
    ("if (threadIdx.x < 16) return; __syncthreads(); y[threadIdx.x] = 1.0f;", "只有线程块的一部分线程到达了屏障"),
    ("if (threadIdx.x == 3) __trap(); y[threadIdx.x] = 1.0f;", "触发了 trap"),
    ("if (threadIdx.x < 16) y[threadIdx.x] = __shfl_sync(0xffff, (float)threadIdx.x, threadIdx.x + 16);", "没有执行这次洗牌"),
])
def test_the_emulator_s_fault_texts_in_chinese(monkeypatch, body, says):
    """What a wrong kernel did on the emulator (out of bounds, misaligned, a barrier only part of a block
    reaches, a trap), by which thread and where: no English but the instruction and names."""
    from grader import device

    monkeypatch.chdir(paths.ROOT)
    monkeypatch.setenv(device.BACKEND_ENV, "emulator")
    monkeypatch.setenv("COURSE_LANG", "zh")
    module = device.load_source('extern "C" __global__ void k(float* y) { ' + body + ' }', "k.cu")
    with pytest.raises(device.KernelFault) as e:
        device.launch(module.get_function("k"), (1,), (32,), (device.empty(32),))
    text = re.sub(r"`[^`]*`", "", str(e.value))
    assert says in text and "线程块 (0, 0, 0)" in text and not english(text), text


@pytest.mark.parametrize("exception", ["EmulatorFault", "Unsupported", "PTXError"])
def test_every_emulator_fault_comes_from_the_catalogue(exception):
    """What the emulator says a kernel did wrong (an EmulatorFault), what it does not support (Unsupported,
    the why of emu.unsupported) and what it cannot read of NVRTC's PTX (PTXError) are the catalogue's."""
    found = [f for p in sorted((paths.ROOT / "grader" / "emulator").rglob("*.py")) for f in _raised_english(p, exception)]
    assert not found, found


def test_the_emulator_s_ptx_reader_in_chinese(monkeypatch):
    from grader.emulator import ptx

    monkeypatch.setenv("COURSE_LANG", "zh")
    with pytest.raises(ptx.PTXError) as e:
        ptx.parse(".visible .entry k()\n{\nret;\n")
    assert str(e.value) == "函数 k 没有闭合", str(e.value)


def test_a_shared_memory_race_in_chinese(monkeypatch):
    from grader import device

    monkeypatch.chdir(paths.ROOT)
    monkeypatch.setenv(device.BACKEND_ENV, "emulator")
    monkeypatch.setenv("COURSE_LANG", "zh")
    module = device.load_source(r'''
    extern "C" __global__ void k(float* y) {
      __shared__ float s[64];
      s[threadIdx.x] = threadIdx.x;
      y[threadIdx.x] = s[63 - threadIdx.x];
    }''', "k.cu")
    with pytest.raises(device.KernelFault) as e:
        device.launch(module.get_function("k"), (1,), (64,), (device.empty(64),))
    text = re.sub(r"`[^`]*`", "", str(e.value))
    assert "共享内存竞争" in text and "请在两者之间加一个屏障" in text and not english(text), text


def _named_english(path: Path) -> list[str]:
    """The English literals in the name= / what= a module hands a check (the words a failure starts with)."""
    import ast

    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.keyword) and node.arg in ("name", "what"):
            for s in ast.walk(node.value):
                if isinstance(s, ast.Constant) and isinstance(s.value, str):
                    found.extend(f"{path.name}:{node.value.lineno}: {w}" for w in english(s.value))
    return found


@pytest.mark.parametrize("module", ["day01", "day02", "day03", "day04", "day05", "day06", "day07", "day08", "day09",
                                    "day10", "day11", "day12", "day13", "day13_cache", "day14", "day15", "day16",
                                    "capstone"])
def test_the_name_a_failed_check_starts_with_comes_from_the_catalogue(module):
    """A failed check starts with the output's name and case (`saxpy out (n=..., grid ...)`), in the
    lessons' language."""
    found = _named_english(paths.ROOT / "grader" / "exercises" / f"{module}.py")
    assert not found, found


@pytest.mark.parametrize("day", [d.name for d in sorted((paths.ROOT / "days").glob("day[0-9][0-9]"))])
def test_a_technique_s_own_words_have_chinese(monkeypatch, day):
    """The technique check names what a day's exercise is graded on (Technique.why) and what its source
    lacks or must not use: each of those has a tech.* entry, so a Chinese lesson reads it in Chinese
    (messages.described); only code (`mbarrier.init`, cp.async.wait_group 1 (DEPBAR.LE SB0, 0x1)) reads
    the same in both."""
    from grader import exercises

    monkeypatch.setenv("COURSE_LANG", "zh")
    words = {w for ex in exercises.day_exercises(day) for t in getattr(ex, "technique", ()) for w in t.words}
    only_code = lambda w: not re.search(r"[a-z]{2,}", re.sub(r"`[^`]*`|\S*[._:\d]\S*", " ", w))
    untranslated = [w for w in words if messages.described(w) == w and not only_code(w)]
    assert not untranslated, untranslated


def test_the_emulator_s_warnings_in_chinese(monkeypatch):
    """What the emulator warns of (a read of shared memory nobody wrote) is the catalogue's too."""
    from grader import device

    monkeypatch.chdir(paths.ROOT)
    monkeypatch.setenv(device.BACKEND_ENV, "emulator")
    monkeypatch.setenv("COURSE_LANG", "zh")
    module = device.load_source(r'''
    extern "C" __global__ void k(float* y) { __shared__ float s[32]; y[threadIdx.x] = s[threadIdx.x]; }''', "k.cu")
    with pytest.warns(Warning) as caught:
        device.launch(module.get_function("k"), (1,), (32,), (device.empty(32),))
    text = re.sub(r"`[^`]*`", "", " ".join(str(w.message) for w in caught))
    assert "读取了未初始化的共享内存" in text and not english(text), text


def test_a_lesson_s_misuse_of_the_emulator_in_chinese(monkeypatch):
    """A lesson's code handing the emulator what cupy would refuse (a numpy conversion, a missing kernel,
    a wrong argument count) reads the refusal in the lessons' language."""
    from grader import device

    monkeypatch.chdir(paths.ROOT)
    monkeypatch.setenv(device.BACKEND_ENV, "emulator")
    monkeypatch.setenv("COURSE_LANG", "zh")
    module = device.load_source(r'extern "C" __global__ void k(float* y) { y[threadIdx.x] = 1.0f; }', "k.cu")
    with pytest.raises(TypeError, match="^不允许把模拟的设备数组隐式转换成 numpy 数组"):
        np.asarray(device.empty(4))
    with pytest.raises(KeyError, match="里没有核函数 .*nosuch"):
        module.get_function("nosuch")
    with pytest.raises(TypeError, match="^k 需要 1 个参数，给了 2 个$"):
        device.launch(module.get_function("k"), (1,), (32,), (device.empty(32), device.empty(32)))


def test_the_stub_generator_s_lines_in_chinese(tmp_path, monkeypatch):
    """`python -m grader stubs` says what it did with each file (created, up to date, your edits kept)
    in the lessons' language."""
    import shutil

    from grader import stubs

    shutil.copytree(paths.SOLUTIONS / "day01", tmp_path / "solutions/day01")
    for name in ("SOLUTIONS", "DAYS", "ROOT"):
        monkeypatch.setattr(paths, name, tmp_path / {"SOLUTIONS": "solutions", "DAYS": "days", "ROOT": ""}[name])
    monkeypatch.setenv("COURSE_LANG", "zh")
    said = {what for _ in range(2) for _, what in stubs.generate("day01")}
    stub = sorted((tmp_path / "days/day01").glob("*.cu"))[0]
    stub.write_text(stub.read_text() + "\n// my work\n")
    said |= set(dict(stubs.generate("day01")).values())
    assert {"已创建", "已是最新"} <= said and any("保留了你的修改" in w for w in said), said
    assert not [w for w in said if english(w)], said


def test_the_notebook_generator_s_lines_in_chinese(tmp_path, monkeypatch):
    """`python -m grader notebooks` says what it did with each notebook in the lessons' language, as stubs."""
    import shutil

    from grader import student_notebooks as sn

    (tmp_path / "instructor/notebooks").mkdir(parents=True)
    shutil.copy(paths.INSTRUCTOR_NOTEBOOKS / "day01.ipynb", tmp_path / "instructor/notebooks")
    for name, where in (("ROOT", ""), ("INSTRUCTOR_NOTEBOOKS", "instructor/notebooks"), ("NOTEBOOKS", "notebooks")):
        monkeypatch.setattr(paths, name, tmp_path / where)
    monkeypatch.setenv("COURSE_LANG", "zh")
    said = {what for _ in range(2) for _, what in sn.generate("day01")}
    student = tmp_path / "notebooks/day01.ipynb"
    student.write_text(student.read_text().replace('"cells": [', '"cells": [\n  {"cell_type": "markdown", '
                                                   '"id": "mine", "metadata": {}, "source": "mine"},', 1))
    source = tmp_path / "instructor/notebooks/day01.ipynb"
    source.write_text(source.read_text().replace("Day 1:", "Day one:"))
    said |= set(dict(sn.generate("day01", ask=lambda p: False)).values())
    assert {"已创建", "已是最新"} <= said and any("保留了你的修改" in w for w in said), said
    assert not [w for w in said if english(w)], said


@pytest.mark.parametrize("how", ["python -m grader", "pytest"])
def test_outside_the_environment_in_chinese(how):
    """The one line a shell without the course's environment gets (ml_dtypes hidden here) is Chinese
    under COURSE_LANG=zh (it was English), commands aside."""
    import os
    import subprocess
    import sys

    run = ("import runpy; sys.argv = ['grader', 'progress']; runpy.run_module('grader', run_name='__main__')"
           if how == "python -m grader" else
           "import pytest; sys.exit(pytest.main(['days/day02', '-q', '-p', 'no:cacheprovider', '-n', '0']))")
    done = subprocess.run([sys.executable, "-c", f"import sys; sys.modules['ml_dtypes'] = None; {run}"],
                          cwd=paths.ROOT, capture_output=True, text=True, env={**os.environ, "COURSE_LANG": "zh"})
    lines = [l for l in (done.stdout + done.stderr).splitlines() if l.strip()]
    assert done.returncode != 0 and len(lines) == 1, lines
    assert "ml_dtypes" in lines[0] and "./course.sh check" in lines[0] and CJK.search(lines[0]), lines
    assert not english(re.sub(r"`[^`]*`", "", lines[0])), lines


def test_refused_benchmarks_in_chinese(monkeypatch, capsys):
    """A benchmark that refuses your kernel and the solution's (wrong output), or the emulator's memory
    statistics when neither launched, names them and joins them the Chinese way (was 'yours: ...; solution')."""
    from grader import exercises, notebook, runner
    from grader.emulator import report

    def wrong(*args, **kwargs):
        raise AssertionError("错")

    ex = exercises.get("day02", "strided_gather")
    monkeypatch.setenv("COURSE_LANG", "zh")
    monkeypatch.setattr(runner, "load", lambda *a, **k: object())
    monkeypatch.setattr(runner, "check", wrong)
    monkeypatch.setattr(report, "largest_case", lambda ex: {"n_out": 1})
    monkeypatch.setattr(report, "record_case", lambda *a: ([], "错"))
    for refuse in (lambda: runner.bench(ex, module=object(), with_solution=True),
                   lambda: notebook._memory_statistics(ex, object())):
        with pytest.raises(AssertionError) as e:
            refuse()
        assert "；" in str(e.value) and "; " not in str(e.value), str(e.value)
        assert "你的" in str(e.value) and "参考解答" in str(e.value) and not english(str(e.value)), str(e.value)
    printed = capsys.readouterr().out
    assert "你的（未通过）：" in printed and "yours" not in printed, printed


def test_one_tile_is_not_tiles():
    """A technique's words in English say '1 tile', not '1 tiles' (day 7's two-stage pipeline did)."""
    from grader import exercises

    whys = [t.why for d in exercises.days_with_exercises() for ex in exercises.day_exercises(d)
            for t in ex.technique]
    assert whys and not [w for w in whys if re.search(r"(?<![\w.^=-])1 [a-z]+[^s]s\b", w)], whys


def test_a_float_index_in_chinese(monkeypatch):
    """A thread index computed through a float (grader.float_index) is named in the lessons' language."""
    from grader import float_index

    monkeypatch.setenv("COURSE_LANG", "zh")
    ptx = (".visible .entry k(\n.param .u64 p\n)\n{\n.reg .b32 %r<3>;\nmov.u32 %r1, %tid.x;\ncvt.rn.f32.u32 %f1, %r1;\n"
           "cvt.rzi.s32.f32 %r2, %f1;\ncvt.s64.s32 %rd1, %r2;\nst.global.u32 [%rd1], %r1;\n}\n")
    found = float_index.problems(ptx)
    assert len(found) == 1 and "2^24" in found[0] and not english(found[0]), found


def test_a_missing_sass_tool_in_chinese(monkeypatch):
    from grader import sass

    monkeypatch.setenv("COURSE_LANG", "zh")
    with pytest.raises(FileNotFoundError) as e:
        sass.tool("nvdisasm-not-installed")
    text = re.sub(r"`[^`]*`", "", str(e.value))
    assert "找不到" in text and not english(text), text


def test_chinese_puts_no_space_between_words(monkeypatch):
    """A Chinese field inside a Chinese sentence leaves no space between the two ("4 个用例未通过",
    "按线程束洗牌评分"); Latin names keep theirs."""
    monkeypatch.setenv("COURSE_LANG", "zh")
    text = messages.say("summary.first_failure", exercise="day01/saxpy", cases=messages.say("summary.cases", n=4),
                        first="x")
    assert "4 个用例未通过" in text, text
    assert messages.say("summary.first_failure", "en", exercise="e", cases="4 cases", first="x") == \
        "e: 4 cases failed; first: x"


def test_a_missing_technique_in_chinese(monkeypatch):
    """The technique check's sentences joined the Chinese way (；), no English but the code's names; what
    the stub lacks in its source and in its SASS said in one sentence naming the technique once."""
    from grader import exercises, technique

    ex = exercises.get("day08", "scan")
    for lang, once in (("en", "this exercise is graded on"), ("zh", "这个练习考查的是")):
        monkeypatch.setenv("COURSE_LANG", lang)
        with pytest.raises(AssertionError) as e:
            technique.check(ex, paths.DAYS / "day08" / ex.source)
        text = str(e.value)
        assert text.count(once) == 1, text
    assert technique._kernels(["pipeline_s1", "pipeline_s2"]) == "pipeline_s1、pipeline_s2"  # a Chinese list
    assert "；" in text and "; " not in text and "解耦回看" in text and "没有内联 PTX" in text, text
    assert not english(re.sub(r"\([^)]*\)", "", text)), text


def test_what_the_emulator_left_unchecked_in_chinese(monkeypatch):
    """A grade cell's note on the sizes only a GPU checks, and its count of further failures, in the
    lessons' language (the boundaries were English words inside a Chinese sentence)."""
    from grader import exercises, isolation

    monkeypatch.setenv("COURSE_LANG", "zh")
    ex = exercises.get("day01", "vector_add")
    small = [c for c in ex.cases if c["n"] < 1 << 20]
    note = isolation._not_run(ex, small)
    assert "2^24 个元素" in note and "elements" not in note, note
    assert messages.say("failures.more", n=4) == "\n……另有 4 个"
