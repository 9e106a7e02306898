"""One plot per idea: achieved bandwidth (or TFLOP/s) against size, each kernel version against the
ceiling measured in the same run."""
from __future__ import annotations

from pathlib import Path

from grader.bench import Report


def plot(report: Report, ax=None):
    """Draw a Report; returns the matplotlib Figure (shown inline in notebooks)."""
    import matplotlib.pyplot as plt

    fig = None
    if ax is None:
        fig, ax = plt.subplots(figsize=(7, 4))
    xs = [c.size for c in report.ceiling]
    ax.plot(xs, [report.value(c) for c in report.ceiling], "k--", lw=1.5, label=report.ceiling[0].label)
    for label, ms in report.series.items():
        ax.plot([m.size for m in ms], [report.value(m) for m in ms], "o-", ms=4,
                label=f"{label} ({report.final_ratio(label):.0%})")
    if max(xs) / max(min(xs), 1) >= 8:
        ax.set_xscale("log", base=2)
    ax.set_xlabel(report.xlabel)
    ax.set_ylabel(f"achieved {report.metric}")
    ax.set_ylim(bottom=0)
    ax.set_title(report.title)
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
