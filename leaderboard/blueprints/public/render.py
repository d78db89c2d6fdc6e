"""HTML of the ranking's table body, built in Python.

With 1,000 systems the body has ~12,000 cells; Jinja macros need ~0.5 s for that, plain
string building a few milliseconds. The fragment is also cached per snapshot and query, so
repeated page loads only join strings. Text from users is escaped here.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from markupsafe import Markup, escape

from leaderboard.services.ranking_table import RankingTable

_CACHE: OrderedDict[tuple, Markup] = OrderedDict()
_LOCK = threading.Lock()
_CACHE_SIZE = 128


def cell_html(cell: dict[str, Any]) -> Markup:
    """A score with its compact interval (exact one in the title and for screen readers) and
    the tie mark."""
    value = cell["value"]
    if value is None:
        return Markup('<span class="na" title="not provided">–</span>')
    interval = cell["interval"]
    title = (f' title="95% interval {interval[0]:.2f} to {interval[1]:.2f}"'
             if interval else "")
    out = f'<span class="v"{title}>{value:.1f}</span>'
    if cell.get("tied"):
        # Short on purpose: with 1,000 systems most cells carry this mark, and the legend
        # explains it in full (the long wording made up 0.7 MB of the 2.4 MB page).
        out += (f'<abbr class="tie" title="tied with the next-better system, '
                f'p = {cell["p"]:.2f}">≈</abbr>')
    if interval:
        out += (f'<span class="ci" aria-hidden="true">{interval[0]:.1f}–{interval[1]:.1f}</span>'
                f'<span class="sr-only">, 95% interval {interval[0]:.2f} to '
                f'{interval[1]:.2f}</span>')
    return Markup(out)


def _row(r: dict[str, Any], table: RankingTable, sys_base: str, team_base: str,
         headline_label: str) -> str:
    parts = ['<tr class="tied">' if r["tied_with_next_better"] else "<tr>",
             f'<td class="col-rank sticky num" data-value="{r["rank"]}"><strong>{r["rank"]}'
             "</strong>"]
    if r["tied_with_next_better"]:
        parts.append(f'<abbr class="tie" title="tied with the next-better on {headline_label}">'
                     "≈</abbr>")
    if r["rank_lo"] is not None:
        parts.append(f'<span class="ci" title="95% rank interval">{r["rank_lo"]}–{r["rank_hi"]}'
                     f'</span><span class="sr-only">, 95% rank interval {r["rank_lo"]} to '
                     f'{r["rank_hi"]}</span>')
    system, team = escape(r["system"]), escape(r["team"])
    cons = "" if r["conservative_rank"] is None else r["conservative_rank"]
    parts.append(
        f'</td><th scope="row" class="col-system sticky2" data-value="{system}">'
        f'<a href="{sys_base}{r["id"]}">{system}</a></th>'
        f'<td class="num col-cons">{cons}</td>'
        f'<td data-value="{team}"><a href="{team_base}{r["team_id"]}">{team}</a></td>'
        f'<td data-value="{r["date"]}"><time datetime="{r["date"]}">{r["date"]}</time></td>')
    headline = table.view.headline
    for cell in r["cells"]:
        value = "" if cell["value"] is None else cell["value"]
        parts.append(f'<td class="num" data-value="{value}">{cell_html(cell)}</td>')
        if cell["key"] == headline and table.human_defined:
            pct = "" if r["pct_humans"] is None else f'{r["pct_humans"]:.0f}%'
            parts.append(f'<td class="num pct">{pct}</td>')
    parts.append("</tr>")
    return "".join(parts)


def rows_html(table: RankingTable, *, sys_base: str, team_base: str,
              headline_label: str) -> Markup:
    """The systems' ``<tr>`` elements, cached per (snapshot, view, POS, sort, direction)."""
    key = (table.snapshot_id, table.generated_at, table.view.key, table.pos, table.sort,
           table.direction, sys_base, team_base)
    cached = _CACHE.get(key)
    if cached is not None:
        return cached
    html = Markup("".join(_row(r, table, sys_base, team_base, headline_label)
                          for r in table.rows))
    with _LOCK:
        _CACHE[key] = html
        while len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    return html
