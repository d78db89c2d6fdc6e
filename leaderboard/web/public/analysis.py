"""Head-to-head comparison, the pairwise significance view and progress over time."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flask import abort, g, redirect, render_template, request, url_for
from flask_login import current_user

from leaderboard.db import get_session
from leaderboard.models import Board, Submission, Team
from leaderboard.scoring.significance import ALPHA, format_p, p_phrase
from leaderboard.services.ranking import charts
from leaderboard.services.ranking.charts.heatmap import heatmap
from leaderboard.services.ranking.charts.history import history as history_chart
from leaderboard.services.ranking.head_to_head import NotComparable, head_to_head
from leaderboard.services.ranking.metric_info import (
    LABELS,
    POS_VALUES,
    default_sort,
    default_view,
    describe,
    displayed,
    pos_values_for,
    track_of,
    views_for,
)
from leaderboard.services.ranking.pairwise import (
    MAX_TOP,
    pairwise_table,
    parse_around,
    window_start,
    window_table,
)
from leaderboard.services.ranking.ranking_table import BadQuery
from leaderboard.services.ranking.systems import can_view
from leaderboard.web.public.analysis_limits import charge_uncached
from leaderboard.web.public.blueprint import bp
from leaderboard.web.public.common import (
    BOARD_ARG,
    choices_of,
    current_views,
    per_snapshot,
    snapshot_or_empty,
)
from leaderboard.web.public.render import options_html


def _id_arg(name: str) -> int | None:
    raw = request.args.get(name)
    if raw in (None, ""):
        return None
    try:
        return int(raw)
    except ValueError:
        abort(400, description=f"{name} must be a system id (a whole number).")


def _pos_arg() -> str | None:
    pos = request.args.get("pos") or None
    if pos in (None, "ALL", "all"):
        return None
    if pos not in POS_VALUES:
        abort(400, description=f"pos must be ALL, {', '.join(POS_VALUES)}")
    return pos


@bp.get("/compare")
def compare():
    """Head-to-head of ?a= and ?b= (system ids), optionally on ?pos=: a summary, then per
    metric both scores, the difference with its 95% paired-bootstrap interval, p, verdict."""
    a_id, b_id, pos = _id_arg("a"), _id_arg("b"), _pos_arg()
    if a_id is not None and BOARD_ARG not in request.args:
        _show_board_of(a_id)
    data = snapshot_or_empty()
    choices = choices_of(data)
    result = error = None
    if a_id is not None and b_id is not None:
        try:
            # A pair not compared yet costs CPU: counted against the caller's budgets.
            result = head_to_head(session=get_session(), a_id=a_id, b_id=b_id,
                                  viewer=current_user, pos=pos, on_miss=charge_uncached)
        except NotComparable as exc:   # the same reason as the API's 409
            error = f"No paired comparison: {exc}."
        if result is None and error is None:
            abort(404, description="No such system, or it is not public.")
    # B defaults to the second system listed, A to none
    b_shown = b_id if b_id is not None else (choices[1]["id"] if len(choices) > 1 else None)
    page = render_template("public/compare.html", result=result, error=error,
                           options_a=options_html(choices, selected=a_id),
                           options_b=options_html(choices, selected=b_shown),
                           a_id=a_id, b_id=b_id, pos=pos,
                           pos_values=pos_values_for(track_of(data)), labels=LABELS,
                           describe=describe, format_p=format_p, p_phrase=p_phrase, alpha=ALPHA)
    # Not comparable: 409 with the API's reason, not a 200 page that looks like a result.
    return (page, 409) if error else page


def _show_board_of(submission_id: int) -> None:
    """Without ``?leaderboard=`` (a system page's "compare with"), the page shows the board of
    system A, not the default one, when the viewer may see A."""
    session = get_session()
    sub = session.get(Submission, submission_id)
    if sub is not None and can_view(sub, current_user, session.get(Team, sub.team_id)):
        g.board = session.get(Board, sub.board_id)


@bp.get("/significance")
def significance():
    """Pairwise view: P(row beats column) among the top 30 on ?metric=, or among the 30
    systems around submission ?around= (a ranked metric), significant cells marked, and a
    compact letter display."""
    data = snapshot_or_empty()
    track = current_views()
    metric = request.args.get("metric", default_sort(track))
    try:
        around = parse_around(request.args.get("around"))
        # Every system of one window shares its table and chart: built once per snapshot.
        window = None if around is None else window_start(data, metric, around)
        table, figure = per_snapshot("significance", (metric, MAX_TOP, window),
                                     lambda: _grid(data, metric, around))
    except BadQuery as exc:
        abort(400, description=str(exc))
    if around is not None:
        table = {**table, "around": around}
    return render_template("public/significance.html", table=table, figure=figure,
                           metrics=displayed(track), labels=LABELS, format_p=format_p,
                           benchmark=data.get("benchmark"))


def _grid(data: Mapping[str, Any], metric: str, around: int | None) -> tuple[dict, str | None]:
    """The pairwise table and its heatmap's JSON, computed: counted against the caller's
    budgets first (:func:`charge_uncached`; refused with a 429 past them)."""
    charge_uncached()
    return grid_of(data, metric, around)


def grid_of(data: Mapping[str, Any], metric: str,
            around: int | None) -> tuple[dict, str | None]:
    """The pairwise table of the top systems on ``metric`` (or the window around system
    ``around``) and its heatmap's JSON (None for fewer than two systems)."""
    table = (pairwise_table(data, metric) if around is None
             else window_table(data, metric, around))
    figure = charts.to_json(heatmap(table)) if len(table["systems"]) > 1 else None
    return table, figure


@bp.get("/history")
def history():
    """Progress over time on the view's headline metric (?view=)."""
    data = snapshot_or_empty()
    track = current_views()
    views = {k: v for k, v in views_for(track).items() if k != "all"}
    view = views.get(request.args.get("view") or default_view(track))
    if view is None:
        abort(400, description=f"view must be one of {', '.join(views)}")
    figure = per_snapshot("history", (view.key,),
                           lambda: charts.to_json(history_chart(data, view.headline)))
    return render_template("public/history.html", figure=figure, view=view, views=views,
                           n_systems=len(data.get("systems", [])), labels=LABELS)


def redirect_to_compare(system_id: int, other: int):
    """``/systems/A?compare=B`` now lives at ``/compare?a=A&b=B``."""
    return redirect(url_for("public.compare", a=system_id, b=other), code=302)
