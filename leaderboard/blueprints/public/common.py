"""Helpers shared by the public views."""

from __future__ import annotations

from typing import Any

from flask import abort, request

from leaderboard.db import get_session
from leaderboard.services.ranking_table import BadQuery, RankingTable
from leaderboard.services.snapshots import current_benchmark, ranking_rows, snapshot_data


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
                            direction=args.get("dir"))
    except BadQuery as exc:
        abort(400, description=str(exc))


def snapshot_or_empty() -> dict[str, Any]:
    """The current snapshot's data ({} before any benchmark)."""
    bench = benchmark_or_none()
    if bench is None:
        return {}
    return snapshot_data(get_session(), bench.id)[1]
