"""Fixtures for the public-site tests: apps whose database holds real scored demo rows."""

from __future__ import annotations

import pytest

from tests.live_site import seeded_app
from tests.site.seed import Seeded, seed_demo


@pytest.fixture
def seeded(app, session) -> Seeded:
    """Demo benchmark with five public systems, one private, one hidden, and references."""
    return seed_demo(session)


@pytest.fixture(scope="module")
def site_app(tmp_path_factory):
    """One seeded app per test module for read-only page tests (seeding scores for real)."""
    app, _seeded = seeded_app(tmp_path_factory.mktemp("site"), TESTING=True)
    yield app
    app.extensions["db_engine"].dispose()


@pytest.fixture
def site(site_app):
    """(test client, seeded ids) on the module's seeded app."""
    return site_app.test_client(), site_app.config["SEEDED"]
