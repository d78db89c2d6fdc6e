"""api blueprint: docs."""

from leaderboard.blueprints.api import bp  # noqa: F401
