"""Worker entry: settings, engine, WordNet and prepared splits first, then RQ's work loop.

We run RQ's ``SimpleWorker``, which executes jobs in this process. RQ 3's default worker
starts a fresh interpreter per job (``posix_spawn``), which would reload WordNet and the
prepared gold for every submission; a forking worker would lose anything cached after the
fork. In one process the cache of ``services.benchmarks.get_prepared`` and the lemma cache
stay warm across jobs, and a split imported later is cached on first use. Job timeouts still
work (SIGALRM in the main thread). A job that crashes the interpreter kills this worker; the
heartbeat and the reconciler recover its submission.
"""

from __future__ import annotations

import logging
import signal
import sys
import threading
from typing import Any

from rq import Queue, SimpleWorker
from sqlmodel import Session

from leaderboard.db import make_engine
from leaderboard.redis_conn import connect_redis
from worker import jobs

log = logging.getLogger("leaderboard.worker")


def preload(engine) -> int:
    """Load WordNet and every stored split's prepared gold into this process; returns count."""
    from leaderboard.scoring import ensure_wordnet
    from leaderboard.services.benchmarks import get_prepared, list_benchmarks

    ensure_wordnet()
    with Session(engine) as session:
        benchmarks = list_benchmarks(session)
        for benchmark in benchmarks:
            get_prepared(benchmark)
    return len(benchmarks)


def reconcile_once(settings: dict[str, Any], engine, connection, queue_name: str) -> str:
    """One reconciler pass; returns its summary."""
    from leaderboard.services.reconcile import reconcile

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


def run_worker(settings: dict[str, Any], *, burst: bool = False,
               queue_name: str | None = None) -> bool:
    """Run a scoring worker until SIGTERM (or, with ``burst``, until the queue is empty).

    SIGTERM is a warm shutdown: the current job finishes, then the worker exits.
    Returns whether any job was processed.
    """
    # Until RQ installs its own (warm shutdown) handler, SIGTERM simply ends start-up cleanly.
    signal.signal(signal.SIGTERM, _exit_now)
    logging.basicConfig(level=settings.get("LOG_LEVEL", "INFO"),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
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
    worker = SimpleWorker([Queue(queue_name, connection=connection)], connection=connection)
    try:
        return worker.work(burst=burst, with_scheduler=False,
                           logging_level=settings.get("LOG_LEVEL", "INFO"))
    finally:
        stop.set()
        engine.dispose()
