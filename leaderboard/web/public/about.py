"""About and rules: metrics, quota, how to submit, how to cite."""

from __future__ import annotations

from flask import Response, current_app, render_template

from leaderboard.infra.signing_key import SigningKeyError
from leaderboard.scoring.certificates import key_id
from leaderboard.scoring.families import FAMILIES
from leaderboard.services.catalog.citations import CFF_PATH, board_citation
from leaderboard.services.ranking.metric_info import LABELS, describe
from leaderboard.web.public.blueprint import bp
from leaderboard.web.public.certificates import site_key
from leaderboard.web.public.results import site_url


@bp.get("/about")
def about():
    """What the metrics mean, the rules and quota, how to submit, how to cite each
    benchmark and the leaderboard, and the key that signs result certificates."""
    settings = current_app.config["LEADERBOARD"]
    citations = [board_citation(name, site_url() + "/") for name in FAMILIES]
    try:
        signing = key_id(site_key())
    except SigningKeyError:  # a misplaced key file breaks certificates, not the rules page
        signing = None
    return render_template("public/about.html", settings=settings, labels=LABELS,
                           describe=describe, citations=citations, key_id=signing)


@bp.get("/CITATION.cff")
def citation_cff():
    """The leaderboard's citation metadata, the repository's own file."""
    return Response(CFF_PATH.read_bytes(), mimetype="text/plain", headers={
        "Content-Disposition": "inline; filename=CITATION.cff"})
