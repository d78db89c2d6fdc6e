"""Team accounts under /account: sign-up and login (auth.py), API tokens (tokens.py),
uploads and the team's submission pages (submissions.py), dry runs (checks.py), e-mail
verification and notification settings (settings.py)."""

from flask import Blueprint

bp = Blueprint("account", __name__, url_prefix="/account")

from leaderboard.blueprints.account import (  # noqa: E402,F401
    auth,
    checks,
    invitations,
    settings,
    submissions,
    tokens,
)
