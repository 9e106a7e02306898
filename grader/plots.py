"""One plot per idea: achieved bandwidth (or TFLOP/s) against size, each kernel version against the
ceiling measured in the same run.

In the Chinese lessons (`grader.notebook.language()` is 'zh') the labels are translated (ZH_LABELS)
and matplotlib draws them with the CJK font of the `zh` extra (mplfonts' Noto Sans CJK SC); without
that extra the labels stay in English rather than turn into empty boxes.
"""
from __future__ import annotations

import re
import warnings
from pathlib import Path

from grader.bench import Report

CJK_FONT_FILE = "NotoSansCJKsc-Regular.otf"  # shipped by mplfonts (the `zh` extra)

#: The words of the plots' titles, axes and legends (plots.py's own and the exercises' reports), in Chinese.
ZH_LABELS = {
    "achieved": "实测",
    "bytes moved (read + written)": "搬运的字节数（读 + 写）",
    "read stride (floats)": "读取步长（float 个数）",
    "pipeline stages": "流水线级数",
    "n (int32 elements)": "n（int32 元素个数）",
    "threads in the grid": "网格中的线程数",
    "KV bytes read": "读取的 KV 字节数",
    "sequence length": "序列长度",
    "(ceiling)": "(上限)",
    "copy": "拷贝",
    "yours": "你的",
    "solution": "参考解答",
    "one chunk": "不拆分",
    "naive": "朴素",
    "tiled": "分块",
    "padded": "填充",
    "swizzled": "交错排布",
    "pipelined": "流水线化",
    "tuned": "调优后",
    "transpose": "转置",
    "exp throughput": "exp 吞吐量",
    "4 chains of 256 exps per thread": "每个线程 4 条链，每条 256 次 exp",
    "math library": "数学库",
    "intrinsic": "内建函数",
    "exclusive scan of int32 against": "int32 排他扫描，对比",
    "decode attention": "解码注意力",
    "paged decode": "分页解码",
    "Mi floats": "Mi 个 float",
    "blocks of": "个线程块 x",
    "rows of": "每行",
    "heads": "头",
    "hidden": "隐藏维度",
    "non-causal": "非因果",
    "causal": "因果",
    "batch": "批大小",
    "page": "页大小",
    "square": "方阵",
    "fp32 accumulate": "fp32 累加",
    "H100 anchor, not measured": "H100 参照值，非实测",
}
_ZH_PATTERN = re.compile("|".join(rf"(?<![\w-]){re.escape(en)}(?![\w-])"
                                  for en in sorted(ZH_LABELS, key=len, reverse=True)))


def translate(text: str, lang: str) -> str:
    """A plot label in the lessons' language: the ZH_LABELS phrases replaced in Chinese, the rest
    (numbers, kernel and library names) kept."""
    return _ZH_PATTERN.sub(lambda m: ZH_LABELS[m.group(0)], text) if lang == "zh" else text


def use_cjk_font() -> str | None:
    """Register the `zh` extra's CJK font with matplotlib and put it first in the sans-serif list
    (the default fonts stay behind it for any glyph it lacks). Its family name, or None without the
    extra."""
    try:
        from mplfonts.conf import FONT_DIR
    except ImportError:
        return None
    import matplotlib
    from matplotlib import font_manager

    path = Path(FONT_DIR) / CJK_FONT_FILE
    if not path.is_file():
        return None
    font_manager.fontManager.addfont(str(path))
    family = font_manager.FontProperties(fname=str(path)).get_name()
    rc = matplotlib.rcParams
    rc["font.sans-serif"] = [family] + [f for f in rc["font.sans-serif"] if f != family]
    rc["font.family"] = "sans-serif"
    return family


def label_language() -> str:
    """The plots' language: the lessons' one, except English where no CJK font can draw Chinese."""
    from grader.notebook import language

    if language() == "zh":
        if use_cjk_font():
            return "zh"
        warnings.warn("Chinese plot labels need the zh extra (pip install -e '.[zh]'): labels stay in English",
                      stacklevel=3)
    return "en"


def plot(report: Report, ax=None):
    """Draw a Report; returns the matplotlib Figure (shown inline in notebooks)."""
    import matplotlib.pyplot as plt

    lang = label_language()
    tr = lambda text: translate(text, lang)  # noqa: E731
    fig = None
    if ax is None:
        fig, ax = plt.subplots(figsize=(7, 4))
    xs = [c.size for c in report.ceiling]
    ax.plot(xs, [report.value(c) for c in report.ceiling], "k--", lw=1.5, label=tr(report.ceiling[0].label))
    for label, ms in report.series.items():
        ax.plot([m.size for m in ms], [report.value(m) for m in ms], "o-", ms=4,
                label=f"{tr(label)} ({report.final_ratio(label):.0%})")
    if max(xs) / max(min(xs), 1) >= 8:
        ax.set_xscale("log", base=2)
    ax.set_xlabel(tr(report.xlabel))
    ax.set_ylabel(f"{tr('achieved')} {report.metric}")
    ax.set_ylim(bottom=0)
    ax.set_title(tr(report.title))
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    return fig or ax.figure


def save(report: Report, path: str | Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    fig = plot(report)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    return path
