"""account blueprint: tokens."""

from leaderboard.blueprints.account import bp  # noqa: F401
