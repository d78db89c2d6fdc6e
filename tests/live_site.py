"""Shared by the browser tests: a seeded app served on a loopback port, and chromium.

A browser-test module starts both once with :func:`live_site`; screenshots go to
:data:`ARTIFACTS` (gitignored) to be looked at by eye."""

from __future__ import annotations

import shutil
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from sqlmodel import Session
from werkzeug.serving import make_server

from leaderboard import create_app
from leaderboard.db import create_all
from tests.site.seed import Seeded, seed_demo

ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts"
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


@dataclass
class LiveSite:
    """A served seeded app and a headless chromium to visit it."""

    url: str
    seeded: Seeded
    browser: Any  # playwright.sync_api.Browser (playwright is a test-only dependency)


@contextmanager
def live_site(tmp: Path, prepare: Callable[[Flask], None] | None = None,
              **overrides) -> Iterator[LiveSite]:
    """A :func:`seeded_app` (``overrides`` to its settings; ``prepare`` adds rows before it
    is served) on a free loopback port, and Debian's chromium; both stopped afterwards.
    Skips when Playwright or chromium is missing."""
    require_browser()
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(exist_ok=True)
    app, seeded = seeded_app(tmp, **overrides)
    if prepare is not None:
        prepare(app)
    with serving(app) as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=LAUNCH_ARGS)
        try:
            yield LiveSite(url, seeded, browser)
        finally:
            browser.close()
