"""Public pages: ranking, systems, teams, about. Readable without an account."""

from flask import Blueprint, render_template

bp = Blueprint("public", __name__)


@bp.get("/")
def ranking():
    """The ranking (home page)."""
    return render_template("public/ranking.html")
