"""What the course's modules print or return for display (bounds, configurations' problems, bad-input
errors, benchmark and stage tables, autotune's lines) in the lessons' language: Chinese under
COURSE_LANG=zh, with no English sentence left, and English unchanged; tables lined up by display width."""
import re

import numpy as np
import pytest
from rich.cells import cell_len

from grader import paths
from test_notebooks_zh import CJK

#: Three English words in a row: a sentence left untranslated (names and code are single words).
SENTENCE = re.compile(r"\b[A-Za-z]{2,}(?:,? [a-z]{2,}){2,}\b")


def chinese(text: str) -> bool:
    """Chinese, and no English sentence in it."""
    return bool(CJK.search(text)) and not SENTENCE.search(text)


@pytest.fixture
def lang(monkeypatch):
    """lang("zh") or lang("en"): the lessons' language from here on, as a terminal's $COURSE_LANG."""
    monkeypatch.chdir(paths.ROOT)
    return lambda code: monkeypatch.setenv("COURSE_LANG", code)


def test_the_sentence_pattern_finds_english_and_passes_names():
    assert SENTENCE.search("the warp tile must be a multiple")
    assert chinese("ptx_math exp2（ex2.approx.ftz.f32，n=1000；允许：1 ulp）")
    assert not chinese("1 ulp (seen: 0.98 ulp from exact)")


def test_day03_s_bounds_in_chinese(lang):
    from grader.exercises import day03

    lang("zh")
    assert all(chinese(spec.stated) for spec in day03.APPROX_BOUNDS.values())
    assert chinese(day03.GELU_ALLOWED)
    lang("en")
    assert day03.APPROX_BOUNDS["rcp"].stated == "1 ulp (seen: 0.98 ulp)"
    assert day03.GELU_ALLOWED == "0.5 |x| 2^-11 (tanh.approx) + 2^-20 |x| (float rounding)"
    with pytest.raises(AttributeError):
        day03.NO_SUCH_NAME


def test_day03_s_failed_bound_in_chinese(lang, monkeypatch):
    """A ptx_math result out of its bound names the bound in the lessons' language."""
    from grader.exercises import day03

    def bad(*args, **kwargs):
        raise AssertionError(kwargs["name"])

    monkeypatch.setattr(day03, "assert_within", bad)
    monkeypatch.setattr(day03.device, "launch", lambda *a, **k: None)
    monkeypatch.setattr(day03.device, "empty", lambda n, dt: np.zeros(n, dt))
    monkeypatch.setattr(day03.device, "to_host", lambda a: a)
    monkeypatch.setattr(day03.device, "asarray", lambda a: a)
    module = type("M", (), {"get_function": lambda self, name: None})()
    for code, check in (("zh", chinese), ("en", lambda t: "allowed: 1 ulp (seen" in t and not CJK.search(t))):
        lang(code)
        with pytest.raises(AssertionError) as e:
            day03.check_ptx_math(module, 0, "rcp", 8)
        assert check(str(e.value)), str(e.value)


def columns(line: str) -> list[int]:
    """The display columns where each cell of a table's line ends (two spaces or more between cells)."""
    ends, col = [], 0
    for cell in re.split(r"(\s{2,})", line.rstrip()):
        col += cell_len(cell)
        if cell.strip():
            ends.append(col)
    return ends


def test_a_benchmark_table_lines_up_in_chinese(lang):
    """Right-aligned numbers end in the same display column as their headers, wide characters counted."""
    from grader import bench

    lang("zh")
    m, big = bench.Measurement("yours", 8, 1.0, 8), bench.Measurement("yours", 1 << 20, 0.5, 1 << 20)
    report = bench.Report("fp32 transpose, n x n", "n", "GB/s", {"yours": [m, big], "solution": [m, big]}, [m, big])
    _, head, rule, *rows, units = report.table().splitlines()
    assert set(rule) == {"─"} and units == "（GB/s；占上限的 %）"
    assert all(columns(row) == columns(head) for row in rows), report.table()
    lang("en")
    _, head, _, *rows, units = report.table().splitlines()
    assert head.split() == ["size", "yours", "solution", "ceiling"] and units == "(GB/s; % of ceiling)"


def test_the_capstone_s_stage_table_in_chinese_and_lined_up(lang):
    from grader.exercises import capstone

    rows = [{"stage": s.name, "source": s.source, "ms": 0.0123, "share": 0.1, "gbps": 1234.0, "of_copy": 0.5}
            for s in capstone.STAGES]
    times = {"stages": rows, "block_ms": 0.1, "eager_ms": 0.2, "torch_ms": 0.3, "ratio": 3.0, "eager_ratio": 1.5}
    lang("zh")
    text = capstone.stage_table(times)
    head_line, head, rule, *body, below = text.splitlines()
    assert chinese(head_line) and chinese(below) and "注意力 RMSNorm" in text and "第 11 天（分页）" in text, text
    assert all(chinese(line) for line in body if not re.match(r"(QKV|O|gate/up|down) GEMM", line)), text
    ends = columns(head)[2:]
    assert all(columns(line)[-4:] == ends for line in body[:len(rows)]), text
    assert capstone.stage_table({**times, "torch_ms": None}).splitlines()[-1].startswith("torch eager 的层：未计时")
    lang("en")
    text = capstone.stage_table(times)
    assert "attention RMSNorm" in text and "day 11 (paged)" in text and not CJK.search(text)
    assert text.splitlines()[-1] == "course layer: 3.00x the speed of torch eager (faster); launched from Python 1.50x"


def test_the_emulator_s_stage_names_in_chinese(lang):
    from grader import profile

    stage = {"stage": "decode attention", "source": "day 11 (paged)", "kernels": ["k"], "instructions": 10,
             "active_threads": 32.0, "bytes": 64, "sectors": 4.0, "ideal": 4.0, "requests": 1, "extra_wavefronts": 0}
    lang("zh")
    assert "解码注意力" in profile.stage_table({"config": "c", "stages": [stage]})
    lang("en")
    assert "decode attention" in profile.stage_table({"config": "c", "stages": [stage]})


def test_day04_s_demo_titles_in_chinese(lang):
    """The lesson prints f"{demo.title} ({tool}), ...": the title in the lessons' language; the code's
    own value (compared, pickled to a grading child) stays the English."""
    import pickle

    from grader.exercises import day04

    lang("zh")
    titles = [f"{demo.title} ({tool})" for demo, tool in day04.DEMOS]
    assert all(chinese(t) for t in titles) and str(day04.DEMOS[0][0].title).startswith("埋下的竞争"), titles
    copied = pickle.loads(pickle.dumps(day04.DEMOS[1][0])).title
    assert copied == day04.DEMOS[1][0].title and str(copied).startswith("埋下的越界写入")
    lang("en")
    assert f"{day04.DEMOS[0][0].title:.13}" == "planted race:"
    assert day04.DEMOS[1][0].title == "planted out-of-bounds write: no bounds check on the store"


LAUNCHERS = sorted(p.stem for p in (paths.ROOT / "grader" / "launchers").glob("*.py"))


@pytest.mark.parametrize("module", LAUNCHERS)
def test_a_launcher_s_refusals_come_from_the_catalogue(module):
    from test_messages import _raised_english

    found = _raised_english(paths.ROOT / "grader" / "launchers" / f"{module}.py")
    assert not found, found


def test_an_invalid_gemm_configuration_in_chinese(lang):
    """Day 10's GemmConfig.problems (what autotune and the lesson show for a config that cannot run) and
    validate's one-line error; the shapes' errors too."""
    from grader.launchers.gemm import GemmConfig, validate_shapes

    bad = [GemmConfig(bm=0), GemmConfig(bm=48, bn=192, bk=48, warps_m=4, warps_n=8), GemmConfig(bm=256, bn=256, bk=64, warps_m=1, warps_n=1)]
    lang("zh")
    problems = [p for cfg in bad for p in cfg.problems(max_smem=1024)]
    assert len(problems) >= 6 and all(chinese(p) for p in problems), problems
    with pytest.raises(ValueError) as e:
        bad[1].validate()
    assert "\n" not in str(e.value) and chinese(str(e.value)) and "；" in str(e.value), str(e.value)
    for args in (((2, 3, 4), (3, 4)), ((2, 3), (4, 5)), ((2, 12), (12, 8))):
        with pytest.raises(ValueError) as e:
            validate_shapes(*args)
        assert chinese(str(e.value)), str(e.value)
    lang("en")
    assert GemmConfig(bk=48).problems()[0] == "bk = 48 must be a multiple of 32 (an even number of the mma's k16 steps)"
    with pytest.raises(ValueError, match=r"^invalid GEMM configuration .*; "):
        bad[1].validate()


def test_day12_s_progression_in_chinese(lang, monkeypatch):
    """The ladder's table and plot labels (title, each version, the anchor's note) in the lessons' language."""
    from grader import bench, plots
    from grader.exercises import day12

    def fake_bench(family, modules, causal, quick, repeat=20):
        m = bench.Measurement("x", 4096, 1.0, flops=1e12)
        report = bench.Report("t", "sequence length (q_len = kv_len)", "TFLOP/s", {label: [m] for label in modules}, [m])
        report.notes.append(bench.say("day12.anchor_note"))
        return report

    monkeypatch.setattr(day12.runner, "load", lambda ex: ex.name)
    monkeypatch.setattr(day12, "prefill_variant", lambda *cfg: cfg)
    monkeypatch.setattr(day12, "check_prefill_family", lambda family, module: None)
    monkeypatch.setattr(day12, "_bench", fake_bench)
    lang("zh")
    report = day12.progression()
    labels = [report.title, report.xlabel, *report.series]
    assert all(chinese(plots.translate(t, "zh")) for t in labels), [plots.translate(t, "zh") for t in labels]
    title, *lines = report.table().splitlines()
    assert chinese(title) and chinese(lines[-1]) and "4 个线程束, 3 级, n 64" in report.table(), report.table()
    lang("en")
    report = day12.progression()
    assert "2. mma.sync, no pipeline" in report.table() and not CJK.search(report.table())


@pytest.mark.parametrize("module", sorted(p.stem for p in (paths.ROOT / "grader" / "jit").glob("*.py")))
def test_the_course_library_s_refusals_come_from_the_catalogue(module):
    from test_messages import _raised_english

    found = _raised_english(paths.ROOT / "grader" / "jit" / f"{module}.py")
    assert not found, found


def test_the_course_library_s_argument_errors_in_chinese(lang):
    """ops.describe / validate (what day 14's binding and the capstone's layers raise), one line each."""
    from grader.jit import ops

    x = ops.Tensor("x", "cupy", (4, 8), "float16", True, 0)
    calls = [lambda: ops.describe("x", np.zeros(3)), lambda: ops.describe("x", [1]),
             lambda: ops.validate([(x._replace(device=None), ("rows", "d"))], ops.HALF),
             lambda: ops.validate([(x._replace(dtype="uint16"), ("rows", "d"))], ops.HALF),
             lambda: ops.validate([(x, ("rows", "d")), (x._replace(name="w", dtype="bfloat16"), ("d",))], ops.HALF),
             lambda: ops.validate([(x, ("rows", "d")), (x._replace(name="w", shape=(7,)), ("d",))], ops.HALF),
             lambda: ops.validate([(x._replace(contiguous=False), ("rows", "d"))], ops.HALF),
             lambda: ops.validate([(x._replace(shape=(0, 8)), ("rows", "d"))], ops.HALF)]
    lang("zh")
    for call in calls:
        with pytest.raises((TypeError, ValueError)) as e:
            call()
        assert chinese(str(e.value)) and "\n" not in str(e.value), str(e.value)
    lang("en")
    with pytest.raises(ValueError, match=r"^w has shape \[7\]; expected \[d\] with d = 8 \(from x\)$"):
        calls[5]()


@pytest.mark.parametrize("wrong, message", [
    ("framework", "x 是 numpy 数组，在主机内存中：请传入 cupy 数组"),
    ("framework", "x is a numpy array, in host memory"),
    ("contiguity", "x 不是连续的（转置或切片得到的视图？）"),
    ("dtype", "x has dtype float32; expected float16 or bfloat16"),
])
def test_day14_takes_a_refusal_in_either_language(lang, wrong, message):
    """A Chinese lesson's binding refuses in Chinese through ops (or in English, in its own words): both
    name what is wrong; the failure that says which words were missing is in the lessons' language."""
    from grader.exercises import day14
    from grader.runner import Returned

    rows, d = 3, 8
    error = day14._ERRORS[wrong][0]
    found = {"raised": error.__name__, "type_error": error is TypeError, "value_error": error is ValueError,
             "message": message, "out": np.full((rows, d), np.nan, np.float16)}
    lang("zh")
    day14.check_binding_errors(Returned(found), 0, wrong=wrong, rows=rows, d=d)
    with pytest.raises(AssertionError) as e:
        day14.check_binding_errors(Returned({**found, "message": "x: bad"}), 0, wrong=wrong, rows=rows, d=d)
    assert chinese(str(e.value).replace("x: bad", "")), str(e.value)


def test_autotune_says_nothing_in_english_outside_the_catalogue():
    from test_messages import _ENGLISH, _without_fields

    text = (paths.ROOT / "grader" / "autotune.py").read_text()
    english = [m.group(1) for m in _ENGLISH.finditer(text) if re.search(r"[A-Za-z]{3,}", _without_fields(m.group(1)))]
    assert not english, english


def test_autotune_in_chinese(lang, monkeypatch, capsys, tmp_path):
    """The search space's list, a rejected configuration, the best per shape (a table lined up by display
    width) and the refusals of bad options, with the GPU stood in for."""
    from types import SimpleNamespace

    from grader import autotune, bench

    args = SimpleNamespace(shapes=["64"], repeat=1, list=True, max_configs=3, solutions=False, out=str(tmp_path / "t.json"))
    lang("zh")
    autotune.main(args)
    head, rule, *rows = capsys.readouterr().out.splitlines()
    assert head.split() == ["配置", "线程数", "共享内存", "KiB"] and len(rows) == 3
    assert all(columns(row)[1:] == columns(head)[1:] for row in rows)
    for bad in (lambda: autotune.parse_shape("4x4"), lambda: autotune.candidates(1024, 0)):
        with pytest.raises(ValueError) as e:
            bad()
        assert chinese(str(e.value)), str(e.value)

    def load_config(source, cfg):
        if cfg != autotune.day10.DEFAULT:
            raise AssertionError("gemm C：结果不同")
        return "module"

    monkeypatch.setattr(autotune.device, "current", lambda: SimpleNamespace(timed=True))
    monkeypatch.setattr(autotune.device, "require_gpu", lambda: SimpleNamespace(empty=lambda *a, **k: None))
    monkeypatch.setattr(autotune.device, "properties", lambda: {"name": "H100", "smem_per_block_optin": 227 * 1024})
    monkeypatch.setattr(autotune.device, "random", lambda *a, **k: None)
    monkeypatch.setattr(autotune.bench, "matmul_ceiling", lambda *a, **k: SimpleNamespace(tflops=600.0))
    monkeypatch.setattr(autotune.day10, "load_config", load_config)
    monkeypatch.setattr(autotune.day10, "check_gemm", lambda *a: None)
    monkeypatch.setattr(autotune.day10, "padded_b", lambda b, n: (b, n))
    monkeypatch.setattr(autotune.day10, "launch", lambda *a, **k: None)
    monkeypatch.setattr(autotune.bench, "measure", lambda *a, **k: bench.Measurement("x", 64, 1e-3, flops=5e11))
    assert autotune.main(SimpleNamespace(**{**vars(args), "list": False})) == 0
    out = capsys.readouterr().out.splitlines()
    assert chinese(out[0]) and "被淘汰：gemm C" in out[2] and out[-1].startswith("已保存到"), out
    best = out[out.index(next(line for line in out if line.startswith("H100 上"))) + 1:-1]
    assert best[0].split()[:3] == ["形状", "配置", "TFLOP/s"] and columns(best[2])[-1] == columns(best[0])[-1], best


def test_the_capstone_s_stage_check_names_the_stage_in_chinese(lang, monkeypatch):
    """A stage whose output is wrong is named in the lessons' language (its name and where it comes from)."""
    from grader import device
    from grader.exercises import capstone

    wrong = capstone.Stage("residual add", "cupy", ("x",), ("out",),
                           lambda s, c: {"out": device.asarray(2 * device.to_host(s["x"]))}, lambda s, c: {"out": s["x"]})
    monkeypatch.setattr(capstone, "STAGES", (wrong,))
    for code, says in (("zh", "综合项目的级“残差相加”（cupy）的输出 out"), ("en", "capstone stage 'residual add' (cupy) output out")):
        lang(code)
        with pytest.raises(AssertionError, match=re.escape(says)):
            capstone.check_capstone(0, **capstone.CAPSTONE_CASES[0])


def test_day14_s_binding_check_names_the_call_in_chinese(lang):
    """Which call of the binding gave a wrong result (into out=, a new array, a busy stream), in the
    lessons' language."""
    from grader.exercises import day14
    from grader.runner import Returned
    from grader.references.layers import rmsnorm_reference

    rows, d = 3, 8
    x, w = day14._binding_inputs(0, rows, d)
    right = rmsnorm_reference(x, w).astype(np.float16)
    found = {"returned_out": True, "out": right, "new": right,
             "busy_cupy": {"busy": True, "y": right}}  # y must be of x + 1: wrong
    for code, says in (("zh", "binding.rmsnorm 在繁忙的 cupy 流上 (rows=3, d=8)（若错误：核函数在另一个流上启动"),
                       ("en", "binding.rmsnorm on a busy cupy stream (rows=3, d=8) (wrong: launched on another")):
        lang(code)
        with pytest.raises(AssertionError, match=re.escape(says)):
            day14.check_binding(Returned(found), 0, rows=rows, d=d)


def test_day12_s_check_names_in_chinese(lang, monkeypatch):
    """A wrong attention output names its case (the mask among it) in the lessons' language."""
    from grader.exercises import day12

    monkeypatch.setattr(day12, "attention_launch", lambda *a, **k: None)  # out keeps its NaN poison
    for code, says in (("zh", "attention_scalar_d64 的 out（heads=1，q_len=3，kv_len=5，因果掩码）"),
                       ("en", "attention_scalar_d64 out (heads=1, q_len=3, kv_len=5, causal)")):
        lang(code)
        with pytest.raises(AssertionError, match=re.escape(says)):
            day12._check("attention_scalar", None, 0, heads=1, q_len=3, kv_len=5, head_dim=64, causal=True)


def test_a_table_lines_up_by_display_width():
    """grader.tables, the one door for tables: a Chinese cell is as wide on screen as its characters x 2."""
    from grader import tables

    text = tables.render(["级", "us"], [["注意力 RMSNorm", "12.3"], ["x", "4.5"], ["第 11 天（分页）", "100.0"]],
                         right=("us",))
    head, rule, *rows = text.splitlines()
    assert {cell_len(line) for line in [head, *rows]} == {cell_len(rule)}, text


def test_day02_s_scales_check_names_its_output_in_chinese(lang, monkeypatch):
    """quantize_int8's scales (never written: the poison) are named in the lessons' language."""
    from types import SimpleNamespace

    from grader.exercises import day02

    monkeypatch.setattr(day02.device, "launch", lambda *a, **k: None)
    module = SimpleNamespace(get_function=lambda name: None)
    for code, says in (("zh", "quantize_int8 的 scales（rows=3，d=5；scale = max|x| / 127；第 0 行全为零"),
                       ("en", "quantize_int8 scales (rows=3, d=5; scale = max|x| / 127; row 0 is all zeros: scale 0)")):
        lang(code)
        with pytest.raises(AssertionError, match=re.escape(says)) as e:
            day02.check_quant_int8(module, 0, rows=3, d=5)
        assert code == "en" or chinese(str(e.value)), str(e.value)


@pytest.mark.parametrize("check, param", [("check_chunked", {"chunk": 4}), ("check_prefix_lm", {"prefix": 8})])
def test_day13_s_variant_check_names_its_case_in_chinese(lang, monkeypatch, check, param):
    """An attention variant's wrong output names its case (mask, ragged shape, q_pos) in the lessons' language."""
    from types import SimpleNamespace

    from grader.exercises import day13

    monkeypatch.setattr(day13, "check_mask_table", lambda *a: None)
    monkeypatch.setattr(day13, "chunked", lambda m: SimpleNamespace(name="chunked"))
    monkeypatch.setattr(day13, "prefix_lm", lambda m: SimpleNamespace(name="prefix_lm"))
    monkeypatch.setattr(day13, "variant_attention", lambda v, q, *a, **k: (np.zeros(q.shape), np.zeros(q.shape[:2])))
    case = {"batch": 2, "qo_len": 5, "kv_len": 9, "num_qo_heads": 2, "num_kv_heads": 1, "head_dim": 64, **param}
    for code in ("zh", "en"):
        lang(code)
        with pytest.raises(AssertionError) as e:
            getattr(day13, check)(None, 0, **case)
        first = str(e.value).splitlines()[0]
        if code == "zh":
            assert chinese(first) and " 的 o（" in first and "q_pos = 查询在其请求的 KV 中的位置" in first, first
        else:
            assert " o (" in first and "heads 2/1, d=64; q_pos = query's position in its request's KV" in first, first
            assert ("chunk=4, causal, batch=2" if "chunk" in param else "prefix=8, no causal, batch=2") in first


def test_what_a_check_waits_on_is_named_from_the_catalogue():
    """What device.synchronize / launch(what=) name in a kernel fault (the capstone's torch eager block) is a
    name or the catalogue's, never an English phrase."""
    import ast

    from test_messages import english

    found = []
    for path in sorted((paths.ROOT / "grader" / "exercises").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "synchronize":
                named = node.args[:1] + [k.value for k in node.keywords if k.arg == "what"]
            elif isinstance(node, ast.Call):
                named = [k.value for k in node.keywords if k.arg == "what"]
            else:
                continue
            found += [f"{path.name}:{n.lineno}: {n.value}" for n in named
                      if isinstance(n, ast.Constant) and isinstance(n.value, str) and english(n.value)]
    assert not found, found


@pytest.mark.parametrize("module", ["runner", "tensor_map"])
def test_what_the_runner_and_tensor_maps_raise_comes_from_the_catalogue(module):
    from test_messages import _raised_english

    found = _raised_english(paths.ROOT / "grader" / f"{module}.py")
    assert not found, found


def test_the_runner_s_errors_in_chinese(lang, monkeypatch, tmp_path):
    """What reaches a student from the runner: malformed data from their process, a benchmark asked of an
    exercise without one, the course's solution asked for in a student edition; one line each."""
    from grader import exercises, runner

    ex = next(e for d in ("day01", "day02", "day03") for e in exercises.day_exercises(d) if e.bench is None)
    python = next(e for d in ("day13", "day14") for e in exercises.day_exercises(d) if runner.is_python(e))
    malformed = ({"__array__": ["complex64", [1], ""]}, {"__array__": ["float32", [2], "AAAA"]}, {"x": {1, 2}})
    calls = [*(lambda data=data: runner.verify(python, python.cases[0], data, 0) for data in malformed),
             lambda: runner.bench(ex)]
    for code in ("zh", "en"):
        lang(code)
        for call in calls:
            with pytest.raises((AssertionError, ValueError)) as e:
                call()
            text = str(e.value)
            assert "\n" not in text and (chinese(text) if code == "zh" else not CJK.search(text)), text
    assert "malformed data (an array of dtype 'complex64', shape [1])" in str(pytest.raises(AssertionError, calls[0]).value)
    monkeypatch.setattr(paths, "SOLUTIONS", tmp_path / "no-solutions")
    for code, says in (("zh", "课程的参考解答是教师功能：这份学生版课程没有 solutions/"),
                       ("en", "the course's solution is an instructor feature: this student edition of the course has "
                              "no solutions/")):
        lang(code)
        with pytest.raises(paths.InstructorOnly, match=f"^{re.escape(says)}$"):
            runner.source_of(ex, solutions=True)


def test_tensor_map_s_argument_errors_in_chinese(lang):
    """A bad tensor-map request (dtype, rank, box, layout, swizzle, the box's inner bytes): one line, in the
    lessons' language; checked before the backend is asked."""
    from grader import tensor_map

    a = np.zeros((64, 64), np.float16)
    calls = [lambda: tensor_map.tensor_map(np.zeros((8, 8), np.int32), (8, 8)),
             lambda: tensor_map.tensor_map(np.zeros(64, np.float16), (8,)),
             lambda: tensor_map.tensor_map(a, (8, 300)),
             lambda: tensor_map.tensor_map(a[:, :4], (8, 4)),
             lambda: tensor_map.tensor_map(a, (8, 8), swizzle=16),
             lambda: tensor_map.tensor_map(a, (8, 4)),
             lambda: tensor_map.tensor_map(a, (8, 64), swizzle=64)]
    for code in ("zh", "en"):
        lang(code)
        for call in calls:
            with pytest.raises(ValueError) as e:
                call()
            text = str(e.value)
            assert "\n" not in text and (chinese(text) if code == "zh" else not CJK.search(text)), text
    with pytest.raises(ValueError, match=r"^tensor_map: the box's inner dimension is 128 bytes: it must be a multiple "
                                         r"of 16 and at most the swizzle span, 64$"):
        calls[-1]()


def test_day07_s_qk_scores_check_names_its_case_in_chinese(lang, monkeypatch):
    """qk_scores's case (K's rows, the blocks) in the lessons' language."""
    from types import SimpleNamespace

    from grader.exercises import day07

    monkeypatch.setattr(day07.device, "launch", lambda *a, **k: None)  # scores keep their NaN poison
    module = SimpleNamespace(get_function=lambda name: None)
    for code, says in (("zh", "qk_scores 的 scores（K 有 n=5 行，线程块数 blocks=2），允许误差"), ("en", "qk_scores (n=5 rows of K, blocks=2), allowed")):
        lang(code)
        with pytest.raises(AssertionError, match=re.escape(says)) as e:
            day07.check_qk_scores(module, 0, n=5, blocks=2)
        assert code == "en" or chinese(str(e.value)), str(e.value)
