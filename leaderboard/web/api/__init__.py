"""JSON API under /api/v1, authenticated with ``Authorization: Bearer <token>``.

submissions.py: upload, status, list; systems.py: metadata edits, publish and withdraw;
checks.py: dry runs; leaderboard.py: the public ranking;
docs.py: OpenAPI description and the human API page.
"""

from leaderboard.web.api import (  # noqa: F401
    analysis,
    checks,
    docs,
    leaderboard,
    submissions,
    systems,
)
from leaderboard.web.api.blueprint import bp, require_token, token_required

__all__ = ["bp", "require_token", "token_required"]
