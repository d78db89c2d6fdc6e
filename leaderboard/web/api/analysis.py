"""api blueprint: head-to-head comparison and pairwise significance (public, no token)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flask import jsonify, request

from leaderboard.db import get_session
from leaderboard.scoring.significance import ALPHA
from leaderboard.services.catalog.boards import BoardError, board_or_default, board_views
from leaderboard.services.ranking.head_to_head import NotComparable, head_to_head
from leaderboard.services.ranking.metric_info import default_sort
from leaderboard.services.ranking.pairwise import (
    pairwise_table,
    parse_around,
    parse_top,
    window_start,
    window_table,
)
from leaderboard.services.ranking.ranking_table import BadQuery
from leaderboard.services.ranking.snapshot_reader import cached_value, latest_snapshot, load_data
from leaderboard.web.api.blueprint import bp
from leaderboard.web.api.submissions import error_response, rate_limited
from leaderboard.web.public.analysis_limits import AnalysisLimited, charge_uncached


@bp.get("/compare")
@rate_limited
def compare():
    """``?a=ID&b=ID[&pos=POS]``: both systems and, per metric, the scores, ``diff`` = a − b
    with its 95% paired-bootstrap ``diff_interval``, ``p_beats`` = P(a beats b), the
    two-sided ``p_value`` and ``significant``. Public systems only (404 otherwise)."""
    try:
        a_id, b_id = int(request.args.get("a", "")), int(request.args.get("b", ""))
    except ValueError:
        return error_response(400, "bad_query", "a and b must be system ids (whole numbers)")
    pos = request.args.get("pos") or None
    pos = None if pos in ("ALL", "all") else pos
    try:
        result = head_to_head(session=get_session(), a_id=a_id, b_id=b_id, viewer=None, pos=pos,
                              on_miss=charge_uncached)
    except AnalysisLimited as exc:
        return _limited(exc)
    except NotComparable as exc:
        return error_response(409, "not_comparable", str(exc))
    except ValueError as exc:
        return error_response(400, "bad_query", str(exc))
    if result is None:
        return error_response(404, "not_found", "no such public system")
    return jsonify(result)


@bp.get("/significance")
@rate_limited
def significance():
    """``?metric=KEY&top=N[&leaderboard=SLUG]`` (N from 2 to 30; the metric defaults to the
    leaderboard's headline, GAP on a ranking board): the top N public systems
    on the metric with their compact letters, and ``p_beats[i][j]`` = P(system i beats
    system j), ``p_value`` and ``significant`` matrices. ``&around=ID`` (a ranked metric):
    the 30 systems around submission ID instead, and ``first_rank`` of the window."""
    session = get_session()
    try:
        board = board_or_default(session, request.args.get("leaderboard"))
    except BoardError as exc:
        return error_response(404, "unknown_leaderboard", str(exc))
    if board is None:
        return error_response(404, "no_benchmark", "no benchmark split is loaded yet")
    metric = request.args.get("metric", default_sort(board_views(board, session)))
    try:
        top = parse_top(request.args.get("top"))
        around = parse_around(request.args.get("around"))
        ref = latest_snapshot(session, board.id)  # type: ignore[arg-type]
        data = load_data(session, ref)
        # Every system of one window shares its table: built once per snapshot and window.
        window = None if around is None else window_start(data, metric, around)
        table = cached_value(ref, "pairwise", (metric, top if around is None else None,
                                               window), lambda: _table(data, metric, top, around))
    except BadQuery as exc:
        return error_response(400, "bad_query", str(exc))
    except AnalysisLimited as exc:
        return _limited(exc)
    if around is not None:
        table = {**table, "around": around}
    return jsonify({"alpha": ALPHA, "rule": "p = 2*min(P, 1-P), P = P(row beats column) on "
                    "the shared bootstrap resamples (ties count half); significant if p < alpha",
                    **table})


def _table(data: Mapping[str, Any], metric: str, top: int, around: int | None) -> dict:
    """The pairwise table, computed: counted against the caller's budgets first."""
    charge_uncached()
    return (pairwise_table(data, metric, top) if around is None
            else window_table(data, metric, around))


def _limited(exc: AnalysisLimited):
    """429 in the API's envelope (``rate_limited``, as its other limits) with the budget's
    reason and wait."""
    response, status = error_response(429, "rate_limited", str(exc.description),
                                      retry_after=exc.retry_after)
    response.headers["Retry-After"] = str(exc.retry_after)
    return response, status
