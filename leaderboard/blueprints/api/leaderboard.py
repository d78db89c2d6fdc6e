"""api blueprint: leaderboard."""

from leaderboard.blueprints.api import bp  # noqa: F401
