"""Plain-text tables for the terminal, pytest's summary and notebooks, drawn by rich: each column as
wide as its longest cell on screen (a Chinese character takes two columns), nothing cut, no colour
codes. Every table the course prints goes through `render`, so that both languages line up."""
from __future__ import annotations

import io

from rich import box
from rich.console import Console
from rich.table import Table


def render(headers: list[str], rows: list[list], right: tuple[str, ...] = (), note: str = "") -> str:
    """The rows under their headers; columns named in `right` are right-aligned (numbers); `note`
    goes under the table."""
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, caption=note or None,
                  caption_justify="left")
    for header in headers:
        table.add_column(header, justify="right" if header in right else "left", no_wrap=True)
    for row in rows:
        table.add_row(*(str(cell) for cell in row))
    out = io.StringIO()
    Console(file=out, width=100_000, color_system=None, highlight=False).print(table)
    return "\n".join(line.rstrip() for line in out.getvalue().splitlines() if line.strip())
