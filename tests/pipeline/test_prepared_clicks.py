"""Pages one click from the prepared ones (issue 31 item 3): once readers are shown a
snapshot, its ranker prepares every ranking page the prepared pages link to (each column's
sort, each part of speech, the other entries choice, the next page), their API answers and
the exports of those in their view's own order; equal to what the web computes, served, and
stopped as soon as the ranker has other work."""

from __future__ import annotations

import html
import re

import pytest
from rq import Queue
from sqlmodel import Session

from leaderboard.blueprints.public.prepare import page_preparer, prepare_board
from leaderboard.blueprints.public.prepare_clicks import click_preparer, prepare_clicks
from leaderboard.models import Board
from leaderboard.queue import get_redis, refresh_keys
from leaderboard.rankers import ranking_queue_name
from leaderboard.services.ranking import prepared_pages
from leaderboard.services.ranking.metric_info import views_for
from leaderboard.services.ranking.snapshots import refresh_snapshot
from tests.backends import ALL_DATABASES
from tests.pipeline.test_prepared_pages import MARK, _forget, _rows, _synthetic, _tamper
from worker import jobs, ranking

_RANKING_LINK = re.compile(r'href="(/\?[^"]*)"')


@pytest.fixture
def board(session):
    """30 public systems of 6 teams and one snapshot, nothing prepared."""
    return _synthetic(session, 30, 6, 5)


def _linked(client, board_arg: str = "") -> list[str]:
    """The ranking pages each view's page links to, as a reader's browser would ask them."""
    links: dict[str, None] = {}
    for view in views_for("generative"):
        page = client.get(f"/?view={view}{board_arg}").get_data(as_text=True)
        for href in _RANKING_LINK.findall(page):
            links[html.unescape(href)] = None
    return list(links)


def _kinds(session, snapshot_id) -> dict[str, int]:
    counts: dict[str, int] = {}
    for row in _rows(session, snapshot_id):
        counts[row.kind] = counts.get(row.kind, 0) + 1
    return counts


@ALL_DATABASES
def test_pages_one_click_away_are_prepared_equal_to_the_computed_ones(app, client, session,
                                                                       board):
    # every query asked twice: past the API's budget
    app.config["LEADERBOARD"]["API_RATE_LIMIT"] = "100000 per minute"
    urls = _linked(client)
    # every sort of the default view, the 4 parts of speech, the other entries choice
    assert {"/?view=strict-a&sort=date&dir=desc&entries=best",
            "/?view=strict-a&pos=NOUN&sort=strict_a_f@10&dir=desc&entries=best",
            "/?view=lenient-c&sort=lenient_c_f@10&dir=desc&entries=all"} <= set(urls)
    apis = [u.replace("/?", "/api/v1/leaderboard?") for u in urls]
    files = [f"/leaderboard.{kind}?view={v}&pos={p}" for kind in ("csv", "json")
             for v in ("strict-a", "lenient-c") for p in ("NOUN", "ADV")]
    computed = {u: client.get(u) for u in (*urls, *apis, *files)}
    assert all(r.status_code == 200 for r in computed.values())
    _forget()
    prepare_board(app, board.id, board.snapshot_id)
    before = _kinds(session, board.snapshot_id)
    written = prepare_clicks(app, board.id, board.snapshot_id)
    after = _kinds(session, board.snapshot_id)
    assert written == sum(after.values()) - sum(before.values()) > 0
    # per view at least its 4 POS and a sort, each page with its API answer
    assert after["page"] - before["page"] >= 6 * 5
    # and the API answer of the default view's ?entries=all, whose page was prepared with it
    assert after["api"] - before["api"] == after["page"] - before["page"] + 1
    # in their view's own order: each view's 4 POS, and the other 5 views' ?entries=all
    # (the default view's was prepared with it): a CSV, a JSON and their layouts each
    assert after["export"] - before["export"] == 4 * (6 * 4 + 5)
    assert prepare_clicks(app, board.id, board.snapshot_id) == 0  # nothing left to make

    _forget()
    for url in computed:
        served = client.get(url)
        assert served.data == computed[url].data, url
        assert served.headers.get("ETag") == computed[url].headers.get("ETag"), url

    # Served from the prepared bytes: a name changed in them shows on every linked page.
    _tamper(session, board.snapshot_id)
    for url in urls:
        assert MARK in client.get(url).get_data(as_text=True), url
    stored = {r.body for r in _rows(session, board.snapshot_id)
              if r.kind == prepared_pages.API}
    assert {computed[u].data for u in apis} <= stored  # byte for byte


def test_another_board_gets_its_own_links(app, client, session, board):
    """A board other than the default: its links carry ``?leaderboard=``; those are its
    pages, not the default board's."""
    from leaderboard.services.catalog.benchmarks import get_split
    from leaderboard.services.catalog.boards import create_board

    generative = session.get(Board, board.id)
    other = create_board(session, get_split(session, generative.benchmark_id),
                         track="ranking")
    session.commit()
    with Session(app.extensions["db_engine"]) as own:
        snapshot_id = refresh_snapshot(session=own, board_id=other.id).id
        own.commit()
    urls = [u for u in _linked_of(client, other.slug)]
    assert urls and all(f"leaderboard={other.slug}" in u for u in urls)
    computed = {u: client.get(u).data for u in urls}
    _forget()
    prepare_board(app, other.id, snapshot_id)
    assert prepare_clicks(app, other.id, snapshot_id) > 0
    _forget()
    for url in urls:
        assert client.get(url).data == computed[url], url
    assert prepare_clicks(app, board.id, board.snapshot_id) == 0  # the default: not prepared


def _linked_of(client, slug: str) -> list[str]:
    page = client.get(f"/?leaderboard={slug}").get_data(as_text=True)
    return list(dict.fromkeys(html.unescape(h) for h in _RANKING_LINK.findall(page)
                              if f"leaderboard={slug}" in html.unescape(h)))


def test_preparing_clicks_stops_when_the_ranker_has_other_work(app, session, board):
    prepare_board(app, board.id, board.snapshot_id)
    assert prepare_clicks(app, board.id, board.snapshot_id, stop=lambda: True) == 0
    calls = []

    def after_two() -> bool:
        calls.append(1)
        return len(calls) > 3

    # asked before the snapshot is parsed, then before each query: two queries made (a page
    # and its API answer each; exports for a POS), then it stops
    written = prepare_clicks(app, board.id, board.snapshot_id, stop=after_two)
    assert 4 <= written <= 12 and len(calls) == 4
    # The ranker's test: a newer refresh of the board asked for, or any job in its queues.
    settings = app.config["LEADERBOARD"]
    queue_name = settings["QUEUE_NAME"]
    with app.app_context():
        conn = get_redis()
    ranking._me["name"] = "ranker-clicks"
    try:
        busy = ranking._busy(conn, queue_name, board.id)
        assert not busy()
        conn.set(refresh_keys(board.id, queue_name)["pending"], "refresh-x")
        assert busy()
        conn.delete(refresh_keys(board.id, queue_name)["pending"])
        queue = Queue(ranking_queue_name(queue_name, "ranker-clicks"), connection=conn)
        queue.enqueue("builtins.print", "another board")
        assert busy()
        queue.empty()
        Queue(ranking_queue_name(queue_name), connection=conn).enqueue("builtins.print", "x")
        assert busy()
        Queue(ranking_queue_name(queue_name), connection=conn).empty()
        assert not busy()
    finally:
        ranking._me.pop("name", None)


def test_the_ranker_prepares_clicks_after_readers_are_shown_the_snapshot(app, session, board):
    jobs.configure(settings=app.config["LEADERBOARD"], engine=app.extensions["db_engine"])
    seen: dict[str, object] = {}
    clicks = click_preparer(app)

    def watching(engine, board_id, snapshot_id, stop):
        with Session(engine) as own:
            seen["pending"] = prepared_pages.pending_among(own, [snapshot_id])
        seen["snapshot"] = snapshot_id
        return clicks(engine, board_id, snapshot_id, stop)

    ranking.use_page_preparer(page_preparer(app), watching)
    try:
        assert ranking.refresh_snapshot_job(board.id) == "refreshed"
    finally:
        ranking.use_page_preparer(None)
    assert seen["pending"] == set()  # readers were shown it first
    counts = _kinds(session, seen["snapshot"])
    prepared_alone = _kinds(session, board.snapshot_id)
    assert prepared_alone == {}  # the fixture's snapshot: nothing prepared
    assert counts["page"] > len(views_for("generative")) + 1


def test_clicks_cut_short_are_taken_up_after_a_later_refresh(app, session, board):
    """Board A's pages one click away are cut short by other work; after board B's refresh
    prepares its own without being cut short, A's are prepared too, of A's newest snapshot
    only (a replaced snapshot gets none)."""
    from leaderboard.services.catalog.benchmarks import get_split
    from leaderboard.services.catalog.boards import create_board

    other = create_board(session, get_split(session, session.get(Board, board.id).benchmark_id),
                         track="ranking")
    session.commit()
    with Session(app.extensions["db_engine"]) as own:
        other_snapshot = refresh_snapshot(session=own, board_id=other.id).id
        own.commit()
    prepare_board(app, board.id, board.snapshot_id)
    prepare_board(app, other.id, other_snapshot)
    ranking.use_page_preparer(page_preparer(app), click_preparer(app))
    try:
        engine = app.extensions["db_engine"]
        prepared = _kinds(session, board.snapshot_id)["page"]
        ranking.prepare_click_pages(engine, board.id, board.snapshot_id, lambda: True)
        assert ranking._unfinished == {board.id: board.snapshot_id}
        assert _kinds(session, board.snapshot_id)["page"] == prepared  # none made
        ranking.prepare_click_pages(engine, other.id, other_snapshot, lambda: False)
        assert ranking._unfinished == {}
        assert _kinds(session, other_snapshot)["page"] > 2
        assert _kinds(session, board.snapshot_id)["page"] >= prepared + 6 * 5
        # A replaced snapshot: nobody will read its pages for long, none are made.
        replaced, newer = [], []
        for made in (replaced, newer):
            with Session(engine) as own:
                made.append(refresh_snapshot(session=own, board_id=other.id).id)
                own.commit()
            prepare_board(app, other.id, made[0])
        assert prepare_clicks(app, other.id, replaced[0]) == 0
        assert prepare_clicks(app, other.id, newer[0]) > 0
    finally:
        ranking.use_page_preparer(None)
