"""Printed numbers are rounded once, from the snapshot's full value."""

from __future__ import annotations

from leaderboard.services.ranking.ranking_table import shown_style
from leaderboard.services.ranking.table_rows import make_cell as _cell
from leaderboard.web.public.render import cell_html


def _printed(value: float, name: str) -> str:
    data = {"benchmark": {"name": name}}
    cell = _cell("gap", value, [value - 1.05, value + 1.0], style=shown_style(data))
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
    from leaderboard.services.ranking.metric_info import views_for
    from leaderboard.services.ranking.snapshot_reader import ranking_rows
    from leaderboard.web.public.render import _score_cells

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


#: The matrix's rows as its template wrote them with a Jinja loop (before they were written
#: in Python).
_MATRIX_LOOP = (
    "{% for r in rows %}<tr{% if r.set_apart %} class=\"apart\"{% endif %}><th scope=\"row\" "
    "class=\"col-system sticky\"><a href=\"{{ url_for('public.system', submission_id=r.id) }}"
    "\">{{ r.system }}</a>{% if r.set_apart %}<span class=\"apart-why\">set apart: "
    "{{ r.set_apart }}</span>{% endif %}</th><td>{{ r.team }}</td>{% for cell in r.cells %}"
    "<td class=\"num\">{{ cell_html(cell) }}</td>{% endfor %}</tr>\n    {% endfor %}")


def test_matrix_rows_are_what_the_template_loop_wrote(app):
    """A set-apart row (its reason shown), markup in system, team and reason (escaped), a
    missing value and one without an interval: the same HTML as the Jinja loop."""
    from flask import render_template_string

    from leaderboard.web.public.render import matrix_rows_html

    rows = [{"id": 7, "system": "<b>bold</b> & co", "team": 'T "1"',
             "set_apart": "repeats answers on 1,204 items; <i>score.pl</i> counts each",
             "cells": [_cell("oot_r", 135.7479, [120.0, 140.25], style=("coinco", 2)),
                       _cell("oot_r", None, None, style=("coinco", 2))]},
            {"id": 8, "system": "plain", "team": "T2", "set_apart": "",
             "cells": [_cell("oot_r", 12.5, None, style=("coinco", 2))]}]
    with app.test_request_context("/matrix"):
        expected = render_template_string(_MATRIX_LOOP, rows=rows)
        written = str(matrix_rows_html(rows, "/systems/"))
    assert written == expected
    assert "&lt;b&gt;bold&lt;/b&gt; &amp; co" in written and "&lt;i&gt;score.pl" in written
    assert '<tr class="apart">' in written and written.count("<tr") == 2


def test_a_score_cell_is_written_as_the_api_cell_prints_at_every_rounding_edge():
    """The page writes each cell in one f-string (``_cell_after_class``), its sort value
    the value as the API prints it: the same bytes as ``cell_html``
    of the API's cell at halves, zeros, 100, integers and values with many decimals."""
    import random

    from leaderboard.web.public.render import _cell_after_class

    rng = random.Random(7)
    values = [0.0, -0.0, 100.0, 100, 50, 0.005, 0.015, 1.005, 2.675, 99.995, 33.335, 7.125,
              0.004, -0.004, 1e-9, 12.25, 12.35]
    values += [rng.uniform(0, 100) for _ in range(3000)]
    values += [rng.randint(0, 100_000) / 1000 for _ in range(3000)]
    checked = 0
    for n, value in enumerate(values):
        low, high = values[n - 1], values[n - 2]
        for style in (("swords", 1), ("coinco", 2), ("tsar2022", 2)):
            for interval in ([low, high], None):
                cell = _cell("gap", value, interval, style=style)
                expected = f'data-value="{cell["value"]}">{cell_html(cell)}</td>'
                lo, hi = interval or (None, None)
                assert _cell_after_class(float(value), lo, hi, style, "") == expected
                checked += 1
    assert checked == 6 * len(values)
