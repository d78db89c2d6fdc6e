"""Shared by the browser tests: a seeded app served on a loopback port, and chromium.

A browser-test module serves its site once with :func:`live_site`, visited with the
process's one chromium (the ``chromium`` fixture); screenshots go to
:data:`ARTIFACTS` (gitignored) to be looked at by eye."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from sqlmodel import Session
from werkzeug.serving import make_server

from leaderboard import create_app
from leaderboard.db import create_all
from leaderboard.infra.processes import stop_processes
from leaderboard.models import Board, Team
from leaderboard.services.intake.results import score_submission_now
from leaderboard.services.intake.submissions import create_submission
from leaderboard.services.ranking.snapshots import refresh_snapshot
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
    extra: Any = None  # what ``prepare`` returned


@contextmanager
def checks_worker(app: Flask, tmp: Path) -> Iterator[subprocess.Popen]:
    """``leaderboard worker --checks-only`` on the app's database and embedded Redis: the
    site's dry runs ("Check file") are checked by it."""
    from leaderboard.infra.queue import get_redis

    settings = app.config["LEADERBOARD"]
    with app.app_context():
        socket_file = get_redis().socket_file
    env = dict(os.environ)
    for key in ("INSTANCE_PATH", "DATABASE_URL", "SECRET_KEY", "QUEUE_NAME"):
        env[f"LEADERBOARD_{key}"] = str(settings[key])
    env["LEADERBOARD_REDIS_URL"] = f"unix://{socket_file}?db=0"
    with open(tmp / "checks-worker.log", "wb") as log:
        proc = subprocess.Popen([str(Path(sys.executable).with_name("leaderboard")), "worker",
                                 "--checks-only"], env=env, stdout=log,
                                stderr=subprocess.STDOUT)
    try:
        yield proc
    finally:
        stop_processes([proc])


@contextmanager
def chromium_browser() -> Iterator[Any]:
    """Debian's chromium, headless, through Playwright; skips when either is missing."""
    require_browser()
    from playwright.sync_api import expect, sync_playwright

    # Playwright's 5 s default is for a quiet machine; CI shares two cores among test
    # processes, live servers and workers.
    expect.set_options(timeout=20_000)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=LAUNCH_ARGS)
        try:
            yield browser
        finally:
            browser.close()


@contextmanager
def live_site(browser: Any, tmp: Path, prepare: Callable[[Flask, Seeded], Any] | None = None,
              with_checks: bool = False, **overrides) -> Iterator[LiveSite]:
    """A :func:`seeded_app` (``overrides`` to its settings; ``prepare(app, seeded)`` adds
    rows before it is served, and what it returns is ``LiveSite.extra``) on a free loopback
    port, visited with ``browser`` (the ``chromium`` fixture); stopped afterwards, with the
    browser contexts opened meanwhile (``with_checks``: and a worker for dry runs)."""
    ARTIFACTS.mkdir(exist_ok=True)
    app, seeded = seeded_app(tmp, **overrides)
    extra = prepare(app, seeded) if prepare is not None else None
    with serving(app) as url, (checks_worker(app, tmp) if with_checks else nullcontext()):
        try:
            yield LiveSite(url, seeded, browser, extra)
        finally:
            for context in browser.contexts:
                context.close()


def publish_scored(app: Flask, session: Session, files: list[tuple[Board, dict[str, bytes]]],
                   team_ids: list[int]) -> dict[str, int]:
    """Each board's files (system name -> raw) uploaded public by the teams in turn, scored
    now and the boards' snapshots refreshed: system name -> submission id."""
    settings, engine = app.config["LEADERBOARD"], app.extensions["db_engine"]
    ids = {}
    for board, named in files:
        for name, raw in named.items():
            team = session.get(Team, team_ids[len(ids) % len(team_ids)])
            accepted = create_submission(session=session, team=team, board=board, raw=raw,
                                         system_name=name, settings=settings, is_public=True)
            session.commit()
            ids[name] = accepted.submission.id
    for sid in ids.values():
        assert score_submission_now(engine_or_session=engine, submission_id=sid,
                                    settings=settings) == "scored"
    for board, _named in files:
        refresh_snapshot(session=session, board_id=board.id)
    session.commit()
    return ids


def assert_fits(page: Any) -> None:
    """The page is no wider than its window; the failure names what sticks out (a table in a
    ``.table-scroll`` box may, it scrolls there)."""
    body, window = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    wide = page.evaluate("""() => [...document.querySelectorAll('body *')]
        .filter(e => e.getBoundingClientRect().right > window.innerWidth + 1
                     && !e.closest('.table-scroll'))
        .map(e => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right))
        .slice(0, 8)""") if body > window else []
    assert body <= window, (body, window, wide)


def walk_pages(browser: Any, base: str, pages: dict[str, str], width: int,
               height: int = 900) -> None:
    """Visit every page (name -> path) at ``width``: each answers 200, draws its charts, is
    never wider than the window and logs no console error; a full-page screenshot of each
    goes to test-artifacts/NAME-WIDTH.png."""
    from playwright.sync_api import expect

    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    errors: list[str] = []
    current = {"path": ""}
    page.on("console", lambda m: errors.append(f"{current['path']}: {m.text}")
            if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(f"{current['path']}: {e}"))
    too_wide = {}
    for name, path in pages.items():
        current["path"] = path
        response = page.goto(base + path)
        assert response is not None and response.status == 200, (path, response)
        if page.locator(".chart[data-figure]").count():
            expect(page.locator(".chart .main-svg").first).to_be_attached(timeout=15000)
        widths = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        if widths[0] > widths[1]:
            too_wide[path] = widths
        page.screenshot(path=str(ARTIFACTS / f"{name}-{width}.png"), full_page=True)
    context.close()
    assert too_wide == {}
    assert errors == []
