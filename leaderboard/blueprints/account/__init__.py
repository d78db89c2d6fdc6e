"""Team accounts under /account: sign-up and login (auth.py), API tokens (tokens.py),
uploads and the team's submission pages (submissions.py)."""

from flask import Blueprint

bp = Blueprint("account", __name__, url_prefix="/account")

from leaderboard.blueprints.account import auth, submissions, tokens  # noqa: E402,F401
