"""Team accounts under /account: sign-up and login (auth.py), API tokens (tokens.py),
uploads and the team's submission pages (submissions.py), system metadata (systems.py),
dry runs (checks.py), e-mail verification and notification settings (settings.py), the
authorship secret of result certificates (authorship.py)."""

from leaderboard.web.account import (  # noqa: F401
    auth,
    authorship,
    checks,
    invitations,
    settings,
    submissions,
    systems,
    tokens,
)
from leaderboard.web.account.blueprint import bp

__all__ = ["bp"]
