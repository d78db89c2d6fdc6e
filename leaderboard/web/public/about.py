"""About and rules: metrics, quota, how to submit, how to cite."""

from __future__ import annotations

from flask import current_app, render_template

from leaderboard.services.ranking.metric_info import LABELS, describe
from leaderboard.web.public.blueprint import bp


@bp.get("/about")
def about():
    """What the metrics mean, the rules and quota, how to submit and how to cite SWORDS."""
    settings = current_app.config["LEADERBOARD"]
    return render_template("public/about.html", settings=settings, labels=LABELS,
                           describe=describe)
