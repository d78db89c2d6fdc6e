"""Leases, the ranker registry and the board -> ranker map, on a real Redis."""

from __future__ import annotations

import time

from rq import Queue, SimpleWorker
from rq.registry import StartedJobRegistry

from leaderboard.infra.queue import get_redis, refresh_keys, request_snapshot_refresh
from leaderboard.ranker.leases import Lease
from leaderboard.ranker.placement import (
    REGISTRATION_TTL,
    live_rankers,
    ranker_for,
    ranking_queue_name,
    register,
)
from leaderboard.ranker.refresh import take_over_gone
from tests.backends import ALL_REDIS


def _conn(app):
    with app.app_context():
        return get_redis()


@ALL_REDIS
def test_a_lease_is_exclusive_renewed_while_held_and_free_soon_after_its_holder_stops(app):
    conn = _conn(app)
    key = f"test-lease-{app.config['LEADERBOARD']['QUEUE_NAME']}"
    first = Lease(conn, key, ttl=0.6)
    assert first.acquire()
    assert not Lease(conn, key, ttl=0.6).acquire()
    with first:
        time.sleep(1.5)  # well past the ttl: renewed meanwhile
        assert not Lease(conn, key, ttl=0.6).acquire()
        assert not first.lost
    assert conn.get(key) is None  # released on exit
    dead = Lease(conn, key, ttl=0.5)
    assert dead.acquire()  # a holder that dies never renews
    time.sleep(0.7)
    taker = Lease(conn, key, ttl=5)
    assert taker.acquire()
    assert not dead.renew() and dead.lost  # the old holder finds out it lost it
    assert conn.get(key) == taker.token.encode()


def test_the_board_map_is_stable_and_moves_only_the_boards_of_a_gone_ranker():
    three = ["a-1", "b-2", "c-3"]
    before = {board: ranker_for(board, three) for board in range(300)}
    assert set(before.values()) == set(three)
    after = {board: ranker_for(board, ["a-1", "c-3"]) for board in range(300)}
    moved = [b for b in range(300) if before[b] != after[b]]
    assert moved == [b for b in range(300) if before[b] == "b-2"]
    assert ranker_for(7, []) is None


@ALL_REDIS
def test_refreshes_go_to_the_boards_ranker_and_a_gone_rankers_work_moves(app):
    conn = _conn(app)
    queue_name = app.config["LEADERBOARD"]["QUEUE_NAME"]
    now = time.time()
    register(conn, queue_name, "alive", now)
    register(conn, queue_name, "doomed", now)
    assert sorted(live_rankers(conn, queue_name, now)) == ["alive", "doomed"]
    boards = [b for b in range(1, 40) if ranker_for(b, ["alive", "doomed"]) == "doomed"][:3]
    for board in boards:
        request_snapshot_refresh(board, connection=conn, queue_name=queue_name)
    doomed_queue = Queue(ranking_queue_name(queue_name, "doomed"), connection=conn)
    assert doomed_queue.count == 3
    # "doomed" was running the refresh of board 99 when it died.
    conn.hset(f"leaderboard:refresh:{queue_name}:running", "99", "doomed")
    later = now + REGISTRATION_TTL + 1
    register(conn, queue_name, "alive", later)
    assert live_rankers(conn, queue_name, later) == ["alive"]
    assert take_over_gone(conn, queue_name, later) == sorted([*boards, 99])
    assert doomed_queue.count == 0
    alive_queue = Queue(ranking_queue_name(queue_name, "alive"), connection=conn)
    assert sorted(job.args[0] for job in alive_queue.jobs) == sorted([*boards, 99])
    for board in boards:  # the pending markers name the new jobs: no request is lost
        assert conn.get(refresh_keys(board, queue_name)["pending"]).decode() in alive_queue.job_ids


@ALL_REDIS
def test_with_no_ranker_alive_refreshes_wait_on_the_shared_queue(app):
    conn = _conn(app)
    queue_name = app.config["LEADERBOARD"]["QUEUE_NAME"]
    job_id = request_snapshot_refresh(5, connection=conn, queue_name=queue_name)
    assert Queue(ranking_queue_name(queue_name), connection=conn).job_ids == [job_id]


@ALL_REDIS
def test_a_refresh_its_ranker_took_but_never_marked_running_is_requested_again(app):
    """Killed in a refresh's first milliseconds (after RQ took the job, before the job said it
    was running): the board's pending marker named that job, so every later request for the
    board was coalesced onto it and the board froze until the marker expired (15 min)."""
    conn = _conn(app)
    queue_name = app.config["LEADERBOARD"]["QUEUE_NAME"]
    now = time.time()
    register(conn, queue_name, "alive", now)
    register(conn, queue_name, "doomed", now)
    board = next(b for b in range(1, 40) if ranker_for(b, ["alive", "doomed"]) == "doomed")
    job_id = request_snapshot_refresh(board, connection=conn, queue_name=queue_name)
    doomed_queue = Queue(ranking_queue_name(queue_name, "doomed"), connection=conn)
    job = doomed_queue.dequeue_any([doomed_queue], None, connection=conn)[0]
    assert job.id == job_id
    SimpleWorker([doomed_queue], connection=conn).prepare_execution(job)  # RQ started it
    assert StartedJobRegistry(queue=doomed_queue).get_job_ids(cleanup=False) == [job_id]
    pending = refresh_keys(board, queue_name)["pending"]
    assert conn.get(pending).decode() == job_id
    later = now + REGISTRATION_TTL + 1
    register(conn, queue_name, "alive", later)
    assert take_over_gone(conn, queue_name, later) == [board]
    alive_queue = Queue(ranking_queue_name(queue_name, "alive"), connection=conn)
    assert [j.args[0] for j in alive_queue.jobs] == [board]
    assert conn.get(pending).decode() == alive_queue.job_ids[0]
    assert StartedJobRegistry(queue=doomed_queue).get_job_ids(cleanup=False) == []


@ALL_REDIS
def test_a_request_coalesces_only_onto_a_refresh_still_waiting_in_its_queue(app):
    """A pending marker naming a job that has started (or is gone) does not swallow the
    request: one more refresh is queued and the marker names it."""
    conn = _conn(app)
    queue_name = app.config["LEADERBOARD"]["QUEUE_NAME"]
    pending = refresh_keys(7, queue_name)["pending"]
    first = request_snapshot_refresh(7, connection=conn, queue_name=queue_name)
    assert request_snapshot_refresh(7, connection=conn, queue_name=queue_name) is None
    queue = Queue(ranking_queue_name(queue_name), connection=conn)
    job = queue.dequeue_any([queue], None, connection=conn)[0]
    SimpleWorker([queue], connection=conn).prepare_execution(job)  # taken, never released
    second = request_snapshot_refresh(7, connection=conn, queue_name=queue_name)
    assert second is not None and second != first
    assert conn.get(pending).decode() == second and queue.job_ids == [second]
    assert request_snapshot_refresh(7, connection=conn, queue_name=queue_name) is None
    conn.set(pending, "refresh-gone-7-1")  # a job deleted meanwhile
    third = request_snapshot_refresh(7, connection=conn, queue_name=queue_name)
    assert third is not None and conn.get(pending).decode() == third
