"""api blueprint: submissions."""

from leaderboard.blueprints.api import bp  # noqa: F401
