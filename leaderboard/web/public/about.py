"""About and rules: metrics, quota, how to submit, how to cite."""

from __future__ import annotations

from flask import Response, current_app, render_template

from leaderboard.scoring.families import FAMILIES
from leaderboard.services.catalog.citations import CFF_PATH, board_citation
from leaderboard.services.ranking.metric_info import LABELS, describe
from leaderboard.web.public.blueprint import bp
from leaderboard.web.public.results import site_url


@bp.get("/about")
def about():
    """What the metrics mean, the rules and quota, how to submit and how to cite each
    benchmark and the leaderboard."""
    settings = current_app.config["LEADERBOARD"]
    citations = [board_citation(name, site_url() + "/") for name in FAMILIES]
    return render_template("public/about.html", settings=settings, labels=LABELS,
                           describe=describe, citations=citations)


@bp.get("/CITATION.cff")
def citation_cff():
    """The leaderboard's citation metadata, the repository's own file."""
    return Response(CFF_PATH.read_bytes(), mimetype="text/plain", headers={
        "Content-Disposition": "inline; filename=CITATION.cff"})
