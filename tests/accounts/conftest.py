"""Fixtures for the account tests: a bearer-protected API route to authenticate against."""

from __future__ import annotations

import pytest
from flask import g, jsonify

from leaderboard.blueprints.api import token_required

WHOAMI = "/api/v1/_test/whoami"


@pytest.fixture
def protected(app) -> str:
    """Register a tiny token-protected route (before any request) and return its path."""

    @token_required
    def whoami():
        return jsonify(team=g.api_team.name, token=g.api_token.name)

    # An "api." endpoint name puts the route in the api blueprint (CSRF exemption included).
    app.add_url_rule(WHOAMI, "api._test_whoami", whoami, methods=["GET", "POST"])
    return WHOAMI


@pytest.fixture
def other_app(app_overrides):
    """Build another app on the same database with changed settings: ``other_app(**settings)``."""
    from leaderboard import create_app

    made = []

    def build(**settings):
        made.append(create_app({**app_overrides, **settings}))
        return made[-1]

    yield build
    for built in made:
        built.extensions["db_engine"].dispose()
