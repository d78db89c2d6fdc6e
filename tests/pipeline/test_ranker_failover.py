"""A ranker SIGKILLed in the middle of a refresh: another ranker takes its boards over, the
lease it held frees itself, and the next snapshot comes without the system unpublished."""

from __future__ import annotations

import signal
import time

import numpy as np
from sqlmodel import col, select

from leaderboard.demo.synthetic import add_systems, synthetic_board
from leaderboard.infra.queue import (
    get_redis,
    refresh_keys,
    request_snapshot_refresh,
    running_refreshes_key,
)
from leaderboard.models import LeaderboardSnapshot, Submission
from leaderboard.ranker.placement import live_rankers


def _wait(predicate, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        assert time.monotonic() < deadline, f"{what} not within {timeout} s"
        time.sleep(0.02)


def _latest_systems(session, board_id) -> list[int] | None:
    session.expire_all()
    snap = session.exec(select(LeaderboardSnapshot).where(
        LeaderboardSnapshot.board_id == board_id)
        .order_by(col(LeaderboardSnapshot.id).desc())).first()
    return None if snap is None else sorted(s["id"] for s in snap.data["systems"])


def test_a_ranker_killed_mid_refresh_is_taken_over_and_the_unpublished_system_goes(
        app, session, settings, start_worker):
    board = synthetic_board(session, n_targets=300)
    add_systems(session, board, n_systems=500, n_teams=25, rng=np.random.default_rng(3),
                n_targets=300, bootstrap=200)
    board_id, queue_name = board.id, settings["QUEUE_NAME"]
    with app.app_context():
        conn = get_redis()
    doomed = start_worker("ranker", "--name", "doomed")
    _wait(lambda: "doomed" in live_rankers(conn, queue_name), 30, "the ranker's registration")
    request_snapshot_refresh(board_id, connection=conn, queue_name=queue_name)
    _wait(lambda: conn.hget(running_refreshes_key(queue_name), str(board_id)) == b"doomed",
          30, "the refresh starting")
    withdrawn = session.exec(select(Submission).order_by(Submission.id)).first()
    withdrawn.is_public = False  # unpublished while the refresh runs: it queues another
    session.add(withdrawn)
    session.commit()
    request_snapshot_refresh(board_id, connection=conn, queue_name=queue_name)
    doomed.send_signal(signal.SIGKILL)
    doomed.wait(timeout=10)
    killed = time.monotonic()
    assert _latest_systems(session, board_id) is None  # it died before writing one
    assert conn.get(refresh_keys(board_id, queue_name)["lock"]) is not None  # its lease
    start_worker("ranker", "--name", "rescuer")
    shown = _wait(lambda: _latest_systems(session, board_id), 60, "a snapshot")
    took = time.monotonic() - killed
    assert withdrawn.id not in shown and len(shown) == 499
    print(f"taken over and refreshed {took:.1f} s after the kill")
    assert took < 60, took
    assert live_rankers(conn, queue_name) == ["rescuer"]  # the dead one was taken over
    running = running_refreshes_key(queue_name)
    assert conn.hget(running, str(board_id)) != b"doomed"
    # the rescuer may still be on the refresh the unpublish asked for: it ends, unowned
    _wait(lambda: conn.hget(running, str(board_id)) is None, 60, "the rescuer's last refresh")
