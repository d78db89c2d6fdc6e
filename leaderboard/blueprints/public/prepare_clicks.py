"""What a ranker prepares once readers are shown a snapshot: the ranking pages one click
from those :mod:`.prepare` wrote (each column's sort, each part of speech, the other entries
choice, the next page), with their API answers and, for a query in its view's own order,
its exports.

The links are read off the prepared pages themselves, so whatever the template links to is
what gets prepared. It runs after the snapshot is shown and stops as soon as the ranker has
other work (a newer refresh of the board, any job in its queues): a reader who clicks first
gets the page made by the web process from the table parts, as before.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import parse_qs, urlsplit

from flask import Flask, url_for
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from leaderboard.blueprints.public.common import BOARD_ARG, current_board
from leaderboard.blueprints.public.prepare import (
    core_of,
    query_items,
    store_items,
    use_engine,
)
from leaderboard.blueprints.public.prepared import api_variant, page_variant, parse_json
from leaderboard.models import Board, LeaderboardSnapshot
from leaderboard.services.catalog.boards import board_views
from leaderboard.services.ranking import prepared_pages
from leaderboard.services.ranking.metric_info import default_view, views_for
from leaderboard.services.ranking.ranking_table import (
    API_PER_PAGE,
    BadQuery,
    build_table,
    parse_entries,
    parse_html_page,
    parse_q,
    parse_query,
)
from leaderboard.services.ranking.snapshots import SNAPSHOT_FORMAT

#: The query-string keys of a ranking link (anything else: not a ranking page we prepare).
_QUERY_KEYS = frozenset({"view", "pos", "sort", "dir", "entries", "q", "page", BOARD_ARG})
_HREF = re.compile(r'href="([^"]*)"')

Stop = Callable[[], bool]


def click_preparer(app: Flask) -> Callable[[Engine, int, int, Stop], int]:
    """What a ranker calls once readers are shown a snapshot it prepared:
    :func:`prepare_clicks` with ``app`` on the ranker's engine."""

    def prepare(engine: Engine, board_id: int, snapshot_id: int, stop: Stop) -> int:
        use_engine(app, engine)
        return prepare_clicks(app, board_id, snapshot_id, stop)

    return prepare


def prepare_clicks(app: Flask, board_id: int, snapshot_id: int,
                   stop: Stop = lambda: False) -> int:
    """Prepare the ranking pages linked from each view's prepared default page, committing
    each query as it is made, until ``stop()`` says the ranker has other work or the
    snapshot is gone; returns how many items were written."""
    engine = app.extensions["db_engine"]
    if stop():  # before parsing the snapshot: seconds at 10,000 systems
        return 0
    with Session(engine) as session:
        board = session.get(Board, board_id)
        newest = session.exec(select(LeaderboardSnapshot.id).where(
            LeaderboardSnapshot.board_id == board_id).order_by(
            col(LeaderboardSnapshot.id).desc())).first()
        if board is None or newest != snapshot_id:  # gone, or replaced: nobody reads it long
            return 0
        row = session.get(LeaderboardSnapshot, snapshot_id)
        data = row.data
        views = board_views(board, session)
        slug = "" if board.is_default else board.slug
        have = set(prepared_pages.stored_variants(session, snapshot_id))
    if int(data.get("format", 0)) < SNAPSHOT_FORMAT:
        return 0
    written = 0
    with app.test_request_context("/" if not slug else f"/?{BOARD_ARG}={slug}"):
        current_board()  # the shown board names the pages' variants (their links keep it)
        for link in _links(engine, snapshot_id, views, slug, have):
            if stop():
                break
            try:
                made = _link_items(app, data, snapshot_id, views, link)
            except BadQuery:  # a page past the last: not linked, but nothing to make
                continue
            items = {key: body for key, body in made.items() if key not in have}
            if not store_items(engine, board_id, snapshot_id, items):
                break
            have.update(items)
            written += len(items)
    return written


def _links(engine: Engine, snapshot_id: int, views: str, slug: str,
           have: set[tuple[str, str]]) -> Iterator[dict[str, str]]:
    """The query args of each ranking page linked from a view's prepared default page (the
    default view's first) whose page or API answer was not prepared yet, each once."""
    home = urlsplit(url_for("public.ranking")).path  # its URL keeps the shown board's arg
    seen: set[tuple[str, str]] = set()
    default = default_view(views)
    pages = [page_variant(_core({"view": key}, views))
             for key in (default, *(k for k in views_for(views) if k != default))]
    with Session(engine) as session:
        bodies = prepared_pages.load_many(session, snapshot_id, prepared_pages.PAGE, pages)
    for body in (bodies[page] for page in pages if page in bodies):
        for block in parse_json(body).values():
            for href in _HREF.findall(block):
                args = _ranking_args(html.unescape(href), home, slug)
                if args is None:
                    continue
                try:
                    linked = _core(args, views)
                except BadQuery:
                    continue
                wanted = {(prepared_pages.PAGE, page_variant(linked))}
                if linked[-1] == 1:
                    wanted.add((prepared_pages.API, api_variant((*linked[:6], None), 1,
                                                                 API_PER_PAGE)))
                if wanted - have - seen:
                    seen.update(wanted)
                    yield args


def _ranking_args(href: str, home: str, slug: str) -> dict[str, str] | None:
    """A link's ranking query (view, pos, sort, dir, entries, q, page), or None when it is
    not a ranking page of the shown board."""
    parts = urlsplit(href)
    if parts.scheme or parts.netloc or parts.path != home:
        return None
    query = parse_qs(parts.query, keep_blank_values=True)
    if not set(query) <= _QUERY_KEYS or any(len(v) != 1 for v in query.values()):
        return None
    args = {k: v[0] for k, v in query.items()}
    if args.pop(BOARD_ARG, "") != slug:
        return None
    return args


def _core(args: dict[str, str], views: str) -> tuple[Any, ...]:
    """The parsed query a web process looks the page up by (``_ranking_query``'s)."""
    view, pos, sort, direction = parse_query(args.get("view"), args.get("pos"),
                                             args.get("sort"), args.get("dir"), views)
    return (view.key, pos, sort, direction, parse_entries(args.get("entries")),
            parse_q(args.get("q")), parse_html_page(args.get("page")))



def _link_items(app: Flask, data: dict[str, Any], snapshot_id: int, views: str,
                args: dict[str, str]) -> dict[tuple[str, str], bytes]:
    """A linked query's page blocks; on its first page the API's answer too and, when it is
    in its view's own order and unfiltered, its exports (another sort reorders them)."""
    whole = build_table(data, snapshot_id=snapshot_id, view=args.get("view"),
                        pos=args.get("pos"), sort=args.get("sort"), direction=args.get("dir"),
                        entries=args.get("entries"), q=args.get("q"))
    page = parse_html_page(args.get("page"))
    own_order = (whole.sort, whole.direction) == parse_query(whole.view.key, None, None, None,
                                                             views)[2:]
    return query_items(app, whole, core_of(whole), [page], api=page == 1,
                       files=page == 1 and own_order and not whole.query)
