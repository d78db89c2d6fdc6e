"""Rankers: long-lived processes that compute each board's ranking where its state lives.

A ranker works on its own queue (the boards the rendezvous map gives it) and on the shared
ranking queue. It keeps the rank states it writes in memory, so a board's next refresh
updates them. It renews its registration every few seconds; when it finds another ranker's
registration expired (killed, out of memory, its machine gone), it moves that ranker's
queued refreshes to the boards' new rankers and redoes the refresh it was running.
Rankings are computed from trusted data only (stored results), never from uploaded bytes.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

from redis import Redis
from rq import Queue
from rq.exceptions import NoSuchJobError
from rq.job import Job
from rq.registry import StartedJobRegistry
from sqlmodel import Session

from leaderboard.infra.processes import lower_priority
from leaderboard.infra.queue import (
    REFRESH_FUNCTION,
    refresh_keys,
    refresh_stats_key,
    release_refresh,
    request_snapshot_refresh,
    running_refreshes_key,
)
from leaderboard.ranker.leases import Lease
from leaderboard.ranker.placement import (
    BEAT_SECONDS,
    gone_rankers,
    new_ranker_name,
    ranking_queue_name,
    register,
    registry_key,
    unregister,
)

log = logging.getLogger("leaderboard.ranker")
#: Pause before a refresh that found the board's lease taken goes to the back of the queue.
DEFER_SECONDS = 1.0
#: A board's refresh lease lives this long unless renewed (every third of it).
LEASE_SECONDS = 15.0
_me: dict[str, str] = {}


def refresh_snapshot_job(board_id: int) -> str:
    """Recompute a board's ranking snapshot in its own session; safe to run twice.

    One refresh per board runs at a time, under a lease (a short-lived Redis key renewed
    while the refresh runs): a ranker killed mid-refresh frees it within LEASE_SECONDS. A
    job that finds the lease taken goes to the back of the queue (a new coalesced request).
    A refresh whose lease was lost meanwhile does not commit and asks for another.
    Returns "refreshed", "deferred" or "lost".
    """
    from rq import get_current_job

    from leaderboard.services.ranking.snapshots import refresh_snapshot
    from leaderboard.worker.jobs import ensure_context, release_memory

    settings, engine = ensure_context()
    job = get_current_job()
    if job is None:  # called directly (tests, scripts): no coordination needed
        with Session(engine) as session:
            refresh_snapshot(session=session, board_id=board_id)
            session.commit()
        return "refreshed"
    connection, queue_name = job.connection, settings["QUEUE_NAME"]
    lease = Lease(connection, refresh_keys(board_id, queue_name)["lock"], ttl=LEASE_SECONDS,
                  holder=_me.get("name", ""))
    if not lease.acquire():
        time.sleep(DEFER_SECONDS)
        release_refresh(connection, board_id, queue_name, job.id)
        request_snapshot_refresh(board_id, connection=connection, queue_name=queue_name)
        return "deferred"
    # From here on a new request queues one more job: it will see what we cannot.
    release_refresh(connection, board_id, queue_name, job.id)
    running = running_refreshes_key(queue_name)
    connection.hset(running, str(board_id), _me.get("name", ""))
    try:
        with lease, Session(engine) as session:
            refresh_snapshot(session=session, board_id=board_id)
            if lease.lost:
                session.rollback()
                request_snapshot_refresh(board_id, connection=connection, queue_name=queue_name)
                return "lost"
            session.commit()
        _count_refresh(connection, queue_name, board_id)
    finally:
        connection.hdel(running, str(board_id))
        release_memory()
    return "refreshed"


def _refresh_behind(connection: Redis, queue_name: str, engine: Any) -> None:
    """Ask for the refresh of each board whose latest snapshot does not list exactly its
    public results (a refresh lost with Redis, or one a ranker died running before its
    registration expired). Requests coalesce, so rankers starting together ask once."""
    from leaderboard.services.ranking.snapshots import boards_behind

    try:
        with Session(engine) as session:
            boards = boards_behind(session)
        for board_id in boards:
            request_snapshot_refresh(board_id, connection=connection, queue_name=queue_name)
    except Exception:  # the reconciler asks again
        log.warning("could not ask for the refresh of boards behind", exc_info=True)
        return
    if boards:
        log.info("asked for the refresh of boards %s: their snapshot is behind the database",
                 boards)


#: How often a ranker looks for anonymous systems whose reveal date has come (seconds):
#: a reveal is due on a day, so a minute late is on time.
REVEAL_SECONDS = 60.0


def reveal_due_systems(connection: Redis, queue_name: str, engine: Any) -> list[str]:
    """Name the anonymous systems whose reveal date has come and ask for the refresh of
    their boards (then the name shows at the same permalinks); their slugs."""
    from leaderboard.services.intake.systems import reveal_due

    def refresh(boards: dict[int, list[int]]) -> None:
        for board_id in sorted(boards):
            request_snapshot_refresh(board_id, connection=connection, queue_name=queue_name)

    with Session(engine) as session:
        revealed = reveal_due(session=session, request_refresh=refresh)
    if revealed:
        log.info("revealed anonymous systems %s: their reveal date has come", revealed)
    return revealed


def _count_refresh(connection: Redis, queue_name: str, board_id: int) -> None:
    """Count the refresh warm or cold, incremental or full (``bench_scaleout.py`` reads the
    counts)."""
    from leaderboard.services.ranking.board_state import last_written

    written = last_written(board_id)
    if written is None:
        return
    try:
        warmth = "warm" if written.origin == "memory" else "cold"
        kind = "incremental" if written.incremental else "full"
        with connection.pipeline(transaction=False) as pipe:
            pipe.hincrby(refresh_stats_key(queue_name), warmth)
            pipe.hincrby(refresh_stats_key(queue_name), kind)
            pipe.execute()
        log.info("refresh of board %s: %s, %s (state from %s), %d systems", board_id, warmth,
                 kind, written.origin, len(written.systems))
    except Exception:  # the snapshot is committed; only a count is lost
        log.warning("could not count the refresh of board %s", board_id, exc_info=True)


def _move_queued(connection: Redis, queue_name: str, name: str) -> set[int]:
    """Empty ranker ``name``'s queue and the register of the jobs it had started; returns
    the boards whose refreshes it held. A refresh it took but had not yet marked running
    (killed in its first milliseconds) still holds the board's pending marker: released
    here, or every later request for the board would wait on a job nobody runs."""
    boards: set[int] = set()
    queue = Queue(ranking_queue_name(queue_name, name), connection=connection)
    started = StartedJobRegistry(queue=queue)
    for job_id in [*queue.get_job_ids(), *started.get_job_ids(cleanup=False)]:
        try:
            job = Job.fetch(job_id, connection=connection)
        except NoSuchJobError:
            continue
        if job.func_name == REFRESH_FUNCTION:
            board_id = int(job.args[0])
            release_refresh(connection, board_id, queue_name, job_id)
            boards.add(board_id)
        started.remove_executions(job)
        job.delete()
    queue.delete(delete_jobs=True)
    return boards


def take_over_gone(connection: Redis, queue_name: str, now: float | None = None) -> list[int]:
    """Move the work of rankers whose registration expired; returns the boards re-requested.

    Their queued refreshes are re-requested (routed to the boards' live rankers) and the
    refreshes they were running are requested again (their leases expire by themselves).
    """
    boards: set[int] = set()
    running = running_refreshes_key(queue_name)
    for name in gone_rankers(connection, queue_name, now):
        boards |= _move_queued(connection, queue_name, name)
        for board, holder in connection.hgetall(running).items():
            if holder.decode() == name:
                boards.add(int(board))
                connection.hdel(running, board)
        connection.zrem(registry_key(queue_name), name)
    for board_id in sorted(boards):
        request_snapshot_refresh(board_id, connection=connection, queue_name=queue_name)
    return sorted(boards)


def _beat_loop(stop: threading.Event, connection: Redis, queue_name: str, name: str,
               engine: Any = None) -> None:
    last_reveal = 0.0
    while not stop.wait(BEAT_SECONDS):
        try:
            register(connection, queue_name, name)
            moved = take_over_gone(connection, queue_name)
            if moved:
                log.info("took over refreshes of gone rankers: boards %s", moved)
            if engine is not None and time.monotonic() - last_reveal >= REVEAL_SECONDS:
                last_reveal = time.monotonic()
                reveal_due_systems(connection, queue_name, engine)
        except Exception:  # Redis or the database away for a moment: try at the next beat
            log.warning("ranker beat failed", exc_info=True)


def run_ranker(settings: dict[str, Any], *, burst: bool = False,
               name: str | None = None) -> bool:
    """Run a ranker until SIGTERM (or, with ``burst``, until its queues are empty).

    Refuses a shared database without an explicit secret key and Redis URL."""
    from leaderboard.config import require_shared_settings
    from leaderboard.db import make_engine
    from leaderboard.infra.redis_conn import connect_redis
    from leaderboard.services.ranking.board_state import keep_states
    from leaderboard.worker import jobs
    from leaderboard.worker.main import setup_logging, work_until_stopped

    require_shared_settings(settings)
    setup_logging(settings)
    lower_priority(settings["WORKER_NICE"])
    keep_states()  # a board's next refresh here updates the ranking state it wrote
    name = name or new_ranker_name()
    _me["name"] = name
    engine = make_engine(settings["DATABASE_URL"])
    jobs.configure(settings=settings, engine=engine)
    connection = connect_redis(settings["REDIS_URL"], settings["INSTANCE_PATH"])
    queue_name = settings["QUEUE_NAME"]
    register(connection, queue_name, name)
    take_over_gone(connection, queue_name)
    _refresh_behind(connection, queue_name, engine)
    log.info("ranker %s ready", name)
    stop = threading.Event()
    threading.Thread(target=_beat_loop, daemon=True, name="ranker-beat",
                     args=(stop, connection, queue_name, name, engine)).start()
    try:
        return work_until_stopped(connection, [ranking_queue_name(queue_name, name),
                                               ranking_queue_name(queue_name)],
                                  burst=burst, logging_level=settings.get("LOG_LEVEL", "INFO"))
    finally:
        stop.set()
        try:  # leave at once, handing the refreshes still queued here to the others
            unregister(connection, queue_name, name)
            for board_id in sorted(_move_queued(connection, queue_name, name)):
                request_snapshot_refresh(board_id, connection=connection,
                                         queue_name=queue_name)
        except Exception:
            log.warning("could not unregister ranker %s", name, exc_info=True)
        engine.dispose()
