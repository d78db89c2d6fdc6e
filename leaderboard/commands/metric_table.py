"""The metric table that ``score`` and ``submit`` print: the board's order, headline first
and marked, so a terminal reads like the ranking (not alphabetically)."""

from __future__ import annotations

import sys
from collections.abc import Iterable

from leaderboard.scoring.printing import shown

HEADLINE_NOTE = "* headline: what the leaderboard ranks by"


def echo(text: str = "", *, err: bool = False) -> None:
    """``click.echo`` for plain text (a line to stdout or stderr, flushed), without importing
    click: the numpy-free ``leaderboard score`` prints through it too."""
    print(text, file=sys.stderr if err else sys.stdout, flush=True)


def fmt_interval(interval: list[float] | None, family: str = "") -> str:
    return f"[{shown(interval[0], family):>6}, {shown(interval[1], family):>6}]" if interval else ""


def echo_metrics(rows: Iterable[tuple[str, float, list[float] | None]], headline: str,
                 family: str = "") -> None:
    """``metric value [interval]`` lines, the headline marked with ``*``, each number as the
    site prints it (``family``'s rule: score.pl's, tsar_eval.py's)."""
    echo(f"  {'metric':<16} {'value':>7}  95% interval")
    for key, value, interval in rows:
        mark = "*" if key == headline else " "
        echo(f"{mark} {key:<16} {shown(value, family):>7}  {fmt_interval(interval, family)}")
    echo(HEADLINE_NOTE)
