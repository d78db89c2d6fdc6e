"""JSON API under /api/v1, authenticated with ``Authorization: Bearer <token>``.

submissions.py: upload, validate, status, list; leaderboard.py: the public ranking;
docs.py: OpenAPI description and the human API page.
"""

from flask import Blueprint

bp = Blueprint("api", __name__, url_prefix="/api/v1")

from leaderboard.blueprints.api import docs, leaderboard, submissions  # noqa: E402,F401
