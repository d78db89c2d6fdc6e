"""Ranking (home), POS × system matrix, charts and the CSV/JSON exports."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flask import Response, abort, render_template, request

from leaderboard.db import get_session
from leaderboard.services.catalog.benchmarks import get_split
from leaderboard.services.catalog.citations import board_citation
from leaderboard.services.ranking import charts, exports
from leaderboard.services.ranking.charts.scores import precision_recall, score_dots
from leaderboard.services.ranking.metric_info import (
    LABELS,
    POS_VALUES,
    View,
    default_sort,
    default_view,
    describe,
    displayed,
    short_label,
    views_for,
)
from leaderboard.services.ranking.ranking_table import (
    BadQuery,
    matrix_of,
    parse_html_page,
)
from leaderboard.services.ranking.table_source import WholeSource
from leaderboard.web.public.blueprint import bp
from leaderboard.web.public.common import (
    boards_signature,
    current_board,
    current_views,
    per_snapshot,
    personal_page,
    ranking_file,
    ranking_response,
    snapshot_or_empty,
)
from leaderboard.web.public.results import site_url


def _track() -> str | None:
    board = current_board()
    return board.track if board is not None else None


def page_context() -> dict:
    """What the ranking page's template needs beside its table (the shown board's views and
    the citation of its benchmark)."""
    views, board = current_views(), current_board()
    citation = (board_citation(get_split(get_session(), board.split_id).name, site_url() + "/")
                if board is not None else None)
    return {"views": views_for(views), "pos_values": POS_VALUES, "labels": LABELS,
            "short_label": short_label, "describe": describe, "track": _track() or "generative",
            "default_view": default_view(views), "default_sort": default_sort(views),
            "citation": citation}


@bp.get("/")
def ranking():
    """The ranking (home page): ?view=, ?pos=, ?sort=, ?dir=, ?entries=, ?q=, ?page=
    (100 rows a page, 50 in the all-metrics view; 400 on unknown values).

    Served from the process's page cache (see ``ranking_response``) unless personal."""
    board = current_board()
    if board is None:
        return render_template("public/ranking.html", table=None, **page_context())
    try:
        return ranking_response(
            board.id, "ranking.html",
            lambda table: render_template("public/ranking.html", table=table, **page_context()),
            "text/html", shared=not personal_page(), extra=boards_signature(), paged=True)
    except BadQuery as exc:
        abort(400, description=str(exc))


@bp.get("/matrix")
def matrix():
    """Systems × POS for one metric (?metric=, default the board's headline: strict F^10,
    GAP on a ranking board)."""
    data = snapshot_or_empty()
    metric = request.args.get("metric", default_sort(current_views()))
    try:
        page = parse_html_page(request.args.get("page"))
        grid = per_snapshot("matrix-page", (metric, page),
                            lambda: matrix_of(WholeSource(data), metric, page=page))
    except BadQuery as exc:
        abort(400, description=str(exc))
    metrics = list(displayed(current_views()))
    # The subset footnote points at the lenient view only where the board has one.
    lenient_view = "lenient-a" if "lenient-a" in views_for(current_views()) else None
    return render_template("public/matrix.html", grid=grid, metrics=metrics,
                           benchmark=data.get("benchmark"), lenient_view=lenient_view,
                           **page_context())


@bp.get("/charts")
def charts_page():
    """Precision-recall scatter (SWORDS generative views only: with every candidate given,
    precision and recall at 10 mean nothing) and the dot plot of the view's headline."""
    data = snapshot_or_empty()
    view = _chart_view()
    figures = per_snapshot("charts", (view.key,), lambda: chart_figures(data, view))
    return render_template("public/charts.html", figures=figures, view=view,
                           benchmark=data.get("benchmark"),
                           references=data.get("references", []), **page_context())


def chart_figures(data: Mapping[str, Any], view: View) -> list[tuple[str, str]]:
    """The figures of ``/charts`` for ``view`` (JSON, description): the precision-recall
    scatter on a SWORDS generative view, and the dot plot of the view's headline."""
    figures = []
    if view.headline.endswith("_f@10"):
        mode, ref = view.key.split("-")
        figures.append((charts.to_json(precision_recall(data, mode, ref)),
                        "Precision-recall scatter of all public systems with iso-F curves; "
                        "the top systems are named"))
    figures.append((charts.to_json(score_dots(data, view.headline)),
                    "Dot plot of the top systems on the headline metric with 95% intervals"))
    return figures


def chart_views() -> dict:
    """The board's views a chart can show (not the grouped "all metrics" one)."""
    return {k: v for k, v in views_for(current_views()).items() if k != "all"}


def _chart_view():
    views = chart_views()
    view = views.get(request.args.get("view") or default_view(current_views()))
    if view is None:
        abort(400, description=f"view must be one of {', '.join(views)}")
    return view


def _export(kind: str) -> Response:
    board = current_board()
    if board is None:
        abort(404, description="No benchmark has been imported yet.")

    chunks = exports.csv_chunks if kind == "csv" else exports.json_chunks
    # Flask adds "; charset=utf-8" to text/* itself: naming it here would repeat it.
    mimetype = "text/csv" if kind == "csv" else "application/json"
    try:
        response = ranking_file(board.id, f"export.{kind}", chunks, mimetype)
    except BadQuery as exc:
        # A script (pandas, curl) asked for a file: the reason as plain text, not a page.
        return Response(f"{exc}\n", status=400, mimetype="text/plain")
    view = request.args.get("view") or default_view(current_views())
    pos = (request.args.get("pos") or "all").lower()
    # the board names the file: semeval07-all-ranking-gap-all.csv
    response.headers["Content-Disposition"] = (
        f'attachment; filename="{board.slug}-{view}-{pos}.{kind}"')
    return response


@bp.get("/leaderboard.csv")
def export_csv():
    """The ranking as shown (same query string), as CSV."""
    return _export("csv")


@bp.get("/leaderboard.json")
def export_json():
    """The ranking as shown (same query string), as JSON."""
    return _export("json")
