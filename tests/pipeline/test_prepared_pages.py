"""Bytes prepared by the ranker with each snapshot (issue 31 item 3): they equal what the web's
compute path makes (byte for byte for the API), the pages serve them, and a page falls back
to computing when they are missing, made by other code, or systems were withdrawn since."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from sqlmodel import col, select

from leaderboard.blueprints.public import render
from leaderboard.blueprints.public.prepare import page_preparer, prepare_board
from leaderboard.demo.synthetic import add_systems, synthetic_board
from leaderboard.models import PreparedPage
from leaderboard.queue import get_redis
from leaderboard.services.ranking import prepared_pages, read_filter
from leaderboard.services.ranking.metric_info import views_for
from leaderboard.services.ranking.snapshot_reader import clear_caches
from leaderboard.services.ranking.snapshots import refresh_snapshot
from tests.backends import ALL_DATABASES
from worker import jobs, ranking

MARK = "Team prepared"


@pytest.fixture
def board(session):
    """30 public systems of 6 teams (40 targets, B = 50) and one snapshot, nothing prepared."""
    board = synthetic_board(session, n_targets=40)
    add_systems(session, board, n_systems=30, n_teams=6, rng=np.random.default_rng(5),
                n_targets=40, bootstrap=50)
    snapshot = refresh_snapshot(session=session, board_id=board.id)
    session.commit()
    clear_caches()
    return SimpleNamespace(id=board.id, snapshot_id=snapshot.id)


def _rows(session, snapshot_id):
    session.expire_all()
    return session.exec(select(PreparedPage).where(PreparedPage.snapshot_id == snapshot_id)
                        .order_by(col(PreparedPage.id))).all()


def _tamper(session, snapshot_id, old=">Team 01<", new=f">{MARK}<"):
    """Change a name in the stored page blocks: a page showing it was served from them."""
    for row in _rows(session, snapshot_id):
        if row.kind == prepared_pages.PAGE:
            assert old.encode() in row.body
            row.body = row.body.replace(old.encode(), new.encode())
            session.add(row)
    session.commit()
    clear_caches()
    # The ranker renders in its own process: nothing it rendered is in a web process's memory.
    render._CACHE.clear()


@ALL_DATABASES
def test_prepared_bytes_equal_the_computed_ones_and_are_served(app, client, session, board):
    views = list(views_for("generative"))
    computed = {v: client.get(f"/?view={v}") for v in views}
    api = {v: client.get(f"/api/v1/leaderboard?view={v}") for v in views}
    home, api_home = client.get("/"), client.get("/api/v1/leaderboard")
    assert all(r.status_code == 200 for r in (*computed.values(), *api.values()))
    clear_caches()

    assert prepare_board(app, board.id, board.snapshot_id) == 2 * len(views)
    stored = {(r.kind, r.variant): r.body for r in _rows(session, board.snapshot_id)}
    assert len(stored) == 2 * len(views)
    api_bodies = sorted(body for (kind, _), body in stored.items() if kind == "api")
    assert api_bodies == sorted(r.data for r in api.values())  # byte for byte

    # Served from the stored bytes, and the same bytes and validators as computed ones.
    for v in views:
        again = client.get(f"/?view={v}")
        assert again.data == computed[v].data, v
        assert again.headers["ETag"] == computed[v].headers["ETag"]
        served = client.get(f"/api/v1/leaderboard?view={v}")
        assert served.data == api[v].data and served.headers["ETag"] == api[v].headers["ETag"]
    assert client.get("/").data == home.data
    assert client.get("/api/v1/leaderboard").data == api_home.data

    _tamper(session, board.snapshot_id)
    page = client.get("/").get_data(as_text=True)
    assert MARK in page and ">Team 01<" not in page
    assert 'href="/account/login"' in page  # the layout is the web's own
    # A personal page (a pending flash message) wraps the same blocks in its own layout.
    with client.session_transaction() as s:
        s["_flashes"] = [("info", "Flash for this visitor only")]
    personal = client.get("/").get_data(as_text=True)
    assert MARK in personal and "Flash for this visitor only" in personal
    # Another query was not prepared: computed from the snapshot.
    assert MARK not in client.get("/?sort=date").get_data(as_text=True)


def test_missing_or_foreign_bytes_mean_computing(app, client, session, board):
    before = client.get("/").data
    clear_caches()
    assert b">Team 01<" in before
    prepare_board(app, board.id, board.snapshot_id)
    _tamper(session, board.snapshot_id)
    assert MARK.encode() in client.get("/").data
    # Bytes made by another release's templates or code: not served.
    for row in _rows(session, board.snapshot_id):
        row.variant = row.variant.replace(prepared_pages.code_print(), "0" * 16)
        session.add(row)
    session.commit()
    clear_caches()
    assert client.get("/").data == before
    # None at all (an older snapshot): computed.
    for row in _rows(session, board.snapshot_id):
        session.delete(row)
    session.commit()
    clear_caches()
    assert client.get("/").data == before


def test_a_withdrawn_system_is_not_served_from_the_prepared_bytes(app, client, session, board):
    prepare_board(app, board.id, board.snapshot_id)
    _tamper(session, board.snapshot_id)
    rows = client.get("/api/v1/leaderboard").get_json()["rows"]
    shown = next(r["system"] for r in rows if r["team"] == "Team 01")
    name, withdrawn = next((r["system"], r["id"]) for r in rows if r["team"] == "Team 02")
    assert MARK in client.get("/").get_data(as_text=True)
    with app.app_context():
        read_filter.mark_hidden(get_redis(), app.config["LEADERBOARD"]["QUEUE_NAME"],
                                {board.id: [withdrawn]})
    page = client.get("/").get_data(as_text=True)
    assert MARK not in page and f">{name}<" not in page and f">{shown}<" in page
    names = [r["system"] for r in client.get("/api/v1/leaderboard").get_json()["rows"]]
    assert name not in names and shown in names


def test_the_refresh_job_prepares_the_new_snapshot_and_drops_gone_ones(app, session, board):
    settings = app.config["LEADERBOARD"]
    jobs.configure(settings=settings, engine=app.extensions["db_engine"])
    assert _rows(session, board.snapshot_id) == []
    prepare_board(app, board.id, board.snapshot_id)
    assert len(_rows(session, board.snapshot_id)) == 2 * len(views_for("generative"))
    ranking.use_page_preparer(page_preparer(app))   # as the ranker command hands it in
    try:
        assert ranking.refresh_snapshot_job(board.id) == "refreshed"
    finally:
        ranking.use_page_preparer(None)
    session.expire_all()
    ids = sorted({r.snapshot_id for r in session.exec(select(PreparedPage)).all()})
    assert ids[-1] > board.snapshot_id
    assert len(_rows(session, ids[-1])) == 2 * len(views_for("generative"))
    # Rows of snapshots the board no longer keeps are dropped by later stores.
    ranking.use_page_preparer(page_preparer(app))
    try:
        for _ in range(4):
            ranking.refresh_snapshot_job(board.id)
    finally:
        ranking.use_page_preparer(None)
    session.expire_all()
    assert board.snapshot_id not in {r.snapshot_id for r in session.exec(select(PreparedPage))}


def test_cpu_time_header_only_when_asked(app_overrides, app, client, board):
    from leaderboard import create_app

    assert "X-CPU-ms" not in client.get("/").headers
    timed = create_app({**app_overrides, "CPU_TIME_HEADER": True})
    response = timed.test_client().get("/")
    assert response.status_code == 200
    assert 0 < float(response.headers["X-CPU-ms"]) < 60_000
    timed.extensions["db_engine"].dispose()
