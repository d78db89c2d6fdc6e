"""What a ranker prepares after committing a board's snapshot: for each of the board's
views, the ranking page's blocks and the ranking API's answer of its default query, as the
web's compute path would make them (:mod:`leaderboard.services.ranking.prepared_pages`).

Runs in a worker process under an app of its own (templates, ``url_for``, the JSON
provider), in a request context for ``/`` of the board, never in a web process.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable

from flask import Flask
from sqlalchemy.engine import Engine
from sqlmodel import Session

from leaderboard.blueprints.public.common import BOARD_ARG
from leaderboard.blueprints.public.prepared import api_variant, capture_blocks, page_variant
from leaderboard.blueprints.public.ranking import page_context
from leaderboard.models import Board, LeaderboardSnapshot
from leaderboard.services.catalog.boards import board_views
from leaderboard.services.ranking import prepared_pages
from leaderboard.services.ranking.metric_info import views_for
from leaderboard.services.ranking.ranking_table import (
    API_PER_PAGE,
    build_table,
    page_of,
    paged,
    parse_entries,
    parse_q,
    parse_query,
)
from leaderboard.services.ranking.snapshots import SNAPSHOT_FORMAT

log = logging.getLogger(__name__)


def page_preparer(app: Flask) -> Callable[[Engine, int, int], int]:
    """What a ranker calls after each snapshot it commits: :func:`prepare_board` with
    ``app``, on the ranker's own database engine (the app's own one is let go)."""

    def prepare(engine: Engine, board_id: int, snapshot_id: int) -> int:
        if app.extensions["db_engine"] is not engine:
            app.extensions["db_engine"].dispose()
            app.extensions["db_engine"] = engine
        return prepare_board(app, board_id, snapshot_id)

    return prepare


def prepare_board(app: Flask, board_id: int, snapshot_id: int) -> int:
    """Render and store the prepared bytes of a committed snapshot; returns how many items.
    A snapshot already replaced (or of an older format) gets none."""
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
    if int(data.get("format", 0)) < SNAPSHOT_FORMAT:
        return 0
    path = "/" if is_default else f"/?{BOARD_ARG}={slug}"
    items: dict[tuple[str, str], bytes] = {}
    with app.test_request_context(path):
        for key in views_for(views):
            view, pos, sort, direction = parse_query(key, None, None, None, views)
            entries, query = parse_entries(None), parse_q(None)
            core = (view.key, pos, sort, direction, entries, query)
            whole = build_table(data, snapshot_id=snapshot_id, view=key, entries=entries,
                                q=query)
            table = page_of(whole, 1)
            _page, blocks = capture_blocks("public/ranking.html", table=table,
                                           **page_context())
            items[(prepared_pages.PAGE, page_variant((*core, 1)))] = json.dumps(
                blocks, separators=(",", ":")).encode()
            doc = paged(whole.to_dict(), 1, API_PER_PAGE)
            items[(prepared_pages.API, api_variant((*core, None), 1, API_PER_PAGE))] = (
                app.json.response(doc).get_data())
    with Session(engine) as session:
        if session.get(LeaderboardSnapshot, snapshot_id) is None:
            return 0
        prepared_pages.store(session, board_id, snapshot_id, items)
        session.commit()
    return len(items)

