"""Public pages, readable without an account: ranking, matrix, charts, systems, teams, about,
exports, and plotly's JavaScript served from the installed package.

Views are thin: they parse the query string, call a service and render. Page loads read the
leaderboard snapshot only (see :mod:`leaderboard.services.ranking.snapshots`).
"""

from leaderboard.web.public import (  # noqa: F401
    about,
    analysis,
    certificates,
    common,
    paper,
    ranking,
    results,
    systems,
    vendor,
)
from leaderboard.web.public.blueprint import bp

bp.app_url_defaults(common.keep_board_in_links)

__all__ = ["bp"]
