"""A result's permalink: its frozen record, BibTeX and model-card block (``/results/<id>``);
the API's ``/api/v1/results/<id>`` answers the same record as JSON."""

from __future__ import annotations

from typing import Any

from flask import abort, current_app, render_template, request, url_for

from leaderboard.db import get_session
from leaderboard.services.catalog.citations import board_citation
from leaderboard.services.ranking.metric_info import LABELS
from leaderboard.services.ranking.records import model_index, result_bibtex, result_record
from leaderboard.web.public.blueprint import bp


def site_url() -> str:
    """The site's base URL for what is cited: ``PUBLIC_URL`` when the hosts set one (a
    citation outlives the address a reader happened to use), else the request's."""
    return (current_app.config["LEADERBOARD"]["PUBLIC_URL"] or request.host_url).rstrip("/")


def permalink(public_id: str) -> str:
    """The full URL of the result ``public_id``'s record."""
    return site_url() + url_for("public.result", public_id=public_id)


def record_citation(record: dict[str, Any]) -> dict[str, Any]:
    """A record's permalink, BibTeX entry, model-index block and its benchmark's citation."""
    url = permalink(record["public_id"])
    return {"permalink": url, "bibtex": result_bibtex(record, url),
            "model_index": model_index(record, url),
            "citation": board_citation(record["benchmark"]["name"], site_url() + "/")}


@bp.get("/results/<public_id>")
def result(public_id: str):
    """A result's frozen record (numbers with intervals, board, split checksum, scorer
    version, file sha256, date), still answered once superseded by a re-score."""
    record = result_record(get_session(), public_id)
    if record is None:
        abort(404, description="No such result, or it is not public.")
    return render_template("public/result.html", r=record, labels=LABELS,
                           **record_citation(record))
