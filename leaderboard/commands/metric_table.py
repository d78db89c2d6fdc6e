"""The metric table that ``score`` and ``submit`` print: the board's order, headline first
and marked, so a terminal reads like the ranking (not alphabetically)."""

from __future__ import annotations

import sys
from collections.abc import Iterable

HEADLINE_NOTE = "* headline: what the leaderboard ranks by"


def echo(text: str = "", *, err: bool = False) -> None:
    """``click.echo`` for plain text (a line to stdout or stderr, flushed), without importing
    click: the numpy-free ``leaderboard score`` prints through it too."""
    print(text, file=sys.stderr if err else sys.stdout, flush=True)


def fmt_interval(interval: list[float] | None) -> str:
    return f"[{interval[0]:6.2f}, {interval[1]:6.2f}]" if interval else ""


def echo_metrics(rows: Iterable[tuple[str, float, list[float] | None]], headline: str) -> None:
    """``metric value [interval]`` lines, the headline marked with ``*``."""
    echo(f"  {'metric':<16} {'value':>7}  95% interval")
    for key, value, interval in rows:
        mark = "*" if key == headline else " "
        echo(f"{mark} {key:<16} {value:7.2f}  {fmt_interval(interval)}")
    echo(HEADLINE_NOTE)
