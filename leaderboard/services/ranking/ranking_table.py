"""Turn a snapshot's data into the ranking table shown on screen, exported and served by the API.

No database access here: everything comes from ``LeaderboardSnapshot.data``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

from leaderboard.scoring.families import SWORDS, family_for
from leaderboard.scoring.printing import printed
from leaderboard.scoring.significance import significant
from leaderboard.services.ranking.anonymity import shown_id
from leaderboard.services.ranking.metric_info import (
    POS_VALUES,
    TRACK_VIEWS,
    View,
    default_view,
    displayed,
    track_of,
    views_for,
)
from leaderboard.services.ranking.set_apart import why
from leaderboard.services.ranking.table_rows import (
    RowCells,
    Style,
    TableRow,
    cell_json,
    make_cell,
    row_values,
)
from leaderboard.services.ranking.table_source import WholeSource, block_of

ENTRIES = ("best", "all")
DEFAULT_ENTRIES = "best"
MAX_QUERY = 100

TEXT_SORTS = ("rank", "system", "team", "date")
DEFAULT_DIRECTION = {"rank": "asc", "system": "asc", "team": "asc", "date": "desc"}


class BadQuery(ValueError):
    """A query-string value the ranking does not know (the view answers 400)."""


@dataclass
class RankingTable:
    """What the ranking page shows for one view, POS and sort order."""

    view: View
    pos: str | None
    sort: str
    direction: str
    rows: list[dict[str, Any]]
    references: list[dict[str, Any]]
    benchmark: dict[str, Any]
    generated_at: str | None
    snapshot_id: int | None
    humans: dict[str, Any] | None = field(default=None)
    entries: str = DEFAULT_ENTRIES
    query: str = ""
    total: int = 0
    track: str = "generative"
    #: A publication's numbers: pinned after the references, no intervals, never ranked.
    reported: list[dict[str, Any]] = field(default_factory=list)
    #: Reference rows of this benchmark scored on another split (name, split, n_targets):
    #: not shown, only named, so a dev board says why it has no Humans row.
    references_elsewhere: list[dict[str, Any]] = field(default_factory=list)
    #: The board's scorer version, split checksum, bootstrap seed and B (each row has its
    #: own ``signature`` too: a result not yet re-scored keeps the one it was computed with).
    signature: dict[str, Any] = field(default_factory=dict)
    #: Public systems on the board, whatever the entries choice and filter show.
    n_systems: int = 0
    #: The board's snapshot is being computed by a worker (nothing to show yet).
    updating: bool = False
    #: The ranking page shows :func:`page_size` rows at a time (:func:`page_of`): which page,
    #: how many, and how many rows match in all (``rows`` holds the page's only).
    page: int = 1
    pages: int = 1
    matching: int | None = None

    @property
    def total_rows(self) -> int:
        """Rows that match the query on every page."""
        return len(self.rows) if self.matching is None else self.matching

    @property
    def first_row(self) -> int:
        """1-based position of the page's first row."""
        return (self.page - 1) * page_size(self.view) + 1

    @cached_property
    def human_defined(self) -> bool:
        """Whether the Humans reference provides the headline metric (for "% of Humans")."""
        return any(r["pct_humans"] is not None for r in self.rows)

    @property
    def folded_reported(self) -> list[dict[str, Any]]:
        """Reported rows not shown among the systems (in the folded group)."""
        return [r for r in self.reported if r.get("place") is None]

    @property
    def reported_beats_shown(self) -> bool:
        """Whether a reported row out of place beats a shown system (then unfold the group)."""
        return any(r.get("above_rank") is not None for r in self.folded_reported)

    @property
    def ranked_rows(self) -> list[dict[str, Any]]:
        """The rows ranked on this view (the set-apart ones follow them in ``rows``)."""
        return [r for r in self.rows if not r["set_apart"]]

    @property
    def apart_rows(self) -> list[dict[str, Any]]:
        """Rows set apart on this view's headline, unranked (:mod:`.set_apart`)."""
        return [r for r in self.rows if r["set_apart"]]

    @property
    def columns(self) -> tuple[str, ...]:
        """Metric keys of the view, in display order."""
        return self.view.columns

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (API and JSON export)."""
        family = shown_style({"benchmark": self.benchmark})[0]
        return {
            "benchmark": self.benchmark, "generated_at": self.generated_at,
            "scorer_version": self.signature.get("scorer_version"),
            "signature": self.signature,
            "track": self.track, "view": self.view.key, "pos": self.pos or "ALL", "sort": self.sort,
            "dir": self.direction, "entries": self.entries, "q": self.query,
            "headline": self.view.headline, "metrics": list(self.columns),
            "rows": [_row_json(r, "system", family) for r in self.rows],
            "references": [_row_json(r, r["kind"], family) for r in self.references],
            "reported": [_row_json(r, "reported", family) for r in self.reported],
            "references_elsewhere": self.references_elsewhere,
            "updating": self.updating,
        }


def _row_json(row: dict[str, Any], row_type: str, family: str) -> dict[str, Any]:
    out = {k: v for k, v in row.items() if k not in ("cells", "kind")}
    if "id" in out:
        out["id"] = shown_id(row)
    out["row_type"] = row_type
    out["metrics"] = {key: cell_json(value, interval, p, family)
                      for key, value, interval, p in row_values(row)}
    return out


#: Rows per page of the ranking page (sort, filter and POS apply to the whole board first)
#: and of the matrix.
HTML_PAGE_SIZE = 100
#: Rows per page of a view of more than :data:`WIDE_VIEW_COLUMNS` metrics (the all-metrics
#: view: 23), whose rows carry twice the cells of a narrow view's, so that a page of them
#: stays as light as a narrow one.
WIDE_PAGE_SIZE = 50
WIDE_VIEW_COLUMNS = 12
API_PER_PAGE = 100
API_MAX_PER_PAGE = 1000


def parse_page(page: str | None, per_page: str | None) -> tuple[int, int]:
    """``(page, per_page)`` of the API ranking: page from 1, 100 rows a page by default, at
    most 1,000; raises :class:`BadQuery`."""
    try:
        number = int(page) if page not in (None, "") else 1
        size = int(per_page) if per_page not in (None, "") else API_PER_PAGE
    except ValueError:
        raise BadQuery("page and per_page must be whole numbers") from None
    if number < 1 or not 1 <= size <= API_MAX_PER_PAGE:
        raise BadQuery(f"page must be 1 or more and per_page from 1 to {API_MAX_PER_PAGE}")
    return number, size


def paged(doc: dict[str, Any], page: int, per_page: int,
          total: int | None = None) -> dict[str, Any]:
    """``doc`` (:meth:`RankingTable.to_dict`) with one page of its rows and the counts a
    client pages with: ``total_rows``, ``page``, ``per_page``, ``pages``. With ``total``,
    ``doc`` holds that page's rows only (a table made with :func:`page_window`)."""
    if total is None:
        total = len(doc["rows"])
        start = (page - 1) * per_page
        doc = {**doc, "rows": doc["rows"][start:start + per_page]}
    return {**doc, "total_rows": total, "page": page, "per_page": per_page,
            "pages": max(1, -(-total // per_page))}


def page_size(view: View) -> int:
    """Rows a page of the ranking page shows in ``view``: about the same number of score
    cells whatever the view (what a page costs to write, send and lay out grows with them)."""
    return WIDE_PAGE_SIZE if len(view.columns) > WIDE_VIEW_COLUMNS else HTML_PAGE_SIZE


def page_window(page: int, size: int = HTML_PAGE_SIZE) -> tuple[int, int]:
    """The rows (start, stop) of page ``page`` of ``size`` rows."""
    start = (page - 1) * size
    return start, start + size


def parse_html_page(page: str | None) -> int:
    """The ranking page's ``?page=`` (1 when absent); BadQuery unless a whole number >= 1."""
    if page in (None, ""):
        return 1
    if not page.isdigit() or int(page) < 1 or len(page) > 9:
        raise BadQuery("page must be a whole number from 1")
    return int(page)


def page_of(table: RankingTable, page: int) -> RankingTable:
    """The rows of one page of ``table``; BadQuery past the last page. Reported rows placed
    among this page's rows keep their place; the others join the folded group."""
    start, end = page_window(page, page_size(table.view))
    return _on_page(table, table.rows[start:end], len(table.rows), page)


def _on_page(table: RankingTable, rows: list[dict[str, Any]], total: int,
             page: int) -> RankingTable:
    size = page_size(table.view)
    pages = max(1, -(-total // size))
    if page > pages:
        raise BadQuery(f"page {page} is past the last page ({pages})")
    start, end = page_window(page, size)
    reported = []
    for row in table.reported:
        place = row.get("place")
        inside = place is not None and start <= place <= min(end, total) and (
            place < end or page == pages)
        reported.append({**row, "place": place - start if inside else None})
    return replace(table, rows=rows, reported=reported, page=page, pages=pages,
                   matching=total)



def parse_entries(entries: str | None) -> str:
    """``best`` (one row per team, the default) or ``all``; raises :class:`BadQuery`."""
    value = entries or DEFAULT_ENTRIES
    if value not in ENTRIES:
        raise BadQuery(f"entries must be best or all, not {entries!r}")
    return value


def parse_q(q: str | None) -> str:
    """The filter text, trimmed; raises :class:`BadQuery` when longer than 100 characters."""
    text = (q or "").strip()
    if len(text) > MAX_QUERY:
        raise BadQuery(f"q is limited to {MAX_QUERY} characters")
    return text


def matches(row: dict[str, Any], query: str) -> bool:
    """Whether a ranking row's system or team name contains ``query`` (case-insensitive);
    the same test as static/js/filter.js."""
    needle = query.casefold()
    return needle in row["system"].casefold() or needle in row["team"].casefold()


def parse_query(view: str | None, pos: str | None, sort: str | None,
                direction: str | None,
                track: str | None = None) -> tuple[View, str | None, str, str]:
    """Validate query-string values for a board of ``track`` (None: generative), filling
    defaults; raises :class:`BadQuery`, also for a view of the other track."""
    views = views_for(track)
    view_obj = views.get(view or default_view(track))
    if view_obj is None:
        # the other track of the same benchmark family (LS07's 'all' is not SWORDS's)
        family, _, own = (track or "generative").rpartition("-")
        other = next((t.rpartition("-")[2] for t, vs in TRACK_VIEWS.items()
                      if view in vs and t.rpartition("-")[0] == family), None)
        if other is not None:
            raise BadQuery(f"view {view!r} belongs to the {other} track; this is a "
                           f"{own}-track leaderboard: use {', '.join(views)}")
        raise BadQuery(f"unknown view {view!r}; use one of {', '.join(views)}")
    pos_value = None if pos in (None, "", "ALL", "all") else pos
    if pos_value is not None and pos_value not in POS_VALUES:
        raise BadQuery(f"unknown pos {pos!r}; use ALL, {', '.join(POS_VALUES)}")
    sort_key = sort or view_obj.headline
    if sort_key not in TEXT_SORTS and sort_key not in view_obj.columns:
        raise BadQuery(f"cannot sort by {sort!r} in view {view_obj.key!r}")
    dir_value = direction or DEFAULT_DIRECTION.get(sort_key, "desc")
    if dir_value not in ("asc", "desc"):
        raise BadQuery(f"dir must be asc or desc, not {direction!r}")
    return view_obj, pos_value, sort_key, dir_value


def shown_style(data: Any) -> Style:
    """How a page prints a snapshot's numbers: by its family's rule, with two decimals on
    LS07/CoInCo/TSAR-2022 (papers cite GAP 64.97), one on SWORDS."""
    family = family_for((data.get("benchmark") or {}).get("name", ""))
    return family.name, 1 if family is SWORDS else 2


def _cells(keys: tuple[str, ...], entry: dict[str, Any], pos: str | None,
           style: Style) -> list[dict[str, Any]]:
    """A reference's (or a matrix row's) cells: its metrics on ``pos``, no tie marks."""
    metrics, intervals = block_of(entry, pos)
    return [make_cell(k, metrics.get(k), intervals.get(k), style=style) for k in keys]


def _at(source: dict, name: str, i: int) -> Any:
    values = source.get(name) or []
    return values[i] if i < len(values) else None


def build_table(data: dict[str, Any], *, snapshot_id: int | None, pos: str | None = None,
                sort: str | None = None, direction: str | None = None,
                view: str | None = None, entries: str | None = None,
                q: str | None = None) -> RankingTable:
    """The ranking for one view/POS/sort/entries/filter from snapshot data; raises
    :class:`BadQuery`. Ranks, intervals and ties are those of the entries shown (all, or each
    team's best on the headline); the ``q`` filter only hides rows."""
    return table_of(WholeSource(data), snapshot_id=snapshot_id, pos=pos, sort=sort,
                    direction=direction, view=view, entries=entries, q=q)


def table_of(source: WholeSource, *, snapshot_id: int | None, pos: str | None = None,
             sort: str | None = None, direction: str | None = None, view: str | None = None,
             entries: str | None = None, q: str | None = None) -> RankingTable:
    """:func:`build_table` from a :class:`WholeSource`."""
    top = source.top
    track = track_of(top)
    view_obj, pos, sort, direction = parse_query(view, pos, sort, direction, track)
    entries_value, query = parse_entries(entries), parse_q(q)
    headline = view_obj.headline
    tied = view_obj.columns
    stats = source.shown(headline, entries_value, pos)[1]
    ties = stats.get("ties", {})
    ranks = stats.get("ranks", {}).get(headline, {})
    all_systems = source.systems()
    light, total = _ordered(source, view_obj, pos, sort, direction, entries_value, query)
    reported = reported_rows(top, view_obj, pos)
    place_reported(reported, [r for r in light if not r["set_apart"]], view_obj, sort,
                   direction)
    references = top.get("references", [])
    humans = next((r for r in references if r.get("kind") == "human"), None)
    human_value = block_of(humans, pos)[0].get(headline) if humans else None
    rows = _full_rows(source, light, view_obj, pos, (ties, ranks), human_value, tied)
    style = shown_style(top)
    refs = [{"name": ref["name"], "kind": ref["kind"], "note": ref.get("note", ""),
             "subset": ref.get("subset", False), "split": ref.get("split"),
             "n_targets": ref.get("n_targets"), "scorer_version": ref.get("scorer_version"),
             "signature": ref.get("signature"),
             "cells": _cells(view_obj.columns, ref, pos, style)} for ref in references]
    n_systems = len(all_systems)
    return RankingTable(view_obj, pos, sort, direction, rows, refs, top.get("benchmark", {}),
                        top.get("generated_at"), snapshot_id, humans, entries_value, query,
                        total, track, reported, list(top.get("references_elsewhere", [])),
                        dict(top.get("signature") or {}), n_systems,
                        bool(top.get("updating")))


def _ordered(source: WholeSource, view: View, pos: str | None, sort: str, direction: str,
             entries: str, query: str) -> tuple[list[dict[str, Any]], int]:
    """The shown entries as light rows (what sorting and filtering read), filtered by
    ``query``, sorted, the set-apart ones last; and how many there are unfiltered."""
    headline = view.headline
    indices, stats = source.shown(headline, entries, pos)
    rank_of = stats.get("ranks", {}).get(headline, {}).get("rank") or []
    n_ranked = len(rank_of)
    all_systems = source.systems()
    heads = source.rounded(pos, headline)
    sorted_by = (source.rounded(pos, sort) if sort in view.columns and sort != headline
                 else heads)
    light = []
    append = light.append
    for i, g in enumerate(indices):
        system = all_systems[g]
        append({"i": i, "g": g, "id": system["id"], "system": system["system"],
                "team": system["team"], "submitted_at": system["date"],
                "headline": heads[g], "sort_value": sorted_by[g],
                "rank": rank_of[i] if i < n_ranked else None,
                # only a flagged system can be set apart
                "set_apart": why(system, headline) if system.get("flags") else ""})
    total = len(light)
    if query:
        light = [r for r in light if matches(r, query)]
    _sort_rows(light, sort, direction)
    # set apart: their own group below the ranked rows, whatever the sort
    return [r for r in light if not r["set_apart"]] + [r for r in light if r["set_apart"]], total


def _full_rows(source: WholeSource, light: list[dict[str, Any]], view: View, pos: str | None,
               stats: tuple[dict[str, Any], dict[str, Any]],
               human_value: float | None, tied: Sequence[str]) -> list[dict[str, Any]]:
    """The table rows of ``light`` (sorted, filtered): every rank and mark, and the cells
    made when read (:class:`.table_rows.TableRow`); ``stats``: the shown entries' ties and
    headline ranks; ``tied``: the columns whose ties the rows give."""
    ties, ranks = stats
    columns = [(k, *source.column(pos, k), (ties.get(k) or ()) if k in tied else ())
               for k in view.columns]
    cells = RowCells(columns, shown_style(source.top))
    heads = source.column(pos, view.headline)[0]
    all_systems = source.systems()
    rows = []
    for r in light:
        i, g = r["i"], r["g"]
        system = all_systems[g]
        headline = heads[g]
        pct = (round(100.0 * headline / human_value, 1)
               if headline is not None and human_value else None)
        head_p = _at(ties, view.headline, i)
        rows.append(TableRow({
            "id": system["id"], "system": system["system"], "team": system["team"],
            "team_id": system["team_id"], "date": system["date"][:10],
            "submitted_at": system["date"],   # the full time: the date sort is not by day
            "paper_url": system.get("paper_url"), "code_url": system.get("code_url"),
            "anonymous": system.get("anonymous"), "system_slug": system.get("system_slug"),
            "rank": _at(ranks, "rank", i), "rank_lo": _at(ranks, "lo", i),
            "rank_hi": _at(ranks, "hi", i),
            "conservative_rank": _at(ranks, "conservative", i),
            "tied_with_next_better": head_p is not None and not significant(head_p),
            "rank_p": head_p, "headline": r["headline"], "pct_humans": pct,
            "coverage": system.get("coverage"),
            "signature": system.get("signature"),
            "flags": list(system.get("flags") or []),
            "items_with_duplicates": system.get("items_with_duplicates"),
            "set_apart": r["set_apart"],
        }, cells, g, i))
    return rows


def reported_rows(data: dict[str, Any], view: View, pos: str | None) -> list[dict[str, Any]]:
    """The snapshot's reported rows with a cell per column of ``view`` (None where the
    publication printed no number). Publications give no per-POS numbers, so a POS view
    shows none."""
    if pos is not None:
        return []
    out, style = [], shown_style(data)
    for row in data.get("reported", []):
        metrics = row.get("metrics", {})
        bench = row.get("benchmark", {})
        out.append({"name": row["name"], "citation": row.get("citation", ""),
                    "url": row.get("url", ""), "source": row.get("source", ""),
                    "note": row.get("note", ""), "benchmark": bench,
                    "computed_on": f"{bench.get('name', '')} v{bench.get('version', '')} "
                                   f"{bench.get('split', '')}",
                    "status": "reported, not re-scored",
                    "cells": [make_cell(k, metrics.get(k), None, style=style)
                              for k in view.columns]})
    return out


def place_reported(reported: list[dict[str, Any]], rows: list[dict[str, Any]], view: View,
                   sort: str, direction: str) -> None:
    """Mark each reported row whose headline number beats a shown system: ``above_rank`` is
    the best rank it would take (it stays unranked), ``place`` the index of ``rows`` it is
    shown before when the table is in headline order (None otherwise). A publication that
    beats the ranked systems must not hide in the folded group."""
    index = view.columns.index(view.headline)
    best_first = (sort, direction) in (("rank", "asc"), (view.headline, "desc"))
    in_order = best_first or (sort, direction) in (("rank", "desc"), (view.headline, "asc"))
    for row in reported:
        value = row["cells"][index]["value"]
        beaten = [i for i, r in enumerate(rows) if value is not None
                  and (r["headline"] is None or r["headline"] < value)]
        row["above_rank"] = min((rows[i]["rank"] for i in beaten
                                 if rows[i]["rank"] is not None), default=None)
        row["place"] = None
        if beaten and in_order:
            row["place"] = beaten[0] if best_first else beaten[-1] + 1


_LAST = float("inf")


def _sort_rows(rows: list[dict[str, Any]], sort: str, direction: str) -> None:
    """Sort :func:`table_of`'s light rows (``sort_value``: the sort column's value)."""
    # Base order: headline descending (none last), then rank, date and id, so equal keys
    # stay ranked: the headline is rounded to 2 decimals and ranks come from the full
    # scores (by date alone, rank 13 came above rank 12 at 1,000 systems).
    rows.sort(key=lambda r: (-r["headline"] if r["headline"] is not None else _LAST,
                             r["rank"] if r["rank"] is not None else _LAST,
                             r["submitted_at"], r["id"]))
    reverse = direction == "desc"
    if sort == "rank":
        if reverse:
            rows.reverse()
        return
    if sort in ("system", "team"):
        rows.sort(key=lambda r: r[sort].casefold(), reverse=reverse)
        return
    if sort == "date":
        rows.sort(key=lambda r: r["submitted_at"], reverse=reverse)
        return
    missing = float("-inf") if reverse else float("inf")
    if not reverse:  # equal values worst first: ascending reads descending backwards
        rows.reverse()
    rows.sort(key=lambda r: r["sort_value"] if r["sort_value"] is not None else missing,
              reverse=reverse)


def matrix_of(source: WholeSource, metric: str,
              page: int | None = None) -> dict[str, Any]:
    """Systems × POS for one metric of the board's track (value and interval per cell), best
    overall first; with ``page``, that page of :data:`HTML_PAGE_SIZE` rows only (BadQuery
    past the last page), making that page's cells only."""
    top = source.top
    if metric not in displayed(track_of(top)):
        raise BadQuery(f"unknown metric {metric!r} on a {track_of(top)}-track leaderboard")
    pos_columns = [source.column(p, metric) for p in (None, *POS_VALUES)]
    overall = pos_columns[0][0]
    style = shown_style(top)
    order = [(why(s, metric), g, s) for g, s in enumerate(source.systems())]
    order.sort(key=lambda r: (bool(r[0]), -(
        printed(overall[r[1]], style[0]) if overall[r[1]] is not None else float("-inf"))))
    total, start = len(order), 0
    if page is not None:
        pages = max(1, -(-total // HTML_PAGE_SIZE))
        if page > pages:
            raise BadQuery(f"page {page} is past the last page ({pages})")
        start = (page - 1) * HTML_PAGE_SIZE
        order = order[start:start + HTML_PAGE_SIZE]
    systems = [{"id": s["id"], "system": s["system"], "team": s["team"],
                "anonymous": s.get("anonymous"), "system_slug": s.get("system_slug"),
                "cells": [make_cell(metric, values[g], intervals[g], style=style)
                          for values, intervals in pos_columns],
                "set_apart": apart} for apart, g, s in order]
    refs = [{"name": r["name"], "kind": r["kind"], "subset": r.get("subset", False),
             "cells": [_cells((metric,), r, p, style)[0] for p in (None, *POS_VALUES)]}
            for r in top.get("references", [])]
    grid = {"metric": metric, "columns": ["ALL", *POS_VALUES], "rows": systems,
            "references": refs}
    if page is None:
        return grid
    return {**grid, "page": page, "pages": pages, "first_row": start + 1, "total_rows": total}
