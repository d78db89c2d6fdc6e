"""HTML of the ranking's table body, built in Python.

A large board's body has thousands of cells, which Jinja macros build many times slower
than plain string building does. Text from users is escaped here.
"""

from __future__ import annotations

from typing import Any

from markupsafe import Markup, escape

from leaderboard.scoring.printing import printed, shown
from leaderboard.scoring.significance import format_p, significant
from leaderboard.services.catalog.reported import short_citation
from leaderboard.services.ranking.anonymity import page_path
from leaderboard.services.ranking.ranking_table import RankingTable
from leaderboard.services.ranking.systems import coverage_text
from leaderboard.services.ranking.table_rows import RowCells, Style, TableRow
from leaderboard.services.text_fields import valid_url


def cell_html(cell: dict[str, Any], show_tie: bool = False) -> Markup:
    """A score with its compact interval (exact one in the title and for screen readers) and,
    when ``show_tie`` (the sorted column only), the tie mark."""
    if cell["value"] is None:
        return Markup(_NOT_PROVIDED)
    interval = cell["interval"]
    exact = None if not interval else (f"{interval[0]:.2f}", f"{interval[1]:.2f}")
    tie = _tie_mark(cell["p"]) if show_tie and cell.get("tied") else ""
    return Markup(_score_html(cell["shown"], exact, cell["shown_interval"], tie))


_NOT_PROVIDED = '<span class="na" title="not provided">–</span>'


def _tie_mark(p: float | None) -> str:
    # Short on purpose: with 1,000 systems many cells carry this mark, and the legend
    # explains it in full.
    return (f'<abbr class="tie" title="not significantly different from the next-better '
            f'system, p = {format_p(p)}">≈</abbr>')


def _score_html(shown: str, exact: tuple[str, str] | None, compact: Any, tie: str) -> str:
    """A score's HTML: its printed value, the tie mark, the interval compact and exact
    (``exact``, ``compact``: the bounds printed with two decimals and as the value is)."""
    if exact is None:
        return f'<span class="v">{shown}</span>{tie}'
    low, high = exact
    return (f'<span class="v" title="95% interval {low} to {high}">{shown}</span>{tie}'
            f'<span class="ci" aria-hidden="true">{compact[0]}–{compact[1]}</span>'
            f'<span class="sr-only">, 95% interval {low} to {high}</span>')


def _score_cells(r: TableRow, headline: str, sort: str, human_pct: str | None) -> str:
    """A system row's score cells, written from its columns' values (its cell dicts are
    never made for the page): what ``<td>{cell_html(cell)}</td>`` writes of each."""
    style = r.source.style
    g, i = r.g, r.i
    parts = []
    for cls, values, intervals, ties, sorted_here, pct_after in _plan(r.source, headline, sort):
        value = values[g]
        if value is None:
            parts.append(cls + _NOT_PROVIDED_CELL)
        else:
            interval = intervals[g]
            low, high = (float(interval[0]), float(interval[1])) if interval else (None, None)
            p = ties[i] if sorted_here and i < len(ties) else None
            tie = _tie_mark(p) if p is not None and not significant(p) else ""
            parts.append(cls + _cell_after_class(float(value), low, high, style, tie))
        if pct_after and human_pct is not None:
            parts.append(f'<td class="num pct">{human_pct}</td>')
    return "".join(parts)


_NOT_PROVIDED_CELL = f'data-value="">{_NOT_PROVIDED}</td>'


def _cell_after_class(value: float, low: float | None, high: float | None, style: Style,
                      tie: str) -> str:
    """What ``<td ...>{cell_html(cell)}</td>`` writes after the class, from the numbers."""
    family = style[0]
    html = (_score_html(shown(value, *style), None, None, tie) if low is None else
            _score_html(shown(value, *style), (shown(low, family), shown(high, family)),
                        (shown(low, *style), shown(high, *style)), tie))
    return f'data-value="{printed(value, family)}">{html}</td>'


def _plan(cells: RowCells, headline: str, sort: str) -> list[tuple]:
    """How :func:`_score_cells` reads each column of a table's rows, worked out once per
    table: its class, values, intervals, ties, whether it is sorted on and whether the
    % Humans cell follows."""
    plan = cells.memo.get((headline, sort))
    if plan is None:
        plan = [('<td class="num headline" ' if key == headline else '<td class="num" ',
                 values, intervals, ties, key == sort, key == headline)
                for key, values, intervals, ties in cells.columns]
        cells.memo[(headline, sort)] = plan
    return plan


_APART = ' class="apart"'


def matrix_rows_html(rows: list[dict[str, Any]], sys_base: str) -> Markup:
    """The POS matrix's system rows (``matrix_of``'s): name linked to its page, why it is set
    apart, team, a cell per POS. Written here, not by a Jinja loop: a loop over a page of
    rows, each row's link through ``url_for``, costs more than the rest of the page."""
    parts = []
    for r in rows:
        why = r.get("set_apart")
        apart = f'<span class="apart-why">set apart: {escape(why)}</span>' if why else ""
        cells = "".join(f'<td class="num">{cell_html(cell)}</td>' for cell in r["cells"])
        parts.append(f'<tr{_APART if why else ""}><th scope="row" class="col-system sticky">'
                     f'<a href="{sys_base}{page_path(r)}">{escape(r["system"])}</a>{apart}'
                     f'</th><td>{escape(r["team"])}</td>{cells}</tr>\n    ')
    return Markup("".join(parts))


def options_html(choices: list[dict[str, Any]], *, exclude: int | None = None,
                 selected: int | None = None) -> Markup:
    """A system selector's ``<option>``s (``choices``: id and label), without ``exclude``,
    ``selected`` marked: what a Jinja loop writes, at a tenth of its cost (1,000 systems: 3.4
    ms a list through the loop, on every system page and twice on the compare page)."""
    return Markup("".join(
        f'<option value="{c["id"]}"{" selected" if c["id"] == selected else ""}>'
        f'{escape(c["label"])}</option>' for c in choices if c["id"] != exclude))


def _team_link(r: dict[str, Any], team_base: str, team: str) -> str:
    """The team column: a link to the team's page, or (an anonymous row) no team at all."""
    if r.get("team_id") is None:
        return f'<span class="muted">{team}</span>'
    return f'<a href="{team_base}{r["team_id"]}">{team}</a>'


def _link(url: str | None, text: str) -> str:
    if not valid_url(url):
        return ""
    return f'<a href="{escape(url)}" rel="nofollow noopener">{text}</a>'


def _coverage_mark(coverage: dict[str, Any] | None) -> str:
    """``564/762`` beside a system that left targets unanswered (they score 0), the exact
    answered / empty / missing counts in its title; nothing for a complete one."""
    if not coverage or not coverage["unanswered"]:
        return ""
    text = coverage_text(coverage)
    return (f' <abbr class="coverage" title="{escape(text)}">{coverage["answered"]}/'
            f'{coverage.get("answerable") or coverage["targets"]}</abbr><span class="sr-only">, '
            f'{escape(text)}</span>')


def _row(r: TableRow, table: RankingTable, sys_base: str, team_base: str,
         headline_label: str) -> str:
    rank_tie = r["tied_with_next_better"] and table.sort in ("rank", table.view.headline)
    if r.get("set_apart"):
        parts = [f'<tr class="apart"><td class="col-rank sticky num" title="'
                 f'{escape(r["set_apart"])}">–']
    else:
        parts = ['<tr class="tied">' if rank_tie else "<tr>",
                 f'<td class="col-rank sticky num" data-value="{r["rank"]}"><strong>'
                 f'{r["rank"]}</strong>']
    if rank_tie:
        parts.append(f'<abbr class="tie" title="not significantly different from the '
                     f'next-better on {headline_label}, p = {format_p(r["rank_p"])}">≈</abbr>')
    if r["rank_lo"] is not None:
        parts.append(f'<span class="ci" title="95% rank interval">{r["rank_lo"]}–{r["rank_hi"]}'
                     f'</span><span class="sr-only">, 95% rank interval {r["rank_lo"]} to '
                     f'{r["rank_hi"]}</span>')
    system, team = escape(r["system"]), escape(r["team"])
    cons = "" if r["conservative_rank"] is None else r["conservative_rank"]
    parts.append(
        f'</td><th scope="row" class="col-system sticky2" data-value="{system}">'
        f'<a href="{sys_base}{page_path(r)}">{system}</a>{_coverage_mark(r.get("coverage"))}'
        f'{_flag_note(r)}</th>')
    pct = None
    if table.human_defined:
        pct = "" if r["pct_humans"] is None else f'{r["pct_humans"]:.0f}%'
    parts.append(_score_cells(r, table.view.headline, table.sort, pct))
    parts.append(
        f'<td class="num col-cons" data-value="{cons}">{cons}</td>'
        f'<td data-value="{team}">{_team_link(r, team_base, team)}</td>'
        f'<td data-value="{r.get("submitted_at", r["date"])}"><time datetime="{r["date"]}">'
        f'{r["date"]}</time></td>'
        f'<td>{_link(r.get("paper_url"), "paper")}</td>'
        f'<td>{_link(r.get("code_url"), "code")}</td></tr>')
    return "".join(parts)


def _flag_note(r: dict[str, Any]) -> str:
    """Why a row is set apart (its own group), or, where it is ranked, that it repeats
    answers the field's script credits each time (this view's metric is not inflated)."""
    if r.get("set_apart"):
        return f'<span class="apart-why">{escape(r["set_apart"])}</span>'
    if r.get("flags"):
        text = (f"repeats answers on {r['items_with_duplicates']:,} items: this view's "
                "metric does not count repeats twice, so it is ranked here")
        return f' <abbr class="flag" title="{escape(text)}">repeats</abbr>'
    return ""


def _apart_html(table: RankingTable, sys_base: str, team_base: str,
                headline_label: str) -> str:
    """The set-apart rows, under a group heading saying why they are not ranked."""
    rows = table.apart_rows
    if not rows:
        return ""
    ncols = len(table.columns) + 7 + (1 if table.human_defined else 0)
    head = (f'<tr class="group"><th scope="rowgroup" colspan="{ncols}">Set apart · not ranked '
            f"on {headline_label}: these files repeat answers, which the field's script "
            "credits each time (the numbers shown are the script's)</th></tr>")
    return head + "".join(_row(r, table, sys_base, team_base, headline_label) for r in rows)


def rows_html(table: RankingTable, *, sys_base: str, team_base: str,
              headline_label: str, apart: bool = False) -> Markup:
    """The ranked systems' ``<tr>`` elements, or with ``apart`` the set-apart ones (their
    own ``<tbody>``)."""
    if apart:
        return Markup(_apart_html(table, sys_base, team_base, headline_label))
    inline: dict[int, list[dict[str, Any]]] = {}
    for r in table.reported:
        if r.get("place") is not None:
            inline.setdefault(r["place"], []).append(r)
    index = table.columns.index(table.view.headline)
    best_first = (table.sort, table.direction) in (("rank", "asc"),
                                                   (table.view.headline, "desc"))
    parts = []
    ranked = table.ranked_rows
    for i in range(len(ranked) + 1):
        here = sorted(inline.get(i, []), key=lambda r: r["cells"][index]["value"],
                      reverse=best_first)
        parts += [_reported_row(r, table, inline=True) for r in here]
        if i < len(ranked):
            parts.append(_row(ranked[i], table, sys_base, team_base, headline_label))
    return Markup("".join(parts))


def _printed(value: float, shown: str) -> str:
    """As every other cell of the board prints (``shown``); the publication's own figure
    (33.61) in the title when it printed more."""
    if float(shown) == value:
        return f'<span class="v">{shown}</span>'
    return f'<span class="v" title="{value:g} as published">{shown}</span>'


def reported_rows_html(table: RankingTable) -> Markup:
    """The reported rows' ``<tr>`` elements: name, citation link, the printed numbers (blank
    where not printed), "reported, not re-scored" and what they were computed on."""
    return Markup("".join(_reported_row(r, table) for r in table.folded_reported))


def _reported_row(r: dict[str, Any], table: RankingTable, inline: bool = False) -> str:
    """One reported row; ``inline`` (shown among the systems, at the place its headline
    number would take) adds the sort values the ranking's script reads, its rank cell
    sorting just above the system it beats."""
    parts = []
    name = escape(r["name"])
    note = f' title="{escape(r["note"])}"' if r["note"] else ""
    title = escape(f"{r['citation']} ({r['source']})")
    cite = _link(r["url"], f'<span title="{title}">{escape(short_citation(r["citation"]))}'
                 "</span>") or f'<span title="{title}">{escape(r["citation"])}</span>'
    if inline:
        above = r["above_rank"]
        title = (f"reported, not re-scored: would rank above rank {above}; unranked"
                 if above is not None else "reported, not re-scored; unranked")
        parts.append(f'<tr class="ref ref-reported reported-inline" title="{title}">'
                     f'<td class="col-rank sticky" data-value="'
                     f'{"" if above is None else above - 0.5}">–</td>')
    else:
        parts.append('<tr class="ref ref-reported"><td class="col-rank sticky">–</td>')
    parts.append(f'<th scope="row" class="col-system sticky2"><span{note}>{name}</span>'
                 f'<span class="cite">{cite}</span></th>')
    for cell in r["cells"]:
        value = cell["value"]
        printed = "" if value is None else _printed(value, cell["shown"])
        sort_value = (f' data-value="{"" if value is None else value}"' if inline else "")
        parts.append(f'<td class="num" data-key="{cell["key"]}"{sort_value}>{printed}</td>')
        if cell["key"] == table.view.headline and table.human_defined:
            parts.append('<td class="num muted"></td>')
    parts.append('<td class="num col-cons">–</td>'
                 '<td class="muted reported-status">reported, not re-scored</td>'
                 f'<td class="muted reported-on">{escape(r["computed_on"])}</td>'
                 f'<td>{_link(r["url"], "paper")}</td><td></td></tr>')
    return "".join(parts)
