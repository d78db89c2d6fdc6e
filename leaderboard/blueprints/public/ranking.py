"""Ranking (home), POS × system matrix, charts and the CSV/JSON exports."""

from __future__ import annotations

from flask import Response, abort, render_template, request

from leaderboard.blueprints.public import bp
from leaderboard.blueprints.public.common import snapshot_or_empty, table_from_query
from leaderboard.services import charts, exports
from leaderboard.services.metric_info import (
    DEFAULT_SORT,
    DEFAULT_VIEW,
    LABELS,
    POS_VALUES,
    VIEWS,
    describe,
    short_label,
)
from leaderboard.services.ranking_table import BadQuery, build_matrix


def _context() -> dict:
    return {"views": VIEWS, "pos_values": POS_VALUES, "labels": LABELS,
            "short_label": short_label, "describe": describe,
            "default_view": DEFAULT_VIEW, "default_sort": DEFAULT_SORT}


@bp.get("/")
def ranking():
    """The ranking (home page): ?view=, ?pos=, ?sort=, ?dir= (400 on unknown values)."""
    table = table_from_query()
    return render_template("public/ranking.html", table=table, **_context())


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
               charts.to_json(charts.score_distribution(data, view.headline))]
    return render_template("public/charts.html", figures=figures, view=view,
                           benchmark=data.get("benchmark"), **_context())


def _export(kind: str) -> Response:
    table = table_from_query()
    if table is None:
        abort(404, description="No benchmark has been imported yet.")
    if kind == "csv":
        body, mimetype = exports.to_csv(table), "text/csv; charset=utf-8"
    else:
        body, mimetype = exports.to_json(table), "application/json"
    response = Response(body, mimetype=mimetype)
    name = f"swords-leaderboard-{table.view.key}-{(table.pos or 'all').lower()}.{kind}"
    response.headers["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


@bp.get("/leaderboard.csv")
def export_csv():
    """The ranking as shown (same query string), as CSV."""
    return _export("csv")


@bp.get("/leaderboard.json")
def export_json():
    """The ranking as shown (same query string), as JSON."""
    return _export("json")
