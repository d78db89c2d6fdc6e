"""Worker entry: the process that takes jobs on untrusted bytes (scoring, dry runs).

It works on the checks queue (someone waits for a dry run) and the scoring queue, taking
them in turn: a flood of dry runs cannot hold an upload back by more than one check. Settings,
engine, WordNet and prepared splits are loaded first; each job's parsing and scoring then
runs in a forked child under hard limits (:mod:`leaderboard.worker.horse`), which inherits
these caches,
while this process keeps RQ's heartbeat and the submission's. Rankings are computed by
rankers (:mod:`leaderboard.ranker.refresh`), a separate kind of process.
"""

from __future__ import annotations

import logging
import signal
import sys
import threading
import time
from typing import Any

from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from rq import Queue, SimpleWorker
from rq.worker import DequeueStrategy
from sqlmodel import Session

from leaderboard.config import require_shared_settings
from leaderboard.db import make_engine
from leaderboard.infra.processes import lower_priority
from leaderboard.infra.redis_conn import connect_redis
from leaderboard.services.intake.checks import checks_queue_name
from leaderboard.worker import jobs

log = logging.getLogger("leaderboard.worker")


def preload(engine) -> int:
    """Load WordNet and every stored split's prepared gold into this process; returns count."""
    from leaderboard.scoring import ensure_wordnet
    from leaderboard.services.catalog.benchmarks import get_prepared, list_benchmarks

    ensure_wordnet()
    with Session(engine) as session:
        benchmarks = list_benchmarks(session)
        for benchmark in benchmarks:
            get_prepared(benchmark)
    return len(benchmarks)


def reconcile_once(settings: dict[str, Any], engine, connection, queue_name: str) -> str:
    """One reconciler pass; returns its summary."""
    from leaderboard.services.intake.reconcile import reconcile

    with Session(engine) as session:
        report = reconcile(session=session, connection=connection, queue_name=queue_name,
                           settings=settings)
    return report.summary()


def _reconcile_loop(stop: threading.Event, settings: dict[str, Any], engine, connection,
                    queue_name: str) -> None:
    while not stop.wait(settings["RECONCILE_SECONDS"]):
        try:
            summary = reconcile_once(settings, engine, connection, queue_name)
            log.info("reconcile: %s", summary)
        except Exception:  # Redis or the database away for a moment: try next period
            log.warning("reconcile failed", exc_info=True)


def _exit_now(_signum, _frame) -> None:
    sys.exit(0)


def setup_logging(settings: dict[str, Any]) -> None:
    """Log lines with time and level; SIGTERM ends start-up cleanly until RQ takes over."""
    # Until RQ installs its own (warm shutdown) handler, SIGTERM simply ends start-up cleanly.
    signal.signal(signal.SIGTERM, _exit_now)
    logging.basicConfig(level=settings.get("LOG_LEVEL", "INFO"),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")


def run_worker(settings: dict[str, Any], *, burst: bool = False,
               queue_name: str | None = None, checks_only: bool = False) -> bool:
    """Run a scoring worker until SIGTERM (or, with ``burst``, until its queues are empty).

    SIGTERM is a warm shutdown: the current job finishes, then the worker exits.
    With ``checks_only`` it takes dry runs only. Returns whether any job was processed.
    Refuses a shared database without an explicit secret key and Redis URL.
    """
    require_shared_settings(settings)
    setup_logging(settings)
    lower_priority(settings["WORKER_NICE"])
    queue_name = queue_name or settings["QUEUE_NAME"]
    jobs.keep_heap_small()
    engine = make_engine(settings["DATABASE_URL"])
    count = preload(engine)
    log.info("preloaded WordNet and %d prepared split(s)", count)
    # No connection opened during preload is carried into the work loop (or any child).
    engine.dispose()
    jobs.configure(settings=settings, engine=engine)
    connection = connect_redis(settings["REDIS_URL"], settings["INSTANCE_PATH"])
    log.info("reconcile at start: %s", reconcile_once(settings, engine, connection, queue_name))
    stop = threading.Event()
    if not burst:
        threading.Thread(target=_reconcile_loop, daemon=True, name="reconciler",
                         args=(stop, settings, engine, connection, queue_name)).start()
    try:
        queues = [checks_queue_name(queue_name)] + ([] if checks_only else [queue_name])
        return work_until_stopped(connection, queues,
                                  burst=burst, logging_level=settings.get("LOG_LEVEL", "INFO"))
    finally:
        stop.set()
        engine.dispose()


#: Pause before re-entering RQ's work loop after Redis went away: doubles up to the cap.
RECONNECT_FIRST_SECONDS = 0.5
RECONNECT_MAX_SECONDS = 10.0
REDIS_ERRORS = (RedisConnectionError, RedisTimeoutError, OSError)


def work_until_stopped(connection, queue_names: list[str], *, burst: bool,
                       logging_level: str) -> bool:
    """RQ's work loop, re-entered after Redis went away, until a stop is asked for.

    RQ's ``work()`` gives up when Redis fails outside the dequeue (finishing a job, a
    heartbeat, maintenance): it logs, breaks out and tries to register its death, which
    raises again while Redis is down. The job's outcome is already in the database (the
    truth); what RQ lost about it, the reconciler repairs. So we wait for Redis and enter a
    fresh worker instead of exiting. SIGTERM/SIGINT (a warm stop asked of RQ) still ends it.
    """
    worked = False
    pause = RECONNECT_FIRST_SECONDS
    while True:
        worker = SimpleWorker([Queue(name, connection=connection) for name in queue_names],
                              connection=connection)
        clean = True
        try:
            # Round robin: after a job of one queue the next is taken from the other first
            # (RQ's default always looks at the first queue first).
            worked = worker.work(burst=burst, with_scheduler=False,
                                 logging_level=logging_level,
                                 dequeue_strategy=DequeueStrategy.ROUND_ROBIN) or worked
        except REDIS_ERRORS:
            clean = False
            log.warning("RQ's work loop lost Redis", exc_info=True)
        # SIGTERM/SIGINT: RQ records the time; while idle it sets no other flag.
        if worker._stop_requested or worker._shutdown_requested_date is not None:
            return worked
        # Between two work loops a stop request ends the process at once (nothing runs).
        signal.signal(signal.SIGTERM, _exit_now)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        if burst and clean and _queues_empty(connection, queue_names):
            return worked
        if clean and not burst:
            log.warning("RQ's work loop ended without a stop request (Redis trouble?)")
        pause = _wait_for_redis(connection, pause)


def _queues_empty(connection, queue_names: list[str]) -> bool:
    try:
        return all(Queue(name, connection=connection).count == 0 for name in queue_names)
    except REDIS_ERRORS:
        return False


def _wait_for_redis(connection, pause: float) -> float:
    """Sleep with doubling pauses until Redis answers; returns the next first pause."""
    while True:
        log.warning("waiting %.1f s for Redis before taking jobs again", pause)
        time.sleep(pause)
        pause = min(pause * 2, RECONNECT_MAX_SECONDS)
        try:
            connection.connection_pool.disconnect()
            connection.ping()
        except REDIS_ERRORS:
            continue
        log.info("Redis answers again; re-entering the work loop")
        return RECONNECT_FIRST_SECONDS
