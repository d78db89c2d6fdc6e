"""Fixtures for the public-site tests: an app whose database holds real scored demo rows."""

from __future__ import annotations

import pytest

from tests.site.seed import Seeded, seed_demo


@pytest.fixture
def seeded(app, session) -> Seeded:
    """Demo benchmark with five public systems, one private, one hidden, and references."""
    return seed_demo(session)
