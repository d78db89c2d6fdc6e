"""account blueprint: submissions."""

from leaderboard.blueprints.account import bp  # noqa: F401
