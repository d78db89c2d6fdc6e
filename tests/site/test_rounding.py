"""Printed numbers are rounded once, from the snapshot's full value (issue 32 item 5)."""

from __future__ import annotations

from leaderboard.blueprints.public.render import cell_html
from leaderboard.services.ranking.ranking_table import _cell, shown_decimals


def _printed(value: float, name: str) -> str:
    data = {"benchmark": {"name": name}}
    cell = _cell("gap", value, [value - 1.05, value + 1.0], decimals=shown_decimals(data))
    return str(cell_html(cell))


def test_swords_prints_one_decimal_rounded_from_the_full_value():
    # 50.2527 -> 50.25 -> 50.2 (half to even) was the double rounding; 50.3 is right.
    html = _printed(50.2527, "swords")
    assert '<span class="v" title="95% interval 49.20 to 51.25">50.3</span>' in html
    assert '<span class="ci" aria-hidden="true">49.2–51.3</span>' in html


def test_ls07_and_coinco_print_two_decimals_as_papers_cite_them():
    assert ">135.75</span>" in _printed(135.7479, "semeval07")
    assert ">64.97</span>" in _printed(64.97, "coinco")
    assert _cell("gap", 50.2527, None)["value"] == 50.25  # API and exports: 2
