"""account blueprint: auth."""

from leaderboard.blueprints.account import bp  # noqa: F401
