"""api blueprint: the public ranking as JSON (no token needed), read from the snapshot."""

from __future__ import annotations

from flask import jsonify, request

from leaderboard.blueprints.api import bp
from leaderboard.blueprints.api.submissions import error_response, rate_limited
from leaderboard.db import get_session
from leaderboard.services.ranking_table import BadQuery
from leaderboard.services.snapshots import current_benchmark, ranking_rows


@bp.get("/leaderboard")
@rate_limited
def leaderboard():
    """The ranking for ``?view=&pos=&sort=&dir=`` (same values as the ranking page)."""
    session = get_session()
    bench = current_benchmark(session)
    if bench is None:
        return error_response(404, "no_benchmark", "no benchmark split is loaded yet")
    args = request.args
    try:
        table = ranking_rows(session=session, benchmark_id=bench.id, view=args.get("view"),
                             pos=args.get("pos"), sort=args.get("sort"),
                             direction=args.get("dir"))
    except BadQuery as exc:
        return error_response(400, "bad_query", str(exc))
    return jsonify(table.to_dict())
