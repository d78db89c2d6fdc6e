"""What a ranker prepares after committing a board's snapshot: for each of the board's
views, the ranking page's blocks and the ranking API's answer of its default query, as the
web's compute path would make them (:mod:`leaderboard.services.ranking.prepared_pages`).

Runs in a worker process under an app of its own (templates, ``url_for``, the JSON
provider), in a request context for ``/`` of the board, never in a web process.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterable
from typing import Any

from flask import Flask
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from leaderboard.blueprints.public.analysis import grid_of
from leaderboard.blueprints.public.common import BOARD_ARG
from leaderboard.blueprints.public.prepared import (
    api_variant,
    capture_blocks,
    export_variant,
    page_variant,
    snapshot_meta,
    system_variant,
    value_variant,
)
from leaderboard.blueprints.public.ranking import chart_figures, page_context
from leaderboard.blueprints.public.systems import chart_keys_for
from leaderboard.db import get_session
from leaderboard.models import Board, LeaderboardSnapshot
from leaderboard.services.catalog.boards import board_views
from leaderboard.services.ranking import charts, exports, prepared_pages
from leaderboard.services.ranking.metric_info import (
    default_sort,
    default_view,
    headlines,
    views_for,
)
from leaderboard.services.ranking.pairwise import MAX_TOP, window_parts
from leaderboard.services.ranking.ranking_table import (
    API_PER_PAGE,
    HTML_PAGE_SIZE,
    RankingTable,
    build_matrix,
    build_table,
    matrix_page,
    page_of,
    page_size,
    paged,
)
from leaderboard.services.ranking.snapshots import SNAPSHOT_FORMAT
from leaderboard.services.ranking.systems import system_detail
from leaderboard.services.ranking.table_source import encode_part, table_parts

log = logging.getLogger(__name__)


def page_preparer(app: Flask) -> Callable[[Engine, int, int], int]:
    """What a ranker calls after each snapshot it commits: :func:`prepare_board` with
    ``app``, on the ranker's own database engine (the app's own one is let go)."""

    def prepare(engine: Engine, board_id: int, snapshot_id: int) -> int:
        use_engine(app, engine)
        return prepare_board(app, board_id, snapshot_id)

    return prepare


def use_engine(app: Flask, engine: Engine) -> None:
    """Let ``app`` work on the ranker's database engine, letting its own one go."""
    if app.extensions["db_engine"] is not engine:
        app.extensions["db_engine"].dispose()
        app.extensions["db_engine"] = engine


def prepare_board(app: Flask, board_id: int, snapshot_id: int) -> int:
    """Render and store the prepared bytes of a committed snapshot; returns how many items.
    A snapshot already replaced (or of an older format) gets none. Committed in steps, what
    readers ask most first: the default view's ranking page and API answer, each other
    view's, then the rest (two thirds of the work)."""
    engine = app.extensions["db_engine"]
    with Session(engine) as session:
        board = session.get(Board, board_id)
        row = session.get(LeaderboardSnapshot, snapshot_id)
        if board is None or row is None:
            return 0
        # Parsed from the database as a web process parses it: the same numbers, keys, order.
        data = row.data
        views = board_views(board, session)
        slug, is_default = board.slug, board.is_default
        charts_kept = prepared_pages.chart_variants(session, board_id)
    if int(data.get("format", 0)) < SNAPSHOT_FORMAT:
        return 0
    path = "/" if is_default else f"/?{BOARD_ARG}={slug}"
    first: dict[tuple[str, str], bytes] = {}
    rest: dict[tuple[str, str], bytes] = {}
    with app.test_request_context(path):
        # What readers ask most first, committed at once (the default view's page and API
        # answer, then the other views'): until it is, every web process that meets the new
        # snapshot parses it for these.
        default = default_view(views)
        for key in (default, *(k for k in views_for(views) if k != default)):
            most, more = _ranking_items(app, data, snapshot_id, views, key)
            if not store_items(engine, board_id, snapshot_id, most, replace=key == default):
                return len(first)
            first.update(most)
            rest.update(more)
        rest.update(_values(data, views))
        listed, new_charts = _system_charts(data, views, charts_kept)
    if not store_items(engine, board_id, snapshot_id, rest, charts=(listed, new_charts)):
        return len(first)
    return len(first) + len(rest) + len(new_charts)


def store_items(engine: Engine, board_id: int, snapshot_id: int,
                items: dict[tuple[str, str], bytes], *, replace: bool = False,
                charts: tuple[set[str], dict[str, bytes]] | None = None) -> bool:
    """Write ``items`` for the snapshot (``replace``: instead of what it had) and the board's
    system ``charts``; False when the snapshot is gone meanwhile."""
    with Session(engine) as session:
        # Its id only: loading the row would parse its 10 MB of JSON again.
        if session.exec(select(LeaderboardSnapshot.id).where(
                LeaderboardSnapshot.id == snapshot_id)).first() is None:
            return False
        if replace:
            prepared_pages.store(session, board_id, snapshot_id, items)
        else:
            prepared_pages.add(session, board_id, snapshot_id, items)
        if charts is not None:
            prepared_pages.store_charts(session, board_id, *charts)
        session.commit()
    return True


def _json(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode()


def _ranking_items(app: Flask, data: dict[str, Any], snapshot_id: int, views: str, key: str
                   ) -> tuple[dict[tuple[str, str], bytes], dict[tuple[str, str], bytes]]:
    """A view's default query: the ranking page's blocks and the API's first page (the
    first dict), the CSV and JSON exports and, on the default view, every page and both
    exports of ``?entries=all`` (the second)."""
    first: dict[tuple[str, str], bytes] = {}
    items: dict[tuple[str, str], bytes] = {}
    for entries in (None, "all"):
        if entries is not None and key != default_view(views):
            continue
        whole = build_table(data, snapshot_id=snapshot_id, view=key, entries=entries)
        core = core_of(whole)
        if entries is None:
            made = query_items(app, whole, core, [1], api=True, files=True)
            files = {k: v for k, v in made.items() if k[0] == prepared_pages.EXPORT}
            first.update({k: v for k, v in made.items() if k not in files})
            items.update(files)
        else:
            pages = range(1, max(1, -(-len(whole.rows) // page_size(whole.view))) + 1)
            items.update(query_items(app, whole, core, pages, api=False, files=True))
    return first, items


def query_items(app: Flask, whole: RankingTable, core: tuple, pages: Iterable[int], *,
                api: bool, files: bool) -> dict[tuple[str, str], bytes]:
    """The prepared items of one query of the ranking (``core``: its parsed view, POS, sort,
    direction, entries and filter; ``whole``: its table): the page blocks of ``pages``, with
    ``api`` the API's first page, with ``files`` the CSV and JSON exports and where their
    rows lie (a query in another sort reorders them)."""
    items: dict[tuple[str, str], bytes] = {}
    for number in pages:
        _page, blocks = capture_blocks("public/ranking.html", table=page_of(whole, number),
                                       **page_context())
        items[(prepared_pages.PAGE, page_variant((*core, number)))] = _json(blocks)
    for kind in ("csv", "json") if files else ():
        body, layout = exports.export_layout(whole, kind)
        items[(prepared_pages.EXPORT, export_variant(kind, core))] = body
        items[(prepared_pages.EXPORT, export_variant(f"{kind} layout", core))] = _json(layout)
    if api:
        doc = paged(whole.to_dict(), 1, API_PER_PAGE)
        items[(prepared_pages.API, api_variant((*core, None), 1, API_PER_PAGE))] = (
            app.json.response(doc).get_data())
    return items


def core_of(table: RankingTable) -> tuple:
    """The parsed query of ``table`` as a web process looks its bytes up (view, POS, sort,
    direction, entries, filter)."""
    return (table.view.key, table.pos, table.sort, table.direction, table.entries,
            table.query)


def _values(data: dict[str, Any], views: str) -> dict[tuple[str, str], bytes]:
    """What the other pages of the board derive from the snapshot, as their default queries
    compute it: the snapshot's small keys, each view's charts and history, for each
    headline metric the significance grid (top 30) and the matrix (every page of the
    board's headline, the first of the others), for each ranked metric what its
    windows around a system read (:func:`window_parts`), and the parts any query of the
    ranking, the API, the exports and the matrix reads (:func:`table_parts`)."""
    values: dict[tuple[str, tuple], Any] = {("meta", ()): snapshot_meta(data)}
    for key, view in views_for(views).items():
        if key == "all":
            continue
        values[("charts", (key,))] = chart_figures(data, view)
        values[("history", (key,))] = charts.to_json(charts.history(data, view.headline))
    for metric in data.get("neighbours", {}):
        values.update(window_parts(data, metric))
    headline = default_sort(views)
    for metric in dict.fromkeys((headline, *headlines(views))):
        values[("significance", (metric, MAX_TOP, None))] = grid_of(data, metric, None)
        grid = build_matrix(data, metric)
        pages = -(-len(grid["rows"]) // HTML_PAGE_SIZE) if metric == headline else 1
        for number in range(1, max(1, pages) + 1):
            values[("matrix-page", (metric, number))] = matrix_page(grid, number)
    values.update(table_parts(data))
    return {(prepared_pages.VALUE, value_variant(kind, variant)): encode_part(kind, value)
            for (kind, variant), value in values.items()}


def _system_charts(data: dict[str, Any], views: str,
                   kept: set[str]) -> tuple[set[str], dict[str, bytes]]:
    """The chart variants of every listed system's page, and the charts not kept for the
    board yet (made from the system's page data: a chart depends on its result alone)."""
    keys = chart_keys_for(views)
    listed: set[str] = set()
    new: dict[str, bytes] = {}
    for system in data.get("systems", []):
        variant = system_variant(system["result_id"], keys)
        listed.add(variant)
        if variant in kept:
            continue
        detail = system_detail(session=get_session(), submission_id=system["id"], viewer=None)
        if detail is None or not detail["metrics"] or detail["result_id"] != system["result_id"]:
            continue
        new[variant] = charts.pos_bars_json(detail, keys).encode()
    return listed, new
