"""Shared by the browser tests: a seeded app served on a loopback port, and chromium."""

from __future__ import annotations

import shutil
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from flask import Flask
from sqlmodel import Session
from werkzeug.serving import make_server

from leaderboard import create_app
from leaderboard.db import create_all
from tests.site.seed import Seeded, seed_demo

CHROMIUM = "/usr/bin/chromium"
# Without the background-networking flags chromium keeps dialling out on this closed network.
LAUNCH_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
               "--disable-component-update", "--disable-sync", "--no-first-run"]


def require_browser() -> None:
    """Skip, saying why, when Playwright or Debian's chromium is missing."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        pytest.skip("playwright is not installed (make install-test)")
    if not shutil.which(CHROMIUM):
        pytest.skip(f"{CHROMIUM} is missing (apt-get install chromium)")


def seeded_app(tmp: Path, **overrides) -> tuple[Flask, Seeded]:
    """An app on a new SQLite file holding the scored demo rows (``app.config['SEEDED']``)."""
    settings = {"INSTANCE_PATH": str(tmp / "instance"),
                "DATABASE_URL": f"sqlite:///{tmp / 'site.db'}", "REDIS_URL": "",
                "SECRET_KEY": "site-test-secret", "RATELIMIT_ENABLED": False}
    app = create_app(settings | overrides)
    create_all(app.extensions["db_engine"])
    with app.app_context(), Session(app.extensions["db_engine"],
                                    expire_on_commit=False) as session:
        app.config["SEEDED"] = seed_demo(session)
    return app, app.config["SEEDED"]


@contextmanager
def serving(app: Flask) -> Iterator[str]:
    """Serve ``app`` from a thread on 127.0.0.1 and a free port; yields the base URL."""
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        thread.join(timeout=10)
        app.extensions["db_engine"].dispose()
