"""api blueprint: the leaderboards and their public rankings as JSON (no token needed), read
from each board's snapshot, with each board's citation; a result's frozen record and its
signed certificate."""

from __future__ import annotations

from flask import current_app, jsonify, request, url_for

from leaderboard.db import get_session
from leaderboard.models import Board
from leaderboard.services.catalog.boards import (
    board_by_slug,
    board_summary,
    default_board,
    list_boards,
)
from leaderboard.services.catalog.citations import board_citation
from leaderboard.services.ranking.ranking_table import BadQuery, paged, parse_page
from leaderboard.services.ranking.records import result_record
from leaderboard.web.api.blueprint import bp
from leaderboard.web.api.submissions import error_response, rate_limited
from leaderboard.web.public.certificates import certificate_for
from leaderboard.web.public.common import ranking_response
from leaderboard.web.public.results import record_citation, site_url


@bp.get("/leaderboards")
@rate_limited
def leaderboards():
    """Every leaderboard: slug, benchmark split, track, phase, whether labels are public,
    whether it is the default, the URL of its ranking, and its citation (the benchmark's
    BibTeX and this leaderboard's)."""
    items = []
    for board, benchmark in list_boards(get_session()):
        summary = board_summary(board, benchmark)
        summary["ranking_url"] = url_for("api.board_ranking", slug=board.slug, _external=True)
        summary["page_url"] = url_for("public.ranking", leaderboard=board.slug, _external=True)
        summary["citation"] = board_citation(benchmark.name, site_url() + "/")
        items.append(summary)
    return jsonify({"leaderboards": items})


@bp.get("/leaderboard")
@rate_limited
def leaderboard():
    """The default leaderboard's ranking for ``?view=&pos=&sort=&dir=&entries=&q=`` (same
    values as the ranking page), or ``?leaderboard=SLUG``'s, as on every board page."""
    slug = (request.args.get("leaderboard") or "").strip()
    if slug:
        return board_ranking(slug)
    board = default_board(get_session())
    if board is None:
        return error_response(404, "no_benchmark", "no benchmark split is loaded yet")
    return _ranking(board)


@bp.get("/leaderboards/<slug>/ranking")
@rate_limited
def board_ranking(slug: str):
    """One leaderboard's ranking; the query is that of ``/api/v1/leaderboard``."""
    board = board_by_slug(get_session(), slug)
    if board is None:
        return error_response(404, "unknown_leaderboard",
                              f"no leaderboard {slug!r}; GET /api/v1/leaderboards lists them")
    return _ranking(board)


def _ranking(board: Board):
    try:
        page, per_page = parse_page(request.args.get("page"), request.args.get("per_page"))
        # Serialised once per snapshot, query and page, then served as bytes (ETag / 304).
        return ranking_response(
            board.id, "api.json",  # type: ignore[arg-type]
            lambda table: current_app.json.response(
                paged(table.to_dict(), page, per_page, table.matching)).get_data(),
            "application/json", extra=(page, per_page))
    except BadQuery as exc:
        return error_response(400, "bad_query", str(exc))


@bp.get("/results/<public_id>")
@rate_limited
def result(public_id: str):
    """A result's frozen record (as its permalink page shows it) with its permalink, BibTeX
    entry, model-index YAML and its benchmark's citation; 404 for an unknown id and for a
    result that is not public, alike."""
    record = result_record(get_session(), public_id)
    if record is None:
        return error_response(404, "unknown_result", f"no public result {public_id!r}")
    return jsonify({**record, **record_citation(record)})


@bp.get("/results/<public_id>/certificate")
@rate_limited
def result_certificate(public_id: str):
    """A result's signed certificate (as ``/results/<id>/certificate.json`` gives it); 404
    for an unknown id and for a result that is not public, alike."""
    certificate = certificate_for(public_id)
    if certificate is None:
        return error_response(404, "unknown_result", f"no public result {public_id!r}")
    return jsonify(certificate)
