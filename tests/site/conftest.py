"""Fixtures for the public-site tests: apps whose database holds real scored demo rows."""

from __future__ import annotations

import pytest
from sqlmodel import Session

from leaderboard import create_app
from leaderboard.db import create_all
from tests.site.seed import Seeded, seed_demo


@pytest.fixture
def seeded(app, session) -> Seeded:
    """Demo benchmark with five public systems, one private, one hidden, and references."""
    return seed_demo(session)


@pytest.fixture(scope="module")
def site_app(tmp_path_factory):
    """One seeded app per test module for read-only page tests (seeding scores for real)."""
    tmp = tmp_path_factory.mktemp("site")
    app = create_app({"INSTANCE_PATH": str(tmp / "instance"),
                      "DATABASE_URL": f"sqlite:///{tmp / 'site.db'}", "REDIS_URL": "",
                      "SECRET_KEY": "site-test-secret", "TESTING": True,
                      "RATELIMIT_ENABLED": False})
    engine = app.extensions["db_engine"]
    create_all(engine)
    with app.app_context(), Session(engine, expire_on_commit=False) as session:
        app.config["SEEDED"] = seed_demo(session)
    yield app
    engine.dispose()


@pytest.fixture
def site(site_app):
    """(test client, seeded ids) on the module's seeded app."""
    return site_app.test_client(), site_app.config["SEEDED"]
