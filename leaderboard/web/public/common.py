"""Helpers shared by the public views."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import datetime
from typing import Any

from flask import Response, abort, g, request, session
from flask_login import current_user
from sqlalchemy import func
from sqlmodel import col, select
from werkzeug.exceptions import HTTPException

from leaderboard.db import get_session
from leaderboard.models import Board, LeaderboardSnapshot, Split
from leaderboard.services.catalog.benchmarks import get_split
from leaderboard.services.catalog.boards import (
    BoardError,
    board_or_default,
    board_summary,
    board_views,
    list_boards,
    view_set,
)
from leaderboard.services.ranking.metric_info import pos_values_for
from leaderboard.services.ranking.ranking_table import (
    RankingTable,
    page_of,
    parse_entries,
    parse_html_page,
    parse_q,
    parse_query,
)
from leaderboard.services.ranking.snapshot_reader import (
    SnapshotRef,
    cached_body,
    cached_value,
    latest_snapshot,
    load_data,
    ranking_rows,
)
from leaderboard.services.ranking.snapshots import public_counts

#: Query parameter naming the leaderboard a page shows (absent: the default one).
BOARD_ARG = "leaderboard"
#: No board, no snapshot (before any benchmark is imported).
EMPTY_REF = SnapshotRef("", 0, 0, datetime(1970, 1, 1))


def current_board() -> Board | None:
    """The board this request shows: ``?leaderboard=<slug>`` or the default one (None before
    any split is imported); 404 for an unknown slug. Resolved once per request."""
    if "board" not in g:
        try:
            g.board = board_or_default(get_session(), request.args.get(BOARD_ARG))
        except BoardError as exc:
            abort(404, description=str(exc))
    return g.board


def current_views() -> str | None:
    """The view set of the shown board (its metrics and views; see ``metric_info``)."""
    board = current_board()
    if board is None:
        return None
    if "views" not in g:
        g.views = view_set(board.track, get_split(get_session(), board.split_id).name)
    return g.views


#: Pages of one board: their links keep the shown board's ``?leaderboard=``.
BOARD_ENDPOINTS = frozenset({"public.ranking", "public.matrix", "public.charts_page",
                             "public.compare", "public.significance", "public.history",
                             "public.export_csv", "public.export_json"})


def keep_board_in_links(endpoint: str, values: dict[str, Any]) -> None:
    """``url_for`` of a board page, while showing a board other than the default, links to
    the same board; pass ``leaderboard=None`` to link to the default one."""
    board = g.get("board")
    if (endpoint in BOARD_ENDPOINTS and board is not None and not board.is_default
            and BOARD_ARG not in values):
        values[BOARD_ARG] = board.slug


def board_nav() -> dict[str, Any]:
    """For the page header: the shown board's summary and every board's, the shown first."""
    board = current_board()
    boards = [{**board_summary(b, bench), "id": b.id} for b, bench in list_boards(get_session())]
    shown = next((b for b in boards if board is not None and b["slug"] == board.slug), None)
    return {"shown_board": shown, "boards": boards}


#: Pages whose board switcher links to the same page of the other board (the rest link to
#: its ranking).
SWITCH_SAME_PAGE = BOARD_ENDPOINTS - {"public.export_csv", "public.export_json"}


def shown_board_has_pos() -> bool:
    """Whether the header's "By POS" link applies to the page's board: not on a board whose
    benchmark has no part of speech (TSAR-2022); pages without a board keep it."""
    if request.blueprint != "public" or (request.endpoint or "") not in BOARD_ENDPOINTS:
        return True
    try:
        return bool(pos_values_for(current_views()))
    except HTTPException:  # an unknown ?leaderboard=: its 404 page keeps the whole header
        return True


def board_bar() -> dict[str, Any] | None:
    """What the bar under the header shows: the shown board, every board, and the endpoint the
    switcher links to; None on pages that show no board (about, team, account pages)."""
    endpoint = request.endpoint or ""
    if endpoint not in BOARD_ENDPOINTS and endpoint != "public.system":
        return None
    try:
        nav = board_nav()
    except HTTPException:  # the 404 page of an unknown ?leaderboard= shows no bar
        return None
    if nav["shown_board"] is None:
        return None
    # Counts only on the ranking, whose page is cached (boards_signature keeps them current).
    # (The bar lists the boards, with their counts, only when there are several.)
    counts = (board_counts() if endpoint == "public.ranking" and len(nav["boards"]) > 1
              else None)
    # Chips name the benchmark only when the boards are of more than one (else the bar does).
    mixed = len({(b["benchmark"]["name"], b["benchmark"]["version"]) for b in nav["boards"]}) > 1
    return {**nav, "endpoint": endpoint if endpoint in SWITCH_SAME_PAGE else "public.ranking",
            "counts": counts, "mixed": mixed}


def board_counts() -> dict[int, int]:
    """Board id -> how many public submissions its ranking shows: the shown board's from its
    snapshot (the systems it lists, less those withdrawn since: the table below lists no
    result scored since), the others' counted in the database."""
    counts = public_counts(get_session())
    board = current_board()
    if board is None:
        return counts
    return {**counts, board.id: len(snapshot_or_empty().get("systems", []))}


def boards_signature() -> tuple:
    """Every board's id, slug, default flag and latest snapshot: part of a cached page's key,
    so a page showing the board bar changes when a board is made, the default moves or another
    board's ranking (its count of systems) changes; none of that makes a new snapshot of the
    board already shown. Read once per request (the page's key and the bar's counts)."""
    if "boards_signature" not in g:
        session = get_session()
        boards = session.exec(select(Board.id, Board.slug, Board.is_default)
                              .order_by(col(Board.id))).all()
        latest = session.exec(select(LeaderboardSnapshot.board_id,
                                     func.max(col(LeaderboardSnapshot.id)))
                              .group_by(col(LeaderboardSnapshot.board_id))).all()
        g.boards_signature = (tuple(tuple(r) for r in boards),
                              tuple(sorted((int(b), int(i)) for b, i in latest)))
    return g.boards_signature


def shown_benchmark() -> Split | None:
    """The split of the shown board."""
    board = current_board()
    return get_split(get_session(), board.split_id) if board is not None else None


def snapshot_ref(board_id: int) -> SnapshotRef:
    """The board's latest snapshot and the systems withdrawn since, asked once a request."""
    if "snapshots" not in g:
        g.snapshots = {}
    if board_id not in g.snapshots:
        g.snapshots[board_id] = latest_snapshot(get_session(), board_id)
    return g.snapshots[board_id]


def current_snapshot() -> SnapshotRef:
    """The shown board's :func:`snapshot_ref` (:data:`EMPTY_REF` before any benchmark)."""
    board = current_board()
    return EMPTY_REF if board is None else snapshot_ref(board.id)  # type: ignore[arg-type]


def snapshot_or_empty() -> dict[str, Any]:
    """The shown board's current snapshot data without the systems withdrawn since (empty
    before any benchmark)."""
    ref = current_snapshot()
    return {} if ref.id == 0 and current_board() is None else load_data(get_session(), ref)


def choices_of(data: dict[str, Any]) -> list[dict[str, Any]]:
    """Public systems of a snapshot for a "compare with" selector: id and label. Anonymous
    ones are not offered: the selector names systems by submission id, which would link them
    to their team by its sequence."""
    return [{"id": s["id"], "label": f"{s['system']} ({s['team']})"}
            for s in data.get("systems", []) if not s.get("anonymous")]


def personal_page() -> bool:
    """Whether this visitor's page differs from everybody's (logged in: team name and logout
    form in the header; pending flash messages), so it must not come from the shared cache."""
    return bool(current_user.is_authenticated or session.get("_flashes"))


def _ranking_query(board_id: int, paged: bool, extra: tuple
                   ) -> tuple[SnapshotRef, tuple, Callable[[], RankingTable]]:
    """The board's latest snapshot, the cache key of the request's query and a function
    that builds its table: one page of it with ``paged`` (``?page=``), else all of it.
    Raises :class:`BadQuery`."""
    args = request.args
    view, pos, sort = args.get("view"), args.get("pos"), args.get("sort")
    direction, entries, q = args.get("dir"), args.get("entries"), args.get("q")
    board = get_session().get(Board, board_id)
    parsed = parse_query(view, pos, sort, direction, board_views(board) if board else None)
    entries_value, query = parse_entries(entries), parse_q(q)
    page = parse_html_page(args.get("page")) if paged else None
    ref = snapshot_ref(board_id)

    def table() -> RankingTable:
        whole = ranking_rows(session=get_session(), board_id=board_id, view=view, pos=pos,
                             sort=sort, direction=direction, ref=ref, entries=entries_value,
                             q=query)
        return whole if page is None else page_of(whole, page)

    variant = (parsed[0].key, parsed[1], parsed[2], parsed[3], entries_value, query, page,
               request.script_root, *extra)
    return ref, variant, table


def _validated(response: Response, ref: SnapshotRef, etag: str) -> Response:
    """Weak ETag (the gzipped and plain bodies are one representation) and Last-Modified,
    so clients revalidate with a 304."""
    response.vary.add("Accept-Encoding")
    response.set_etag(etag, weak=True)
    if not ref.hidden:  # with systems withdrawn since, the snapshot's time says too little
        response.last_modified = ref.created_at
    response.headers["Cache-Control"] = "public, no-cache"
    return response.make_conditional(request)


def ranking_response(board_id: int, kind: str,
                     render: Callable[[RankingTable], bytes | str], mimetype: str,
                     *, shared: bool = True, extra: tuple = (), paged: bool = False
                     ) -> Response:
    """The ranking in some form (page, API JSON, export) for the request's query, rendered
    once per snapshot, withdrawn systems and query, then served from memory as bytes, with
    an ETag and Last-Modified so clients revalidate with a 304. Raises :class:`BadQuery`.

    ``shared=False`` (a personal page) renders without the body cache and without validators.
    ``extra`` is more of the cache key: what else the body shows (the board bar's boards).
    ``paged``: one page of the view's rows (``?page=``), the HTML page's way.
    """
    ref, variant, table = _ranking_query(board_id, paged, extra)
    if not shared:
        response = Response(render(table()), mimetype=mimetype)
        response.headers["Cache-Control"] = "private, no-cache"
        return response
    entry = cached_body(ref, kind, variant, lambda: render(table()))
    gzipped = "gzip" in request.headers.get("Accept-Encoding", "")
    response = Response(entry.gzipped if gzipped else entry.body, mimetype=mimetype)
    if gzipped:
        response.headers["Content-Encoding"] = "gzip"
    return _validated(response, ref, entry.etag)


def ranking_file(board_id: int, kind: str,
                 chunks: Callable[[RankingTable], Iterator[str]], mimetype: str) -> Response:
    """The ranking as a file (an export) for the request's query: :func:`ranking_response`
    of the file's text. Raises :class:`BadQuery`."""
    return ranking_response(board_id, kind, lambda table: "".join(chunks(table)), mimetype)


def per_snapshot(kind: str, variant: tuple, build: Callable[[], Any]) -> Any:
    """Something derived from the shown board's snapshot (a chart's JSON, a grid), built
    once per process, snapshot and withdrawn systems."""
    if current_board() is None:
        return build()
    return cached_value(current_snapshot(), kind, variant, build)
