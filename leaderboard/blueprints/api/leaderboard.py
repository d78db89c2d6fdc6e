"""api blueprint: the public ranking as JSON (no token needed), read from the snapshot."""

from __future__ import annotations

from flask import current_app

from leaderboard.blueprints.api import bp
from leaderboard.blueprints.api.submissions import error_response, rate_limited
from leaderboard.blueprints.public.common import ranking_response
from leaderboard.db import get_session
from leaderboard.services.ranking.ranking_table import BadQuery
from leaderboard.services.ranking.snapshots import current_benchmark


@bp.get("/leaderboard")
@rate_limited
def leaderboard():
    """The ranking for ``?view=&pos=&sort=&dir=`` (same values as the ranking page)."""
    session = get_session()
    bench = current_benchmark(session)
    if bench is None:
        return error_response(404, "no_benchmark", "no benchmark split is loaded yet")
    try:
        # Serialised once per snapshot and query, then served as bytes (with ETag / 304).
        return ranking_response(
            bench.id, "api.json",
            lambda table: current_app.json.response(table.to_dict()).get_data(),
            "application/json")
    except BadQuery as exc:
        return error_response(400, "bad_query", str(exc))
