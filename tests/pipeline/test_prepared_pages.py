"""Bytes prepared by the ranker with each snapshot (issue 31 item 3): they equal what the web's
compute path makes (byte for byte for the API), the pages serve them, and a page falls back
to computing when they are missing, made by other code, or systems were withdrawn since."""

from __future__ import annotations

import re
from datetime import timedelta
from types import SimpleNamespace

import numpy as np
import pytest
from rq import Queue, SimpleWorker
from sqlmodel import Session, col, select

from leaderboard.blueprints.public import render
from leaderboard.blueprints.public import systems as public_systems
from leaderboard.blueprints.public.prepare import page_preparer, prepare_board
from leaderboard.demo.synthetic import add_systems, synthetic_board
from leaderboard.models import Benchmark, Board, PreparedPage, Submission
from leaderboard.queue import get_redis, request_snapshot_refresh
from leaderboard.rankers import ranking_queue_name
from leaderboard.services.catalog.boards import create_board
from leaderboard.services.ranking import (
    metric_info,
    pairwise,
    prepared_pages,
    read_filter,
    snapshot_reader,
)
from leaderboard.services.ranking.metric_info import views_for
from leaderboard.services.ranking.snapshot_reader import clear_caches
from leaderboard.services.ranking.snapshots import refresh_snapshot
from tests.backends import ALL_DATABASES
from worker import jobs, ranking

MARK = "Team prepared"
MARK_BYTES = MARK.encode()


def _synthetic(session, n_systems: int, n_teams: int, seed: int) -> SimpleNamespace:
    """A synthetic board of public systems (40 targets, B = 50) and one snapshot, nothing
    prepared."""
    board = synthetic_board(session, n_targets=40)
    add_systems(session, board, n_systems=n_systems, n_teams=n_teams,
                rng=np.random.default_rng(seed), n_targets=40, bootstrap=50)
    snapshot = refresh_snapshot(session=session, board_id=board.id)
    session.commit()
    clear_caches()
    return SimpleNamespace(id=board.id, snapshot_id=snapshot.id)


@pytest.fixture
def board(session):
    """30 public systems of 6 teams and one snapshot, nothing prepared."""
    return _synthetic(session, 30, 6, 5)


def _expected_items(n_views: int) -> int:
    """What a generative board of 30 systems (6 teams) gets prepared: per view the ranking
    page, the API's answer, the CSV and JSON exports and their layouts; the one page of
    ``?entries=all`` and its two exports with their layouts;
    values: the small keys, charts and history per view but "all", significance, matrix
    (one page) and window index and block of each headline; the table parts: the systems, and on
    "all" and each of the 4 POS a column per displayed metric (27) and a shown block for
    every entry and for each headline's best entries, and each block's ties by metric (every
    displayed metric's among every entry, those of the headline's views among its best
    entries); 30 system charts."""
    headlines = set(metric_info.headlines("generative")) | {
        metric_info.default_sort("generative")}
    # a window index and one block (30 ranks) per headline
    values = 1 + 2 * (n_views - 1) + 4 * len(headlines)
    displayed = len(metric_info.displayed("generative"))
    views = metric_info.views_for("generative").values()
    ties = displayed + sum(len({k for v in views if v.headline == h for k in v.columns})
                           for h in headlines)
    parts = 1 + 5 * (displayed + 1 + len(headlines) + ties)
    return 6 * n_views + 5 + values + parts + 30


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

    assert prepare_board(app, board.id, board.snapshot_id) == _expected_items(len(views))
    stored = {(r.kind, r.variant): r.body for r in _rows(session, board.snapshot_id)}
    assert len(stored) == _expected_items(len(views)) - 30  # the charts are the board's
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
    # Another query: made from the prepared table parts (which the tamper left alone).
    assert MARK not in client.get("/?sort=date").get_data(as_text=True)
    assert not snapshot_reader._data


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
    per_snapshot = _expected_items(len(views_for("generative"))) - 30
    assert len(_rows(session, board.snapshot_id)) == per_snapshot
    ranking.use_page_preparer(page_preparer(app))   # as the ranker command hands it in
    try:
        assert ranking.refresh_snapshot_job(board.id) == "refreshed"
    finally:
        ranking.use_page_preparer(None)
    session.expire_all()
    ids = sorted({r.snapshot_id for r in session.exec(select(PreparedPage)).all()})
    assert ids[-1] > board.snapshot_id
    assert len(_rows(session, ids[-1])) == per_snapshot
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


def _forget():
    """A web process meeting the snapshot for the first time: nothing of it in memory."""
    clear_caches()
    render._CACHE.clear()
    public_systems._FIGURES.clear()


def _pages(client) -> list[str]:
    """Every public page of the board a ranker prepares, and a few it does not."""
    views = list(views_for("generative"))
    charts = [v for v in views if v != "all"]
    system = client.get("/api/v1/leaderboard").get_json()["rows"][0]["id"]
    return ["/", *[f"/?view={v}" for v in views], "/?entries=all", "/?entries=all&page=1",
            *[f"/api/v1/leaderboard?view={v}" for v in views],
            "/significance", *[f"/significance?metric={m}"
                               for m in metric_info.headlines("generative")],
            "/matrix", *[f"/matrix?metric={m}" for m in metric_info.headlines("generative")],
            *[f"/charts?view={v}" for v in charts], *[f"/history?view={v}" for v in charts],
            "/api/v1/significance", f"/api/v1/significance?around={system}",
            *[f"/api/v1/significance?metric={m}" for m in metric_info.headlines("generative")],
            "/compare", f"/systems/{system}", f"/significance?around={system}",
            *[f"/significance?around={system}&metric={m}"
              for m in metric_info.headlines("generative")],
            "/leaderboard.csv", "/leaderboard.json", "/leaderboard.csv?entries=all",
            "/leaderboard.json?entries=all",
            *[f"/leaderboard.csv?view={v}" for v in views], "/about",
            # queries no ranker prepares whole: made from the snapshot's table parts
            "/matrix?metric=gap", "/matrix?metric=best_p", "/?sort=date",
            "/?view=all&pos=NOUN&entries=all&sort=gap&dir=asc", "/?q=team%2002&sort=team",
            "/api/v1/leaderboard?entries=all&sort=system&per_page=7&page=3",
            "/api/v1/leaderboard?view=jabbari&pos=ADJ", "/leaderboard.csv?sort=date&entries=all",
            "/leaderboard.json?view=lenient-c&pos=VERB&q=03"]


@ALL_DATABASES
def test_every_page_served_from_prepared_values_equals_the_computed_one(app, client, session,
                                                                        board):
    app.config["RATELIMIT_ENABLED"] = False  # windows computed twice: past the budgets
    urls = _pages(client)
    computed = {u: client.get(u) for u in urls}
    assert all(r.status_code == 200 for r in computed.values()), [
        (u, r.status_code) for u, r in computed.items() if r.status_code != 200]
    _forget()
    prepare_board(app, board.id, board.snapshot_id)
    _forget()
    for url in urls:
        served = client.get(url)
        assert served.data == computed[url].data, url
        assert served.headers.get("ETag") == computed[url].headers.get("ETag"), url
    # No page of the board parsed the snapshot: each read only what the ranker prepared.
    assert not snapshot_reader._data


def test_a_window_reads_its_block_of_the_band(app, client, session, monkeypatch):
    """45 systems in blocks of 7 ranks (a window of 30 spans five of them): every system's window
    page and every fifth system's API answer, from the prepared index and block, equal the
    computed ones; an id not ranked is refused alike; no page parsed the snapshot."""
    app.config["RATELIMIT_ENABLED"] = False
    made = _synthetic(session, 45, 9, 8)
    _forget()
    rows = client.get("/api/v1/leaderboard?entries=all&per_page=1000").get_json()["rows"]
    assert len(rows) == 45
    urls = [f"/significance?around={r['id']}" for r in rows] + [
        f"/api/v1/significance?around={r['id']}" for r in rows[::5]] + [
        "/significance?around=999999", "/api/v1/significance?around=999999"]
    computed = {url: client.get(url) for url in urls}
    monkeypatch.setattr(pairwise, "WINDOW_BLOCK", 7)
    prepare_board(app, made.id, made.snapshot_id)
    variants = [v for kind, v in prepared_pages.stored_variants(session, made.snapshot_id)
                if '"window"' in v]
    assert len(variants) == 8 * len(set(metric_info.headlines("generative")) | {
        metric_info.default_sort("generative")})   # an index and blocks 0-6 per metric
    _forget()
    for url in urls:
        served = client.get(url)
        assert (served.status_code, served.data) == (computed[url].status_code,
                                                     computed[url].data), url
    assert computed[urls[-1]].status_code == 400
    assert not snapshot_reader._data


def test_an_export_in_another_sort_reorders_the_prepared_file(app, client, session, board):
    """A CSV or JSON export that only sorts otherwise than a prepared one (any column or
    direction, best or all entries) is the prepared file with its system rows reordered:
    byte for byte the computed one. A filtered query, or a POS nobody prepared, is computed."""
    queries = [f"{sort}&entries={entries}" for entries in ("best", "all")
               for sort in ("sort=date", "sort=team&dir=desc", "sort=strict_a_p@10&dir=asc",
                            "sort=rank&dir=desc", "sort=system")]
    urls = [f"/leaderboard.{kind}?{q}" for kind in ("csv", "json") for q in queries]
    computed = {url: client.get(url).data for url in urls}
    assert all(b"Team 01" in body for body in computed.values())
    prepare_board(app, board.id, board.snapshot_id)
    # The same length: the rows' spans in the prepared files still hold.
    for row in _rows(session, board.snapshot_id):
        if row.kind == prepared_pages.EXPORT and "layout" not in row.variant:
            row.body = row.body.replace(b"Team 01", b"TEAM!01")
            session.add(row)
    session.commit()
    _forget()
    for url in urls:
        served = client.get(url).data
        assert served == computed[url].replace(b"Team 01", b"TEAM!01"), url
    for url in ("/leaderboard.csv?sort=date&q=team", "/leaderboard.csv?sort=date&pos=NOUN"):
        assert b"TEAM!01" not in client.get(url).data


def _tamper_all(session, snapshot_id, old=b"Team 01", new=MARK_BYTES) -> None:
    """A team's name changed in every prepared page, value and export (not in the table
    parts, which pages computed under the read filter read), and each system's chart
    replaced by a marker: a page showing them was served from them."""
    for row in _rows(session, snapshot_id):
        if row.kind != prepared_pages.API and '"table-' not in row.variant:
            row.body = row.body.replace(old, new)
            session.add(row)
    for row in session.exec(select(PreparedPage).where(
            PreparedPage.snapshot_id == prepared_pages.BOARD_LEVEL)).all():
        row.body = b'"prepared chart"'
        session.add(row)
    session.commit()
    _forget()


def _chips(client) -> list[str]:
    return re.findall(r'<span class="chip-meta">([^<]*)</span>',
                      client.get("/").get_data(as_text=True))


def test_the_board_bar_counts_what_the_ranking_shows(app, client, session, board):
    """The shown board's count is its snapshot's systems less those withdrawn since (read
    from the prepared values, no count over the database); another board's is counted."""
    shown = session.get(Board, board.id)
    other = create_board(session, session.get(Benchmark, shown.benchmark_id), track="ranking")
    refresh_snapshot(session=session, board_id=other.id)
    session.commit()
    prepare_board(app, board.id, board.snapshot_id)
    assert _chips(client) == ["test phase · labels hidden · 30 submissions · default",
                              "test phase · labels hidden · 0 submissions"]
    rows = client.get("/api/v1/leaderboard?entries=all").get_json()["rows"]
    with app.app_context():
        read_filter.mark_hidden(get_redis(), app.config["LEADERBOARD"]["QUEUE_NAME"],
                                {board.id: [rows[0]["id"], rows[1]["id"]]})
    assert _chips(client)[0] == "test phase · labels hidden · 28 submissions · default"



@pytest.mark.parametrize("prepared", [True, False])
def test_the_board_bar_counts_what_an_empty_ranking_shows(app, client, session, prepared):
    """Results scored since the shown snapshot (none of them listed yet) do not count on the
    shown board's chip, whether the snapshot was prepared or not (one an import wrote): it
    says what the table below it shows."""
    made = synthetic_board(session, n_targets=40)
    other = create_board(session, session.get(Benchmark, made.benchmark_id), track="ranking")
    refresh_snapshot(session=session, board_id=other.id)  # two boards: the bar shows
    snapshot = refresh_snapshot(session=session, board_id=made.id)
    session.commit()
    if prepared:
        prepare_board(app, made.id, snapshot.id)
    add_systems(session, made, n_systems=3, n_teams=1, rng=np.random.default_rng(4),
                n_targets=40, bootstrap=50)
    session.commit()
    clear_caches()
    page = client.get("/").get_data(as_text=True)
    assert "0 public systems" in page
    assert _chips(client)[0] == "test phase · labels hidden · 0 submissions · default"

#: Pages showing team names that a ranker prepares, and the system page (its chart).
SERVED = ["/", "/?entries=all", "/significance", "/matrix", "/charts", "/history",
          "/compare", "/leaderboard.csv", "/leaderboard.json", "/leaderboard.csv?entries=all",
          "/leaderboard.json?entries=all"]


def test_pages_are_served_from_the_prepared_values(app, client, session, board):
    prepare_board(app, board.id, board.snapshot_id)
    rows = client.get("/api/v1/leaderboard?entries=all").get_json()["rows"]
    _tamper_all(session, board.snapshot_id)
    for url in SERVED:
        page = client.get(url).get_data(as_text=True)
        assert MARK in page and "Team 01" not in page, url
    system = next(r["id"] for r in rows if r["team"] == "Team 03")
    assert "prepared chart" in client.get(f"/systems/{system}").get_data(as_text=True)
    # The compare selector of a system page comes from the prepared values as well.
    assert MARK in client.get(f"/systems/{system}").get_data(as_text=True)
    assert not snapshot_reader._data


def test_a_withdrawn_system_leaves_every_prepared_page(app, client, session, board):
    prepare_board(app, board.id, board.snapshot_id)
    rows = client.get("/api/v1/leaderboard?entries=all").get_json()["rows"]
    name, withdrawn = next((r["system"], r["id"]) for r in rows if r["team"] == "Team 02")
    shown = next(r["id"] for r in rows if r["team"] == "Team 03")
    _tamper_all(session, board.snapshot_id)
    before = {url: client.get(url).get_data(as_text=True) for url in SERVED}
    assert all(f"{name}" in page for url, page in before.items() if "csv" not in url)
    with app.app_context():
        read_filter.mark_hidden(get_redis(), app.config["LEADERBOARD"]["QUEUE_NAME"],
                                {board.id: [withdrawn]})
    for url in SERVED:
        page = client.get(url).get_data(as_text=True)
        assert name not in page, url
        if url != "/compare":   # its selector is the prepared list, less the withdrawn
            assert MARK not in page, url
    system_page = client.get(f"/systems/{shown}").get_data(as_text=True)
    options = system_page.split('id="compare-select"')[1].split("</select>")[0]
    assert options.count("<option") == 28   # the 30, less the system itself and the withdrawn
    assert f'"{withdrawn}"' not in options and f'"{shown}"' not in options
    assert "prepared chart" in system_page   # a chart shows its own system only
    assert client.get(f"/systems/{withdrawn}").status_code == 200  # not yet unpublished
    history = client.get("/history").get_data(as_text=True)
    assert "(29)" in history
    window = client.get(f"/significance?around={shown}").get_data(as_text=True)
    assert name not in window and MARK not in window


def test_system_charts_are_kept_for_the_board_and_follow_its_systems(app, session, board):
    assert prepare_board(app, board.id, board.snapshot_id) == _expected_items(
        len(views_for("generative")))
    charts = session.exec(select(PreparedPage).where(
        PreparedPage.board_id == board.id,
        PreparedPage.snapshot_id == prepared_pages.BOARD_LEVEL)).all()
    assert len(charts) == 30 and {c.kind for c in charts} == {prepared_pages.SYSTEM}
    made = {c.variant: c.id for c in charts}
    # A new snapshot with the same results: no chart made again, the rows are the same.
    snapshot = refresh_snapshot(session=session, board_id=board.id)
    session.commit()
    assert prepare_board(app, board.id, snapshot.id) == _expected_items(
        len(views_for("generative"))) - 30
    session.expire_all()
    again = session.exec(select(PreparedPage).where(
        PreparedPage.snapshot_id == prepared_pages.BOARD_LEVEL)).all()
    assert {c.variant: c.id for c in again} == made


def test_queries_nobody_prepared_leave_the_page_cache_alone(app, client, session, board):
    """A lookup that finds nothing is not kept: random ``?metric=`` values (400s) do not push
    the pages served from memory out of the LRU."""
    app.config["RATELIMIT_ENABLED"] = False  # a significance query is charged first
    prepare_board(app, board.id, board.snapshot_id)
    _forget()
    for url in ("/", "/matrix", "/significance"):
        assert client.get(url).status_code == 200
    kept = set(snapshot_reader._bodies)
    for n in range(2 * snapshot_reader.BODIES_MAX):
        assert client.get(f"/matrix?metric=nonsense{n}").status_code == 400
        assert client.get(f"/significance?metric=nonsense{n}").status_code == 400
    assert set(snapshot_reader._bodies) == kept


def test_a_tsar_board_and_a_ranking_track_board_are_prepared_alike(app, client, session,
                                                                   board, tmp_path):
    """Boards of other view sets (TSAR-2022: no part of speech; SWORDS ranking track: GAP,
    GAP ratio, P@1) get their pages prepared too, equal to the computed ones."""
    from leaderboard.services.catalog.benchmarks import get_split
    from leaderboard.services.catalog.boards import create_board
    from leaderboard.services.catalog.tsar import tsar_board
    from tests.scoring.tsar.files import write_tsar

    app.config["RATELIMIT_ENABLED"] = False
    tsar = tsar_board(session, "en-test", root=write_tsar(tmp_path))
    generative = session.get(type(tsar), board.id)
    ranking_board = create_board(session, get_split(session, generative.benchmark_id),
                                 track="ranking")
    session.commit()
    pages = ["/", "/?entries=all", "/charts", "/history", "/significance", "/compare",
             "/leaderboard.csv", "/leaderboard.json"]
    for made in (tsar, ranking_board):
        with Session(app.extensions["db_engine"]) as own:
            snapshot = refresh_snapshot(session=own, board_id=made.id)
            own.commit()
            snapshot_id = snapshot.id
        urls = [f"{p}{'&' if '?' in p else '?'}leaderboard={made.slug}" for p in pages]
        if made is ranking_board:
            urls.append(f"/matrix?leaderboard={made.slug}")
        computed = {u: client.get(u) for u in urls}
        assert all(r.status_code == 200 for r in computed.values()), [
            (u, r.status_code) for u, r in computed.items()]
        _forget()
        assert prepare_board(app, made.id, snapshot_id) > 0
        _forget()
        for url in urls:
            assert client.get(url).data == computed[url].data, url


def _names(client) -> set[str]:
    return {r["system"] for r in client.get("/api/v1/leaderboard").get_json()["rows"]}


@ALL_DATABASES
def test_readers_keep_the_previous_snapshot_while_the_new_one_is_prepared(app, client, session,
                                                                           board):
    """A new snapshot is shown once its ranker has prepared it, not while every web process
    would parse it for each page; a withdrawn system stays out meanwhile (the read filter
    settles only after), and a snapshot whose ranker died while preparing is shown after
    PENDING_SECONDS."""
    jobs.configure(settings=app.config["LEADERBOARD"], engine=app.extensions["db_engine"])
    queue_name = app.config["LEADERBOARD"]["QUEUE_NAME"]
    ranking.use_page_preparer(page_preparer(app))
    try:
        ranking.refresh_snapshot_job(board.id)  # the previous snapshot: prepared
        before = _names(client)
        withdrawn = next(r for r in client.get("/api/v1/leaderboard").get_json()["rows"]
                         if r["team"] == "Team 02")
        sub = session.get(Submission, withdrawn["id"])
        sub.is_public = False
        session.add(sub)
        session.commit()
        with app.app_context():
            read_filter.mark_hidden(get_redis(), queue_name, {board.id: [withdrawn["id"]]})
        board_row = session.get(Board, board.id)
        add_systems(session, board_row, n_systems=1, n_teams=1, rng=np.random.default_rng(9),
                    n_targets=40, bootstrap=50, team_name="Team new {:d}",
                    system_name="Newcomer {:d}")
        seen: dict[str, object] = {}
        real = page_preparer(app)

        def watching(engine, board_id, snapshot_id):
            clear_caches()
            seen["during"] = _names(client)
            seen["pending"] = snapshot_id
            return real(engine, board_id, snapshot_id)

        ranking.use_page_preparer(watching)
        with app.app_context():
            conn = get_redis()
        job_id = request_snapshot_refresh(board.id, connection=conn, queue_name=queue_name)
        queue = Queue(ranking_queue_name(queue_name), connection=conn)
        SimpleWorker([queue], connection=conn).work(burst=True)  # a ranker's job: it settles
        assert queue.fetch_job(job_id).return_value() == "refreshed"
    finally:
        ranking.use_page_preparer(None)
    clear_caches()
    assert seen["during"] == before - {withdrawn["system"]}
    after = _names(client)
    assert "Newcomer 0" in after and withdrawn["system"] not in after
    # prepared, shown: no marker left
    assert prepared_pages.pending_among(session, [seen["pending"]]) == set()

    # A ranker that died while preparing: the marker stays; shown after PENDING_SECONDS.
    snapshot = refresh_snapshot(session=session, board_id=board.id)
    prepared_pages.mark_pending(session, board.id, snapshot.id)
    session.commit()
    clear_caches()
    assert snapshot_reader.latest_snapshot(session, board.id).id == seen["pending"]
    snapshot.created_at = snapshot.created_at - timedelta(
        seconds=prepared_pages.PENDING_SECONDS + 1)
    session.add(snapshot)
    session.commit()
    clear_caches()
    assert snapshot_reader.latest_snapshot(session, board.id).id == snapshot.id


def test_a_failed_prepare_still_shows_the_new_snapshot(app, client, session, board):
    jobs.configure(settings=app.config["LEADERBOARD"], engine=app.extensions["db_engine"])

    def failing(engine, board_id, snapshot_id):
        raise RuntimeError("the renderer broke")

    ranking.use_page_preparer(failing)
    try:
        board_row = session.get(Board, board.id)
        add_systems(session, board_row, n_systems=1, n_teams=1, rng=np.random.default_rng(9),
                    n_targets=40, bootstrap=50, team_name="Team new {:d}",
                    system_name="Newcomer {:d}")
        assert ranking.refresh_snapshot_job(board.id) == "refreshed"
    finally:
        ranking.use_page_preparer(None)
    clear_caches()
    assert "Newcomer 0" in _names(client)
