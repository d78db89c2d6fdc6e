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
from collections.abc import Callable
from typing import Any

from redis import Redis
from rq import Queue
from rq.exceptions import NoSuchJobError
from rq.job import Job
from rq.registry import StartedJobRegistry
from sqlmodel import Session

from leaderboard.lease import Lease
from leaderboard.processes import lower_priority
from leaderboard.queue import (
    REFRESH_FUNCTION,
    refresh_keys,
    refresh_stats_key,
    release_refresh,
    request_snapshot_refresh,
    running_refreshes_key,
)
from leaderboard.rankers import (
    BEAT_SECONDS,
    gone_rankers,
    new_ranker_name,
    ranking_queue_name,
    register,
    registry_key,
    unregister,
)
from leaderboard.services.ranking import prepared_pages

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
    from worker.jobs import ensure_context, release_memory

    settings, engine = ensure_context()
    job = get_current_job()
    if job is None:  # called directly (tests, scripts): no coordination needed
        with Session(engine) as session:
            snapshot_id = refresh_snapshot(session=session, board_id=board_id).id
            _mark_pending(session, board_id, snapshot_id)
            session.commit()
        prepare_pages(settings, engine, board_id, snapshot_id)
        prepare_click_pages(engine, board_id, snapshot_id, lambda: False)
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
            snapshot_id = refresh_snapshot(session=session, board_id=board_id).id
            if lease.lost:
                session.rollback()
                request_snapshot_refresh(board_id, connection=connection, queue_name=queue_name)
                return "lost"
            _mark_pending(session, board_id, snapshot_id)
            session.commit()
        # The snapshot is in: a ranker dying while it renders pages need not redo it.
        connection.hdel(running, str(board_id))
        prepare_pages(settings, engine, board_id, snapshot_id)  # outside the lease
        # Only now: until readers are shown the new snapshot, the filter must still drop
        # what the one they are shown lists and it does not.
        _after_commit(connection, queue_name, board_id)
        prepare_click_pages(engine, board_id, snapshot_id,
                            _busy(connection, queue_name, board_id))
    finally:
        connection.hdel(running, str(board_id))
        release_memory()
    return "refreshed"


#: Renders and stores what readers ask most of a committed snapshot, as bytes:
#: (engine, board id, snapshot id) -> how many items. The ``ranker`` command hands it in
#: (:func:`leaderboard.blueprints.public.prepare.page_preparer`), so this module imports
#: nothing of the web layer; without one (a job called directly) the web computes pages.
PagePreparer = Callable[[Any, int, int], int]
#: What it prepares once readers are shown the snapshot, until told to stop (the pages one
#: click away: :func:`leaderboard.blueprints.public.prepare_clicks.click_preparer`):
#: (engine, board id, snapshot id, stop) -> how many items.
ClickPreparer = Callable[[Any, int, int, Callable[[], bool]], int]
_preparers: list[PagePreparer] = []
_click_preparers: list[ClickPreparer] = []
#: Board -> its newest snapshot whose pages one click away were cut short by other work.
_unfinished: dict[int, int] = {}


def use_page_preparer(preparer: PagePreparer | None,
                      clicks: ClickPreparer | None = None) -> None:
    """Prepare pages with ``preparer`` after each snapshot this process writes, then with
    ``clicks`` once readers are shown it (None: stop)."""
    _preparers[:] = [preparer] if preparer is not None else []
    _click_preparers[:] = [clicks] if preparer is not None and clicks is not None else []
    _unfinished.clear()


def _mark_pending(session: Session, board_id: int, snapshot_id: int) -> None:
    """With a preparer, readers keep the previous snapshot until :func:`prepare_pages` is
    done with this one (:data:`prepared_pages.PENDING`)."""
    if _preparers:
        prepared_pages.mark_pending(session, board_id, snapshot_id)


def prepare_pages(settings: dict[str, Any], engine: Any, board_id: int,
                  snapshot_id: int | None) -> None:
    """Write what readers ask most of the new snapshot as bytes (page blocks, API answers),
    then let readers see it. A failure only costs the web processes computing those pages
    themselves, as they do for an older snapshot."""
    if snapshot_id is None or not _preparers:
        return
    try:
        start = time.perf_counter()
        count = _preparers[0](engine, board_id, snapshot_id)
        log.info("prepared %d items of snapshot %s (board %s) in %.2f s", count, snapshot_id,
                 board_id, time.perf_counter() - start)
    except Exception:
        log.exception("could not prepare the pages of snapshot %s", snapshot_id)
    try:
        with Session(engine) as session:
            prepared_pages.clear_pending(session, snapshot_id)
            session.commit()
    except Exception:  # readers are shown it anyway PENDING_SECONDS after it was written
        log.exception("could not show snapshot %s to readers", snapshot_id)


def prepare_click_pages(engine: Any, board_id: int, snapshot_id: int,
                        busy: Callable[[], bool]) -> None:
    """Once readers are shown the snapshot: prepare the pages one click from its prepared
    ones until ``busy()`` (the ranker has other work; every page costs about as much as
    the web process would spend on it). Boards cut short so are taken up again, newest
    snapshot only, after a later refresh here finishes its own without being cut short."""
    if not _click_preparers:
        return
    _unfinished.pop(board_id, None)
    todo = [(board_id, snapshot_id)]
    while todo:
        board, snapshot = todo.pop()
        try:
            start = time.perf_counter()
            count = _click_preparers[0](engine, board, snapshot, busy)
            stopped = busy()
            log.info("prepared %d items one click away in snapshot %s (board %s) in %.2f s%s",
                     count, snapshot, board, time.perf_counter() - start,
                     " (stopped: other work)" if stopped else "")
        except Exception:  # those pages are made by the web processes, as before
            log.exception("could not prepare the pages one click away in snapshot %s",
                          snapshot)
            continue
        if stopped:
            _unfinished[board] = snapshot
            return
        if _unfinished:
            todo.append(_unfinished.popitem())


def _busy(connection: Redis, queue_name: str, board_id: int) -> Callable[[], bool]:
    """Whether this ranker has other work: a newer refresh of the board asked for, or any
    job waiting in its queues (its own and the shared ranking queue)."""
    pending = refresh_keys(board_id, queue_name)["pending"]
    queues = [Queue(ranking_queue_name(queue_name, name), connection=connection).key
              for name in (_me.get("name"), None)]

    def busy() -> bool:
        try:
            with connection.pipeline(transaction=False) as pipe:
                pipe.exists(pending)
                for key in queues:
                    pipe.llen(key)
                return any(pipe.execute())
        except Exception:  # Redis away: the pages can wait, the ranker's work cannot
            return True

    return busy


def _refresh_unprepared(connection: Redis, queue_name: str, engine: Any) -> None:
    """Ask for a refresh of each board whose shown snapshot this release never prepared (one
    an import wrote, or the last one before a deploy that changed the pages' code): until
    then every web process computes its pages. Requests coalesce, so rankers starting
    together ask once."""
    if not _preparers:
        return
    try:
        with Session(engine) as session:
            boards = prepared_pages.unprepared_boards(session)
        for board_id in boards:
            request_snapshot_refresh(board_id, connection=connection, queue_name=queue_name)
    except Exception:  # the boards' next refresh prepares them
        log.warning("could not ask for the refresh of unprepared boards", exc_info=True)
        return
    if boards:
        log.info("asked for the refresh of boards %s: their snapshot has no prepared pages "
                 "of this release", boards)


def _after_commit(connection: Redis, queue_name: str, board_id: int) -> None:
    """The read filter forgets the systems the new snapshot no longer lists; the refresh is
    counted warm or cold, incremental or full (``bench_scaleout.py`` reads the counts)."""
    from leaderboard.services.ranking import read_filter
    from leaderboard.services.ranking.board_state import last_written

    written = last_written(board_id)
    if written is None:
        return
    try:
        read_filter.settle(connection, queue_name, board_id, written.systems)
        warmth = "warm" if written.origin == "memory" else "cold"
        kind = "incremental" if written.incremental else "full"
        with connection.pipeline(transaction=False) as pipe:
            pipe.hincrby(refresh_stats_key(queue_name), warmth)
            pipe.hincrby(refresh_stats_key(queue_name), kind)
            pipe.execute()
        log.info("refresh of board %s: %s, %s (state from %s), %d systems", board_id, warmth,
                 kind, written.origin, len(written.systems))
    except Exception:  # the snapshot is committed; the filter settles at the next one
        log.warning("could not settle the read filter of board %s", board_id, exc_info=True)


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


def _beat_loop(stop: threading.Event, connection: Redis, queue_name: str, name: str) -> None:
    while not stop.wait(BEAT_SECONDS):
        try:
            register(connection, queue_name, name)
            moved = take_over_gone(connection, queue_name)
            if moved:
                log.info("took over refreshes of gone rankers: boards %s", moved)
        except Exception:  # Redis away for a moment: try at the next beat
            log.warning("ranker beat failed", exc_info=True)


def run_ranker(settings: dict[str, Any], *, burst: bool = False, name: str | None = None,
               page_preparer: PagePreparer | None = None,
               click_preparer: ClickPreparer | None = None) -> bool:
    """Run a ranker until SIGTERM (or, with ``burst``, until its queues are empty), preparing
    each new snapshot's pages with ``page_preparer``, then, while it has nothing else to do,
    the pages one click away with ``click_preparer``.

    Refuses a shared database without an explicit secret key and Redis URL."""
    from leaderboard.config import require_shared_settings
    from leaderboard.db import make_engine
    from leaderboard.redis_conn import connect_redis
    from leaderboard.services.ranking.board_state import keep_states
    from worker import jobs
    from worker.main import setup_logging, work_until_stopped

    require_shared_settings(settings)
    setup_logging(settings)
    lower_priority(settings["WORKER_NICE"])
    keep_states()  # a board's next refresh here updates the ranking state it wrote
    use_page_preparer(page_preparer, click_preparer)
    name = name or new_ranker_name()
    _me["name"] = name
    engine = make_engine(settings["DATABASE_URL"])
    jobs.configure(settings=settings, engine=engine)
    connection = connect_redis(settings["REDIS_URL"], settings["INSTANCE_PATH"])
    queue_name = settings["QUEUE_NAME"]
    register(connection, queue_name, name)
    take_over_gone(connection, queue_name)
    _refresh_unprepared(connection, queue_name, engine)
    log.info("ranker %s ready", name)
    stop = threading.Event()
    threading.Thread(target=_beat_loop, daemon=True, name="ranker-beat",
                     args=(stop, connection, queue_name, name)).start()
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
