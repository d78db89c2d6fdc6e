"""Pipeline fixtures: a board on the demo split, a team with a token, the app's settings.

Workers are real ``leaderboard worker`` processes pointed at the test's database and Redis
through ``LEADERBOARD_*`` variables; every one started is terminated by the fixture.
"""

from __future__ import annotations

import pytest

from leaderboard.services.catalog.boards import import_board
from tests.factories import make_team, make_token


@pytest.fixture
def board(benchmark, session):
    """The demo split's generative board (the default)."""
    return import_board(session, benchmark)


@pytest.fixture
def team_token(session):
    """(team, user, plaintext token) of a fresh team."""
    team, user = make_team(session, name="Lab One", email="one@example.org")
    return team, user, make_token(session, team)


@pytest.fixture
def settings(app) -> dict:
    return app.config["LEADERBOARD"]
