"""Plots in the Chinese lessons: the language is picked in one place (grader.language), the
labels are translated, and matplotlib draws them with a CJK font: no "Glyph ... missing" (tofu)."""
import warnings

import pytest

from grader import bench, notebook, paths, plots

FONT_MISSING = "missing from font"


def report() -> bench.Report:
    sizes = [1 << 20, 1 << 22, 1 << 24]
    r = bench.Report("fp32 transpose, n x n", "bytes moved (read + written)", "GB/s")
    r.series["yours tiled"] = [bench.Measurement("t", s, 1.0, nbytes=s // 2) for s in sizes]
    r.ceiling = [bench.Measurement("copy (ceiling)", s, 1.0, nbytes=s) for s in sizes]
    return r


def draw(path):
    """Render the report to a PNG; the warnings matplotlib emitted, and the figure."""
    import matplotlib

    matplotlib.use("Agg")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fig = plots.plot(report())
        fig.savefig(path, dpi=60)
    return [str(w.message) for w in caught], fig


@pytest.fixture
def rc():
    """Each test starts from (and leaves) matplotlib's settings as they were."""
    import matplotlib

    with matplotlib.rc_context():
        yield


@pytest.mark.parametrize("env, folder, expected", [
    ("zh", None, "zh"), (" ZH ", None, "zh"), ("", None, "en"), ("en", None, "en"),
    ("", "notebooks/zh", "zh"), ("en", "notebooks/zh", "zh"), ("zh", "notebooks", "en")])
def test_the_language_comes_from_the_lesson_folder_or_course_lang(monkeypatch, env, folder, expected):
    monkeypatch.setenv(notebook.LANG_ENV, env)
    monkeypatch.chdir(paths.ROOT / folder if folder else paths.ROOT)
    assert notebook.language() == expected


def test_a_released_assignment_has_its_language(monkeypatch, tmp_path):
    monkeypatch.setenv(notebook.LANG_ENV, "zh")
    for name, lesson, expected in (("day03-zh", True, "zh"), ("day03", True, "en"), ("day04", False, "zh")):
        (tmp_path / name).mkdir()
        if lesson:
            (tmp_path / name / "day03.ipynb").write_text("{}")
        monkeypatch.chdir(tmp_path / name)
        assert notebook.language() == expected, name


def test_a_bad_course_lang_is_one_clear_error(monkeypatch):
    monkeypatch.setenv(notebook.LANG_ENV, "fr")
    with pytest.raises(ValueError, match=r"COURSE_LANG='fr': expected en or zh"):
        notebook.language()


def test_labels_are_translated_only_in_chinese():
    assert plots.translate("copy (ceiling)", "zh") == "拷贝 (上限)"
    assert plots.translate("fp16 non-causal, 16 heads", "zh") == "fp16 非因果, 16 头"
    assert plots.translate("zero-copy, uncausal", "zh") == "zero-copy, uncausal"  # whole words only
    assert plots.translate("copy (ceiling)", "en") == "copy (ceiling)"


def test_chinese_labels_render_with_a_cjk_font(monkeypatch, tmp_path, rc):
    pytest.importorskip("mplfonts", reason="the zh extra (mplfonts) is not installed: pip install -e '.[zh]'")
    from matplotlib import font_manager

    monkeypatch.setenv(notebook.LANG_ENV, "zh")
    problems, fig = draw(tmp_path / "zh.png")
    ax = fig.axes[0]
    assert (ax.get_title(), ax.get_ylabel()) == ("fp32 转置, n x n", "实测 GB/s")
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["拷贝 (上限)", "你的（分块）：上限的 50%"]
    assert not [p for p in problems if FONT_MISSING in p], problems
    font = font_manager.findfont(ax.title.get_fontproperties())
    # the zh extra's Noto Sans CJK SC, or the same family installed system-wide (Debian's fonts-noto-cjk)
    assert font_manager.get_font(font).family_name == plots.use_cjk_font(), f"the title is drawn with {font}"
    assert (tmp_path / "zh.png").stat().st_size > 5000


def test_without_the_cjk_font_chinese_is_tofu(monkeypatch, tmp_path, rc):
    """The planted failure: the same figure with the CJK font left out warns of missing glyphs, so
    the check above can fail."""
    monkeypatch.setenv(notebook.LANG_ENV, "zh")
    monkeypatch.setattr(plots, "use_cjk_font", lambda: "DejaVu Sans")
    import matplotlib

    matplotlib.rcParams["font.sans-serif"] = ["DejaVu Sans"]
    problems, _ = draw(tmp_path / "tofu.png")
    assert any(FONT_MISSING in p for p in problems)


def test_english_labels_stay_english(monkeypatch, tmp_path, rc):
    monkeypatch.setenv(notebook.LANG_ENV, "en")
    problems, fig = draw(tmp_path / "en.png")
    assert fig.axes[0].get_xlabel() == "bytes moved (read + written)" and not problems


def test_without_the_zh_extra_the_labels_stay_english(monkeypatch, tmp_path, rc):
    monkeypatch.setenv(notebook.LANG_ENV, "zh")
    monkeypatch.setattr(plots, "use_cjk_font", lambda: None)
    problems, fig = draw(tmp_path / "en.png")
    assert fig.axes[0].get_xlabel() == "bytes moved (read + written)"
    assert [p for p in problems if "zh extra" in p] and not [p for p in problems if FONT_MISSING in p]


@pytest.mark.parametrize("label", ["yours naive", "solution tiled", "yours padded", "solution swizzled",
                                   "yours, one chunk", "solution, split-KV", "yours (failed)", "yours float16",
                                   "solution bfloat16"])
def test_a_series_reads_as_one_phrase(label):
    """A benchmark's series ("yours tiled": day 4's transposes, days 2, 5 and 6's dtypes, day 11's split-KV, a
    failed version on the emulator) reads as Chinese, whose and which together ("你的（分块）"), not word by word ("你的 分块")."""
    import re

    from grader.messages import phrased

    shown = phrased(label, "zh")
    assert re.fullmatch(r"(你的|参考解答)（[^（）]+）", shown), shown
    assert phrased(label, "en") == label


def test_day16s_earlier_rungs_read_as_one_phrase():
    """Day 16's dotted series, the rung below each benchmarked rung (day16._earlier names them), read
    上一级、串行（你的）, not word by word (上一级, 串行 (你的))."""
    import re

    from grader.exercises import day16
    from grader.messages import phrased

    labels = [f"previous rung, {what} ({whose})" for _, what in day16.RUNGS[:-1] for whose in ("yours", "solution")]
    for label in labels:
        assert re.fullmatch(r"上一级、[^,()（）]+（(你的|参考解答)）", phrased(label, "zh")), phrased(label, "zh")
        assert phrased(label, "en") == label


@pytest.mark.parametrize("label", ["yours, GQA 32/8", "solution, MHA 32/32"])
def test_day12s_head_layouts_read_as_one_phrase(label):
    """Day 12's batch-prefill series (whose, then the head layout) read 你的：GQA 32/8, not 你的, GQA 32/8."""
    import re

    from grader.messages import phrased

    assert re.fullmatch(r"(你的|参考解答)：(GQA|MHA) \d+/\d+", phrased(label, "zh")), phrased(label, "zh")
    assert phrased(label, "en") == label
