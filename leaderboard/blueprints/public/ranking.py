"""Ranking (home), POS × system matrix, charts and the CSV/JSON exports."""

from __future__ import annotations

from flask import Response, abort, render_template, request

from leaderboard.blueprints.public import bp
from leaderboard.blueprints.public.common import (
    boards_signature,
    current_board,
    personal_page,
    ranking_response,
    snapshot_or_empty,
)
from leaderboard.services.ranking import charts, exports
from leaderboard.services.ranking.metric_info import (
    DEFAULT_SORT,
    DEFAULT_VIEW,
    LABELS,
    POS_VALUES,
    VIEWS,
    describe,
    short_label,
)
from leaderboard.services.ranking.ranking_table import BadQuery, build_matrix


def _context() -> dict:
    return {"views": VIEWS, "pos_values": POS_VALUES, "labels": LABELS,
            "short_label": short_label, "describe": describe,
            "default_view": DEFAULT_VIEW, "default_sort": DEFAULT_SORT}


@bp.get("/")
def ranking():
    """The ranking (home page): ?view=, ?pos=, ?sort=, ?dir= (400 on unknown values).

    Served from the per-snapshot page cache (see ``ranking_response``) unless personal."""
    board = current_board()
    if board is None:
        return render_template("public/ranking.html", table=None, **_context())
    try:
        return ranking_response(
            board.id, "ranking.html",
            lambda table: render_template("public/ranking.html", table=table, **_context()),
            "text/html", shared=not personal_page(), extra=boards_signature())
    except BadQuery as exc:
        abort(400, description=str(exc))


@bp.get("/matrix")
def matrix():
    """Systems × POS for one metric (?metric=, default strict F^10)."""
    data = snapshot_or_empty()
    metric = request.args.get("metric", DEFAULT_SORT)
    try:
        grid = build_matrix(data, metric)
    except BadQuery as exc:
        abort(400, description=str(exc))
    metrics = [k for k in VIEWS["all"].columns]
    return render_template("public/matrix.html", grid=grid, metrics=metrics,
                           benchmark=data.get("benchmark"), **_context())


@bp.get("/charts")
def charts_page():
    """Precision-recall scatter and score distribution of all public systems."""
    data = snapshot_or_empty()
    view = VIEWS.get(request.args.get("view", DEFAULT_VIEW))
    if view is None or view.key == "all":
        abort(400, description="view must be one of strict-a, strict-c, lenient-a, lenient-c")
    mode, ref = view.key.split("-")
    figures = [charts.to_json(charts.precision_recall(data, mode, ref)),
               charts.to_json(charts.score_dots(data, view.headline))]
    return render_template("public/charts.html", figures=figures, view=view,
                           benchmark=data.get("benchmark"), **_context())


def _export(kind: str) -> Response:
    board = current_board()
    if board is None:
        abort(404, description="No benchmark has been imported yet.")

    def render(table) -> str:
        return exports.to_csv(table) if kind == "csv" else exports.to_json(table)

    # Flask adds "; charset=utf-8" to text/* itself: naming it here would repeat it.
    mimetype = "text/csv" if kind == "csv" else "application/json"
    try:
        response = ranking_response(board.id, f"export.{kind}", render, mimetype)
    except BadQuery as exc:
        abort(400, description=str(exc))
    view = request.args.get("view") or DEFAULT_VIEW
    pos = (request.args.get("pos") or "all").lower()
    response.headers["Content-Disposition"] = (
        f'attachment; filename="swords-leaderboard-{view}-{pos}.{kind}"')
    return response


@bp.get("/leaderboard.csv")
def export_csv():
    """The ranking as shown (same query string), as CSV."""
    return _export("csv")


@bp.get("/leaderboard.json")
def export_json():
    """The ranking as shown (same query string), as JSON."""
    return _export("json")
