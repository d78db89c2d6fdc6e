"""Fixtures for the account tests: a bearer-protected API route to authenticate against."""

from __future__ import annotations

import pytest
from flask import g, jsonify

from leaderboard.web.api import token_required

WHOAMI = "/api/v1/_test/whoami"


@pytest.fixture
def protected(app) -> str:
    """Register a tiny token-protected route (before any request) and return its path."""

    @token_required("read")
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


@pytest.fixture
def burst_worker(app_overrides, tmp_path):
    """Run a real ``leaderboard worker --burst`` on the test's database, Redis and queue:
    ``burst_worker(SMTP_URL=...)`` returns once the queue is empty (and the worker gone)."""
    import os
    import subprocess

    from leaderboard.config import PROJECT_ROOT
    from tests.jobs import LEADERBOARD_BIN

    def run(**settings) -> str:
        env = dict(os.environ)
        for key in ("INSTANCE_PATH", "DATABASE_URL", "REDIS_URL", "SECRET_KEY", "QUEUE_NAME"):
            env[f"LEADERBOARD_{key}"] = str(app_overrides[key])
        for key, value in settings.items():
            env[f"LEADERBOARD_{key}"] = str(value)
        done = subprocess.run([LEADERBOARD_BIN, "worker", "--burst"], env=env, cwd=PROJECT_ROOT,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout + done.stderr

    return run
