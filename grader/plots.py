"""One plot per idea: achieved bandwidth (or TFLOP/s) against size, each kernel version against the
ceiling measured in the same run. Where nothing is timed (the PTX emulator), `emulator_figure` draws what
the emulator measures instead, per kernel version: global sectors per request and bytes moved per useful
byte (coalescing), shared-memory wavefronts per request (bank conflicts), and the instruction mix.

In the Chinese lessons (`grader.language.language()` is 'zh') the labels are translated (the
catalogue's plot.* entries, grader/messages.py) and matplotlib draws them with the CJK font of the `zh` extra (mplfonts' Noto Sans CJK SC); without
that extra the labels stay in English rather than turn into empty boxes.
"""
from __future__ import annotations

import warnings
from pathlib import Path

from grader.bench import Report
from grader.messages import phrased, say

CJK_FONT_FILE = "NotoSansCJKsc-Regular.otf"  # shipped by mplfonts (the `zh` extra)


def translate(text: str, lang: str) -> str:
    """A plot label in `lang`: in Chinese the catalogue's plot phrases replaced, the rest (numbers, kernel
    and library names) kept (messages.phrased)."""
    return phrased(text, lang)


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
    from grader.language import language

    if language() == "zh":
        if use_cjk_font():
            return "zh"
        warnings.warn(say("plots.no_cjk_font"), stacklevel=3)
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
        ax.plot([m.size for m in ms], [report.value(m) for m in ms], "o:" if label in report.earlier else "o-", ms=4,
                label=say("plots.legend", lang, label=tr(label), ratio=f"{report.final_ratio(label):.0%}"))
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
    fig.tight_layout()
    return write(fig, path)


def write(fig, path: str | Path) -> Path:
    """Save a figure as a PNG (its folder made) and close it."""
    import matplotlib.pyplot as plt

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


# ---- without a GPU: what the emulator measures -----------------------------------------------------

SHARED_ROWS = 8  # shared-memory instructions drawn per kernel version (the furthest from ideal)


def _kernel_versions(versions: dict) -> dict[str, tuple[str, list]]:
    """{bar label: (its color, its launches)} from {version: launches}: one bar per version and kernel,
    named by the version alone where every version launches the same single kernel (the same kernel's
    launches summed)."""
    kernels = {run.kernel for runs in versions.values() for run in runs}
    bars: dict[str, tuple[str, list]] = {}
    for version, runs in versions.items():
        for run in runs:
            label = version if len(kernels) == 1 else f"{version}\n{run.kernel}"
            bars.setdefault(label, (f"C{len(bars)}", []))[1].append(run)
    return bars


def _summed(runs, measure) -> dict:
    out: dict = {}
    for run in runs:
        for key, value in measure(run).items():
            out[key] = out.get(key, 0) + value
    return out


def _shared_rows(runs) -> list[dict]:
    """A kernel's shared-memory instructions, one per source line and SASS instruction (unrolled copies
    summed), the furthest from ideal first: line, sass, requests, wavefronts, ideal."""
    from grader.emulator import report

    rows: dict[tuple, dict] = {}
    for run in runs:
        for r in report.memory_rows(run) if run.stats is not None else ():
            if r["kind"] == "shared":
                sass = report.SASS[report.family(r["opcode"], ("shared",))]
                row = rows.setdefault((r["line"], sass), {"line": r["line"], "sass": sass, "requests": 0,
                                                           "wavefronts": 0.0, "ideal": 0.0})
                row["requests"] += r["requests"]
                row["wavefronts"] += r["per_request"] * r["requests"]
                row["ideal"] += r["ideal"] * r["requests"]
    return sorted(rows.values(), key=lambda r: (-r["wavefronts"] / max(r["ideal"], 1e-9), -r["requests"]))


def emulator_figure(ex, case: dict, versions: dict):
    """What the emulator measured of one check of `case`, per kernel version (`versions`: {label: the
    emulator's launches}, e.g. yours and the solution's): global sectors per request and bytes moved per
    useful byte (32 x sectors / bytes the threads asked for) against the ideal, wavefronts per request of
    the shared-memory instructions furthest from ideal, and the instruction mix by SASS name. A Figure."""
    import matplotlib.pyplot as plt
    from grader.emulator import report

    lang = label_language()
    tr = lambda text: translate(text, lang)  # noqa: E731
    bars = _kernel_versions(versions)
    if not bars:
        raise ValueError(say("plots.no_launch", exercise=ex.key))
    names = [tr(label) for label in bars]
    color, runs = [c for c, _ in bars.values()], [r for _, r in bars.values()]
    fig, ((sectors, moved), (shared, mix)) = plt.subplots(2, 2, figsize=(12, 8), layout="constrained")
    what = ", ".join(f"{k}={v}" for k, v in case.items())
    fig.suptitle(f"{ex.key}: {tr('memory statistics on the PTX emulator, not timed')}\n{what}", fontsize=11)
    _draw_global(sectors, moved, [_summed(r, lambda run: report.totals(run)["global"]) for r in runs], names,
                 color, tr)
    _draw_shared(shared, [_shared_rows(r) for r in runs], names, color, tr)
    _draw_mix(mix, [_summed(r, report.instruction_mix) for r in runs], names, color, tr)
    return fig


def _draw_global(sectors, moved, memory, names, color, tr) -> None:
    x = range(len(names))
    got = [m["sectors"] / max(m["requests"], 1) for m in memory]
    ideal = [m["ideal"] / max(m["requests"], 1) for m in memory]
    sectors.bar_label(sectors.bar(x, got, 0.6, color=color), fmt="%.2f", fontsize=8)
    sectors.scatter(x, ideal, marker="_", s=600, c="k", linewidths=2, zorder=3, label=tr("ideal"))
    sectors.set_title(tr("global memory: 32-byte sectors per request"), fontsize=10)
    ratio = [32 * m["sectors"] / m["bytes"] if m["bytes"] else 0.0 for m in memory]
    moved.bar_label(moved.bar(x, ratio, 0.6, color=color), fmt="%.2f", fontsize=8)
    moved.axhline(1, color="k", ls="--", lw=1, label=tr("ideal"))
    moved.set_title(tr("global memory: bytes moved per useful byte"), fontsize=10)
    for ax, top in ((sectors, max(got + ideal)), (moved, max(ratio + [1.0]))):
        ax.set_xticks(list(x), names, fontsize=8)
        ax.set_xlim(-0.8, len(names) - 0.2)  # one bar stays a bar, not a wall
        ax.set_ylim(0, 1.15 * max(top, 1e-9))  # room for the values above the bars
        ax.grid(axis="y", alpha=0.3)
        ax.legend(fontsize=8)


def _draw_shared(ax, rows_per_bar, names, color, tr) -> None:
    """One bar per shared-memory instruction (source line and SASS), in the color of its version."""
    ax.set_title(tr("shared memory: wavefronts per request (bank conflicts)"), fontsize=10)
    if not any(rows_per_bar):
        ax.text(0.5, 0.5, tr("no shared-memory instruction"), ha="center", va="center", transform=ax.transAxes)
        ax.set_axis_off()
        return
    labels, ideal = [], []
    for name, rows, c in zip(names, rows_per_bar, color):
        rows = rows[:SHARED_ROWS]
        if not rows:
            continue
        y = range(len(labels), len(labels) + len(rows))
        bars = ax.barh(y, [r["wavefronts"] / r["requests"] for r in rows], color=c, label=name)
        ax.bar_label(bars, fmt="%.2f", fontsize=7, padding=4)
        labels += [f"{r['line']}  {r['sass']}" for r in rows]
        ideal += [r["ideal"] / r["requests"] for r in rows]
    ax.scatter(ideal, range(len(labels)), marker="|", s=150, c="k", linewidths=2, zorder=3, label=tr("ideal"))
    ax.set_yticks(range(len(labels)), labels, fontsize=7)
    ax.invert_yaxis()
    ax.set_xlim(0, 1.15 * ax.get_xlim()[1])
    ax.grid(axis="x", alpha=0.3)
    cut = any(len(rows) > SHARED_ROWS for rows in rows_per_bar)
    ax.legend(fontsize=8, loc="lower right", title=f"{tr('worst')} {SHARED_ROWS}" if cut else None,
              title_fontsize=8)


def _draw_mix(ax, mixes, names, color, tr) -> None:
    from matplotlib import ticker

    from grader.emulator import report

    families = [f for f in report.SASS if any(m[f] for m in mixes)]
    height = 0.8 / len(mixes)
    for i, (name, m, c) in enumerate(zip(names, mixes, color)):
        ys = [j + (i - (len(mixes) - 1) / 2) * height for j in range(len(families))]
        bars = ax.barh(ys, [m[f] for f in families], height, color=c, label=name)
        ax.bar_label(bars, labels=[f"{m[f]:,}" if m[f] else "" for f in families], fontsize=6, padding=2)
    ax.set_yticks(range(len(families)),
                  [tr("other") if f == "other" else f"{report.SASS[f]} ({f})" for f in families], fontsize=8)
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.set_xlim(0.8, 4 * max(1, *(max(m.values()) for m in mixes)))  # room for the counts
    ax.xaxis.set_major_formatter(ticker.FuncFormatter(_count))
    ax.xaxis.set_minor_formatter(ticker.NullFormatter())
    ax.set_xlabel(tr("warp instructions"))
    ax.set_title(tr("instruction mix"), fontsize=10)
    ax.grid(axis="x", alpha=0.3)
    ax.legend(fontsize=8)


def _count(value, _position=None) -> str:
    """A count axis's tick: 1, 10, 100, 1k, 10k, 1M."""
    for scale, unit in ((1e6, "M"), (1e3, "k")):
        if value >= scale:
            return f"{value / scale:g}{unit}"
    return f"{value:g}"
