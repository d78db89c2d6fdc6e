"""Printed numbers are rounded once, from the snapshot's full value (issue 32 item 5)."""

from __future__ import annotations

from leaderboard.blueprints.public.render import cell_html
from leaderboard.services.ranking.ranking_table import shown_decimals
from leaderboard.services.ranking.table_rows import make_cell as _cell


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


def test_page_cells_are_what_cell_html_writes_of_the_api_cells(session, seeded):
    """The ranking page writes a system's cells from the columns (kept by their numbers
    across pages); the API's cell dicts, written by ``cell_html``, give the same HTML, tie
    marks on the sorted column included, the first time and from what was kept."""
    from leaderboard.blueprints.public.render import _score_cells
    from leaderboard.services.ranking.metric_info import views_for
    from leaderboard.services.ranking.snapshot_reader import ranking_rows

    compared = ties = 0
    for view, spec in views_for("generative").items():
        for sort in (spec.headline, spec.columns[-1], "date"):
            table = ranking_rows(session=session, board_id=seeded.board_id, view=view,
                                 sort=sort, entries="all", pos="NOUN")
            for row in table.rows:
                written = [_score_cells(row, spec.headline, sort, None) for _ in range(2)]
                expected = "".join(
                    f'<td class="{"num headline" if c["key"] == spec.headline else "num"}" '
                    f'data-value="{"" if c["value"] is None else c["value"]}">'
                    f'{cell_html(c, c["key"] == sort)}</td>' for c in row["cells"])
                assert written == [expected, expected]
                compared += len(row["cells"])
                ties += expected.count('class="tie"')
    assert compared > 100 and ties > 0
