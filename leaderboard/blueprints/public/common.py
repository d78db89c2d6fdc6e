"""Helpers shared by the public views."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import Response, abort, request, session
from flask_login import current_user

from leaderboard.db import get_session
from leaderboard.services.ranking.ranking_table import (
    BadQuery,
    RankingTable,
    parse_entries,
    parse_q,
    parse_query,
)
from leaderboard.services.ranking.snapshot_reader import (
    cached_body,
    latest_snapshot,
    ranking_rows,
    snapshot_data,
)
from leaderboard.services.ranking.snapshots import current_benchmark


def benchmark_or_none() -> Any:
    """The benchmark the site shows (None before any import)."""
    return current_benchmark(get_session())


def table_from_query() -> RankingTable | None:
    """The ranking for the request's view/pos/sort/dir; 400 on unknown values."""
    bench = benchmark_or_none()
    if bench is None:
        return None
    args = request.args
    try:
        return ranking_rows(session=get_session(), benchmark_id=bench.id, view=args.get("view"),
                            pos=args.get("pos"), sort=args.get("sort"),
                            direction=args.get("dir"), entries=args.get("entries"),
                            q=args.get("q"))
    except BadQuery as exc:
        abort(400, description=str(exc))


def snapshot_or_empty() -> dict[str, Any]:
    """The current snapshot's data ({} before any benchmark)."""
    bench = benchmark_or_none()
    if bench is None:
        return {}
    return snapshot_data(get_session(), bench.id)[1]


def personal_page() -> bool:
    """Whether this visitor's page differs from everybody's (logged in: team name and logout
    form in the header; pending flash messages), so it must not come from the shared cache."""
    return bool(current_user.is_authenticated or session.get("_flashes"))


def ranking_response(benchmark_id: int, kind: str,
                     render: Callable[[RankingTable], bytes | str], mimetype: str,
                     *, shared: bool = True) -> Response:
    """The ranking in some form (page, export, API JSON) for the request's query, rendered
    once per snapshot and query and then served from memory as bytes, with an ETag and
    Last-Modified so clients revalidate with a 304. Raises :class:`BadQuery`.

    ``shared=False`` (a personal page) renders without the body cache and without validators.
    """
    args = request.args
    view, pos, sort = args.get("view"), args.get("pos"), args.get("sort")
    direction, entries, q = args.get("dir"), args.get("entries"), args.get("q")
    parsed = parse_query(view, pos, sort, direction)
    entries_value, query = parse_entries(entries), parse_q(q)
    ref = latest_snapshot(get_session(), benchmark_id)

    def build() -> bytes | str:
        return render(ranking_rows(session=get_session(), benchmark_id=benchmark_id, view=view,
                                   pos=pos, sort=sort, direction=direction, ref=ref,
                                   entries=entries_value, q=query))

    if not shared:
        response = Response(build(), mimetype=mimetype)
        response.headers["Cache-Control"] = "private, no-cache"
        return response
    variant = (parsed[0].key, parsed[1], parsed[2], parsed[3], entries_value, query,
               request.script_root)
    entry = cached_body(ref, kind, variant, build)
    gzipped = "gzip" in request.headers.get("Accept-Encoding", "")
    response = Response(entry.gzipped if gzipped else entry.body, mimetype=mimetype)
    if gzipped:
        response.headers["Content-Encoding"] = "gzip"
    response.vary.add("Accept-Encoding")
    # Weak: the gzipped and plain bodies are the same representation for revalidation.
    response.set_etag(entry.etag, weak=True)
    response.last_modified = ref.created_at
    response.headers["Cache-Control"] = "public, no-cache"
    return response.make_conditional(request)
