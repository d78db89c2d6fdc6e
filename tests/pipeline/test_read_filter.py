"""A withdrawn system (unpublished, hidden, its team disabled) leaves every public route at
once, before any new snapshot: the read filter, which asks the database."""

from __future__ import annotations

import signal
import time

import numpy as np
import pytest
from sqlmodel import col, delete, select

from leaderboard.demo.synthetic import add_systems, synthetic_board
from leaderboard.infra.queue import (
    get_redis,
    refresh_keys,
    request_snapshot_refresh,
    running_refreshes_key,
)
from leaderboard.models import LeaderboardSnapshot, RankingState, Submission, Team, User
from leaderboard.ranker.placement import live_rankers
from leaderboard.services.ranking import read_filter
from leaderboard.services.ranking.snapshot_reader import latest_snapshot
from leaderboard.services.ranking.snapshots import refresh_snapshot
from tests.backends import ALL_DATABASES, ALL_REDIS
from tests.factories import csrf_token_from, login, make_team
from tests.faults import PrivateRedis

#: Every public route that lists or shows a system of the default board.
ROUTES = ["/", "/?view=all", "/?entries=all", "/matrix", "/charts", "/history",
          "/significance", "/compare", "/leaderboard.csv", "/leaderboard.json",
          "/api/v1/leaderboard", "/api/v1/significance"]


def _wait(predicate, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        assert time.monotonic() < deadline, f"{what} not within {timeout} s"
        time.sleep(0.05)


def _shows(reader, path: str, name: str) -> bool:
    response = reader.get(path)
    assert response.status_code == 200, (path, response.status_code)
    return name in response.get_data(as_text=True)


def _snapshot_ids(session, board_id: int) -> list[int] | None:
    session.expire_all()
    snap = session.exec(select(LeaderboardSnapshot).where(
        LeaderboardSnapshot.board_id == board_id)
        .order_by(col(LeaderboardSnapshot.id).desc())).first()
    return None if snap is None else sorted(s["id"] for s in snap.data["systems"])


def _board(session, n_systems: int, n_targets: int = 120, bootstrap: int = 100):
    board = synthetic_board(session, n_targets=n_targets)
    add_systems(session, board, n_systems=n_systems, n_teams=10,
                rng=np.random.default_rng(11), n_targets=n_targets, bootstrap=bootstrap)
    refresh_snapshot(session=session, board_id=board.id)
    session.commit()
    return board


def _best(session, board_id: int) -> Submission:
    """The first-ranked system: on the first page, in the top-30 matrices and the charts."""
    snap = session.exec(select(LeaderboardSnapshot).where(
        LeaderboardSnapshot.board_id == board_id)).first()
    ranks = snap.data["stats"]["all"]["ranks"]["strict_a_f@10"]["rank"]
    first = snap.data["systems"][ranks.index(min(ranks))]["id"]
    return session.get(Submission, first)


def _member_of(session, submission: Submission, email: str) -> None:
    """Give ``submission``'s team a member who can log in."""
    _team, user = make_team(session, name=f"Login {email}", email=email)
    user = session.get(User, user.id)
    user.team_id = submission.team_id
    session.add(user)
    session.commit()


def test_filtered_drops_a_system_from_every_block_by_hand():
    data = {
        "systems": [{"id": 1}, {"id": 2}, {"id": 3}],
        "stats": {"all": {"ties": {"m": [None, 0.3, 0.04]},
                          "ranks": {"m": {"rank": [1, 2, 3], "lo": [1, 1, 2],
                                          "hi": [2, 3, 3], "conservative": [1, 1, 2]}}}},
        "best": {"m": {"members": [0, 2], "stats": {"all": {
            "ties": {"m": [None, 0.04]}, "ranks": {"m": {"rank": [1, 2]}}}}}},
        "pairwise": {"m": {"ids": [1, 2, 3], "result_ids": [11, 12, 13],
                           "p_beats": [[0.5, 0.9, 0.99], [0.1, 0.5, 0.8], [0.01, 0.2, 0.5]]}},
        "neighbours": {"m": {"ids": [1, 2, 3], "result_ids": [11, 12, 13],
                             "down": [[0.9, 0.99], [0.8], []],
                             "up": [[0.1, 0.01], [0.2], []]}},
        "references": [{"name": "Humans"}],
    }
    out = read_filter.filtered(data, frozenset({2}))
    assert [s["id"] for s in out["systems"]] == [1, 3]
    assert out["stats"]["all"]["ties"]["m"] == [None, 0.04]
    assert out["stats"]["all"]["ranks"]["m"] == {"rank": [1, 3], "lo": [1, 2], "hi": [2, 3],
                                                 "conservative": [1, 2]}  # a gap at 2
    assert out["best"]["m"]["members"] == [0, 1]  # system 3 is now at index 1
    assert out["best"]["m"]["stats"]["all"]["ties"]["m"] == [None, 0.04]
    assert out["pairwise"]["m"] == {"ids": [1, 3], "result_ids": [11, 13],
                                    "p_beats": [[0.5, 0.99], [0.01, 0.5]]}
    assert out["neighbours"]["m"]["down"] == [[0.99], []]
    assert out["neighbours"]["m"]["up"] == [[0.01], []]
    assert out["references"] == data["references"]
    assert [s["id"] for s in data["systems"]] == [1, 2, 3]  # the shared data is unchanged
    assert read_filter.filtered(data, frozenset({7})) is data


@ALL_DATABASES
def test_the_filter_is_the_databases_non_public_systems_the_snapshot_lists(session):
    board = _board(session, n_systems=12)
    gone = _best(session, board.id)
    assert latest_snapshot(session, board.id).hidden == frozenset()
    gone.is_public = False
    session.add(gone)
    session.commit()
    assert latest_snapshot(session, board.id).hidden == frozenset({gone.id})
    refresh_snapshot(session=session, board_id=board.id)
    session.commit()
    # The next snapshot no longer lists it: nothing left to filter.
    assert gone.id not in _snapshot_ids(session, board.id)
    assert latest_snapshot(session, board.id).hidden == frozenset()


@ALL_DATABASES
@ALL_REDIS
def test_hide_and_disable_leave_every_route_at_once_without_any_ranker(app, session):
    board = _board(session, n_systems=40)
    best = _best(session, board.id)
    name, team_id = best.system_name, best.team_id
    team_systems = session.exec(select(Submission.system_name).where(
        Submission.team_id == team_id)).all()
    snapshots_before = len(session.exec(select(LeaderboardSnapshot.id)).all())
    admin = app.test_client()
    make_team(session, name="Hosts", email="host@example.org", is_admin=True)
    assert login(admin, "host@example.org").status_code == 302
    reader = app.test_client()
    for path in ROUTES:
        assert _shows(reader, path, name), path  # the test can fail: it is there first
    assert _shows(reader, f"/systems/{best.id}", name)
    token = csrf_token_from(admin.get("/admin/submissions").get_data(as_text=True))

    assert admin.post(f"/admin/submissions/{best.id}/hide",
                      data={"csrf_token": token, "reason": "copied"}).status_code == 302
    hidden_at = time.monotonic()
    for path in ROUTES:
        _wait(lambda path=path: not _shows(reader, path, name), 2, f"gone from {path}")
    assert reader.get(f"/systems/{best.id}").status_code == 404
    assert reader.get(f"/compare?a={best.id}&b={best.id + 1}").status_code == 404
    assert time.monotonic() - hidden_at < 2
    # The request computed nothing: a refresh waits for a ranker.
    with app.app_context():
        conn, queue_name = get_redis(), app.config["LEADERBOARD"]["QUEUE_NAME"]
    assert len(session.exec(select(LeaderboardSnapshot.id)).all()) == snapshots_before
    assert conn.get(refresh_keys(board.id, queue_name)["pending"]) is not None

    assert admin.post(f"/admin/teams/{team_id}/disable",
                      data={"csrf_token": token, "reason": "spam"}).status_code == 302
    for path in ("/", "/?entries=all", "/leaderboard.csv", "/api/v1/leaderboard"):
        for other in team_systems:
            assert not _shows(reader, path, other), (path, other)
    assert reader.get(f"/teams/{team_id}").status_code == 404
    other = session.exec(select(Submission.id).where(Submission.team_id == team_id,
                                                     Submission.id != best.id)).first()
    assert reader.get(f"/systems/{other}").status_code == 404
    assert len(session.exec(select(LeaderboardSnapshot.id)).all()) == snapshots_before

    # Enabled again: its systems return from the same snapshot, but not the hidden one.
    assert admin.post(f"/admin/teams/{team_id}/enable",
                      data={"csrf_token": token, "reason": ""}).status_code == 302
    back = [s for s in team_systems if s != name]
    assert all(_shows(reader, "/?entries=all", s) for s in back)
    assert not _shows(reader, "/?entries=all", name)
    assert latest_snapshot(session, board.id).hidden == {best.id}
    assert admin.post(f"/admin/submissions/{best.id}/unhide",
                      data={"csrf_token": token, "reason": ""}).status_code == 302
    assert all(_shows(reader, path, name) for path in ROUTES)
    assert len(session.exec(select(LeaderboardSnapshot.id)).all()) == snapshots_before


def test_unpublished_while_its_ranker_is_killed_mid_refresh(app, session, start_worker):
    board = _board(session, n_systems=150, n_targets=300, bootstrap=200)
    board_id = board.id
    best = _best(session, board_id)
    name, best_id = best.system_name, best.id
    _member_of(session, best, "owner@example.org")
    # Without its rank state the next refresh rebuilds it all: long enough to be killed in.
    session.exec(delete(RankingState))
    session.commit()
    with app.app_context():
        conn, queue_name = get_redis(), app.config["LEADERBOARD"]["QUEUE_NAME"]
    reader, owner = app.test_client(), app.test_client()
    assert all(_shows(reader, path, name) for path in ROUTES)
    assert login(owner, "owner@example.org").status_code == 302

    doomed = start_worker("ranker", "--name", "doomed")
    _wait(lambda: "doomed" in live_rankers(conn, queue_name), 30, "the ranker's registration")
    request_snapshot_refresh(board_id, connection=conn, queue_name=queue_name)
    _wait(lambda: conn.hget(running_refreshes_key(queue_name), str(board_id)) == b"doomed",
          30, "the refresh starting")
    token = csrf_token_from(owner.get(f"/account/submissions/{best_id}").get_data(as_text=True))
    assert owner.post(f"/account/submissions/{best_id}/visibility",
                      data={"csrf_token": token, "public": "0"}).status_code == 303
    unpublished = time.monotonic()
    doomed.send_signal(signal.SIGKILL)
    doomed.wait(timeout=10)
    took = {}
    for path in ROUTES:
        # Gone on the next read (the database says so); how soon is perf/bench_freshness.py's.
        _wait(lambda path=path: not _shows(reader, path, name), 30, f"gone from {path}")
        took[path] = time.monotonic() - unpublished
    assert reader.get(f"/systems/{best_id}").status_code == 404
    assert all(_shows(reader, "/leaderboard.csv?entries=all", f"System {i:03d}") for i in range(3)
               if f"System {i:03d}" != name)  # only the withdrawn one went

    killed = time.monotonic()
    start_worker("ranker", "--name", "rescuer")
    shown = _wait(lambda: (ids := _snapshot_ids(session, board_id)) and best_id not in ids
                  and ids, 180, "a snapshot without it")
    print(f"gone from {len(ROUTES)} routes within {max(took.values()):.2f} s; next snapshot "
          f"{time.monotonic() - killed:.1f} s after the kill")
    assert len(shown) == 149
    # The snapshot no longer lists it: nothing left to filter.
    assert latest_snapshot(session, board_id).hidden == frozenset()
    assert all(not _shows(reader, path, name) for path in ROUTES)
    assert session.exec(select(Team).where(Team.id == best.team_id)).one().disabled is False


def test_a_client_revalidating_by_date_gets_the_filtered_page(app, session):
    board = _board(session, n_systems=12)
    best = _best(session, board.id)
    reader = app.test_client()
    first = reader.get("/leaderboard.csv")
    assert best.system_name in first.get_data(as_text=True)
    stamp, etag = first.headers["Last-Modified"], first.headers["ETag"]
    assert reader.get("/leaderboard.csv", headers={"If-Modified-Since": stamp}).status_code == 304
    best.hidden = True
    session.add(best)
    session.commit()
    for headers in ({"If-Modified-Since": stamp}, {"If-None-Match": etag}):
        again = reader.get("/leaderboard.csv", headers=headers)
        assert again.status_code == 200, headers
        assert best.system_name not in again.get_data(as_text=True)


#: Every public route that lists the board's systems, with ranking variants.
LOSS_ROUTES = [*ROUTES, "/?pos=NOUN", "/?view=strict-c", "/?view=all&pos=VERB&entries=all",
               "/?sort=date", "/leaderboard.csv?pos=NOUN", "/leaderboard.json?view=lenient-a",
               "/api/v1/leaderboard?pos=NOUN&entries=all", "/matrix?metric=gap"]


def _withdraw(app, session, best: Submission, how: str) -> None:
    """Withdraw ``best`` as a user would: the admin hides it, or its owner unpublishes it."""
    client = app.test_client()
    if how == "admin hides":
        make_team(session, name="Hosts", email="host@example.org", is_admin=True)
        assert login(client, "host@example.org").status_code == 302
        token = csrf_token_from(client.get("/admin/submissions").get_data(as_text=True))
        answer = client.post(f"/admin/submissions/{best.id}/hide",
                             data={"csrf_token": token, "reason": "copied"})
        assert answer.status_code == 302
    else:
        _member_of(session, best, "owner@example.org")
        assert login(client, "owner@example.org").status_code == 302
        page = client.get(f"/account/submissions/{best.id}").get_data(as_text=True)
        answer = client.post(f"/account/submissions/{best.id}/visibility",
                             data={"csrf_token": csrf_token_from(page), "public": "0"})
        assert answer.status_code == 303


def _absent_everywhere(reader, best_id: int, name: str, team_id: int, other_id: int) -> None:
    for path in LOSS_ROUTES:
        assert not _shows(reader, path, name), path
    assert reader.get(f"/systems/{best_id}").status_code == 404
    assert not _shows(reader, f"/teams/{team_id}", name)
    assert reader.get(f"/compare?a={best_id}&b={other_id}").status_code == 404
    assert not _shows(reader, f"/compare?a={other_id}", name)


@ALL_DATABASES
@pytest.mark.parametrize("how", ["admin hides", "owner unpublishes"])
def test_a_withdrawn_system_stays_gone_when_redis_comes_back_empty(app_overrides, tmp_path,
                                                                    how):
    """Withdrawn, then redis-server SIGKILLed and an empty one started on its port (its
    refresh request and anything else Redis held are gone): the system stays off every
    public route, because reads ask the database; the reconciler asks for the lost refresh
    again, and the ranker's next snapshot leaves it out."""
    from sqlmodel import Session

    from leaderboard import create_app
    from leaderboard.db import create_all
    from leaderboard.services.intake.reconcile import reconcile

    redis_server = PrivateRedis(tmp_path / "redis")
    redis_server.start()
    app_overrides["REDIS_URL"] = redis_server.url
    site = create_app(app_overrides)
    engine = site.extensions["db_engine"]
    create_all(engine)
    try:
        with Session(engine) as session:
            board = _board(session, n_systems=12)
            best = _best(session, board.id)
            best_id, name, team_id = best.id, best.system_name, best.team_id
            other_id = session.exec(select(Submission.id).where(
                Submission.board_id == board.id, Submission.team_id != team_id)).first()
            reader = site.test_client()
            for path in LOSS_ROUTES:
                assert _shows(reader, path, name), path  # the test can fail: it is there first
            _withdraw(site, session, best, how)
            _absent_everywhere(reader, best_id, name, team_id, other_id)

            redis_server.kill()
            redis_server.start()
            with site.app_context():
                conn, queue_name = get_redis(), site.config["LEADERBOARD"]["QUEUE_NAME"]
            assert conn.get(refresh_keys(board.id, queue_name)["pending"]) is None
            _absent_everywhere(reader, best_id, name, team_id, other_id)

            reconcile(session=session, connection=conn, queue_name=queue_name,
                      settings=site.config["LEADERBOARD"])
            assert conn.get(refresh_keys(board.id, queue_name)["pending"]) is not None
            refresh_snapshot(session=session, board_id=board.id)
            session.commit()
            assert best_id not in _snapshot_ids(session, board.id)
            _absent_everywhere(reader, best_id, name, team_id, other_id)
    finally:
        if site.extensions.get("redis") is not None:
            site.extensions["redis"].close()
        engine.dispose()
        redis_server.stop()
