"""Jobs on untrusted bytes (scoring an upload, a dry run) and account e-mails.

They take ids, open their own sessions and are safe to run twice. Whatever parses a user's
file runs in a forked child under hard limits (:mod:`leaderboard.worker.horse`): this
process keeps the
heartbeat and kills the child at its time limit. Rankings are computed elsewhere, by rankers
(:mod:`leaderboard.ranker.refresh`).
"""

from __future__ import annotations

import logging
import time
from typing import Any

from sqlalchemy.engine import Engine

log = logging.getLogger(__name__)
_context: dict[str, Any] = {}


def configure(*, settings: dict[str, Any], engine: Engine) -> None:
    """Set the settings and engine jobs use (the worker entry does this once at start)."""
    _context["settings"] = settings
    _context["engine"] = engine


def ensure_context() -> tuple[dict[str, Any], Engine]:
    """The settings and engine of this worker process."""
    if "engine" not in _context:
        # A worker started some other way (e.g. plain `rq worker`): settings from the env.
        from leaderboard.config import load_settings
        from leaderboard.db import make_engine

        settings = load_settings()
        configure(settings=settings, engine=make_engine(settings["DATABASE_URL"]))
    return _context["settings"], _context["engine"]


#: glibc's mallopt parameter number of M_MMAP_THRESHOLD.
_M_MMAP_THRESHOLD = -3


def keep_heap_small(threshold: int = 128 * 1024) -> None:
    """Serve every allocation of ``threshold`` bytes or more by its own mmap (glibc only).

    glibc raises this threshold each time such a block is freed, up to 32 MB, after which a
    job's large temporaries (the upload, decoded text, numpy blocks) come from the heap and
    stay resident between jobs; with a fixed threshold they go back to the system when freed.
    """
    try:
        import ctypes

        ctypes.CDLL(None).mallopt(_M_MMAP_THRESHOLD, threshold)
    except (OSError, AttributeError):  # not glibc: nothing to do
        pass


def release_memory() -> None:
    """Give the heap a job freed back to the system (glibc's malloc_trim), where available.

    A long-lived worker otherwise keeps the high-water mark of its largest job resident.
    """
    try:
        import ctypes

        ctypes.CDLL(None).malloc_trim(0)
    except (OSError, AttributeError):  # not glibc: nothing to do
        pass


def isolate_with(settings: dict[str, Any], engine: Engine, seconds: float):
    """An isolate that runs work in a child under ``seconds`` and JOB_MEMORY_MB."""
    from leaderboard.worker.horse import Limits, run_in_horse

    limits = Limits(seconds=float(seconds), memory_bytes=int(settings["JOB_MEMORY_MB"]) << 20)

    def isolate(fn, *args, while_running=None):
        # The child opens connections of its own: the parent's stay the parent's.
        return run_in_horse(fn, *args, limits=limits, while_running=while_running,
                            on_fork=lambda: engine.dispose(close=False))

    return isolate


def score_submission_job(submission_id: int) -> str:
    """Validate and score one submission; returns its status afterwards.

    Under RQ, a public result asks for a coalesced ranking refresh on the job's own queue
    instead of recomputing the ranking here. Writes one JSON log line per job.
    """
    from rq import get_current_job

    from leaderboard.infra.logs import log_job
    from leaderboard.infra.queue import request_snapshot_refresh, worker_key
    from leaderboard.services.intake.results import score_submission_now

    settings, engine = ensure_context()
    job = get_current_job()
    request_refresh = on_beat = None
    if job is not None:
        key, ttl = worker_key(job.worker_name), int(settings["HEARTBEAT_STALE_SECONDS"]) + 1

        def on_beat() -> None:
            # RQ set this worker's key to live for the job's whole timeout; kept short and
            # renewed here instead, it tells the reconciler within seconds that we are gone.
            job.connection.expire(key, ttl)

        def request_refresh(board_id: int) -> None:
            request_snapshot_refresh(board_id, connection=job.connection,
                                     queue_name=settings["QUEUE_NAME"])

        on_beat()  # from the start: a worker killed before its first beat is seen as gone too
    started = time.perf_counter()
    try:
        status = score_submission_now(
            engine_or_session=engine, submission_id=submission_id, settings=settings,
            request_refresh=request_refresh, on_beat=on_beat,
            isolate=isolate_with(settings, engine, settings["JOB_TIMEOUT"]))
    except Exception as exc:
        log_job(submission_id=submission_id, outcome="error",
                ms=(time.perf_counter() - started) * 1000, error=repr(exc)[:300],
                job_id=job.id if job else None)
        raise
    finally:
        release_memory()
    log_job(submission_id=submission_id, outcome=str(status),
            ms=(time.perf_counter() - started) * 1000, job_id=job.id if job else None)
    _notify(engine, submission_id, settings)
    return status


def _notify(engine: Engine, submission_id: int, settings: dict[str, Any]) -> None:
    """Send the opt-in 'finished' e-mails; mail trouble never fails the job."""
    from leaderboard.services.intake.notifications import notify_finished

    try:
        notify_finished(engine, submission_id, settings)
    except Exception:
        log.warning("finish notification of submission %s failed", submission_id,
                    exc_info=True)


def check_file_job(queue_name: str, check_id: str) -> str:
    """A dry run: validate the bytes stored under ``check_id`` in a child under
    CHECK_TIMEOUT and JOB_MEMORY_MB, and store the report for the waiting request."""
    from rq import get_current_job
    from sqlmodel import Session

    from leaderboard.infra.redis_conn import connect_redis
    from leaderboard.models import Board
    from leaderboard.services.intake.checks import run_check
    from leaderboard.services.intake.validation import dry_run_validator

    settings, engine = ensure_context()
    job = get_current_job()
    connection = (job.connection if job is not None
                  else connect_redis(settings["REDIS_URL"], settings["INSTANCE_PATH"]))

    def prepare(board_id: int):
        with Session(engine) as session:
            return dry_run_validator(session=session, board=session.get(Board, board_id),
                                     settings=settings)

    try:
        return run_check(connection=connection, queue_name=queue_name, check_id=check_id,
                         prepare=prepare,
                         isolate=isolate_with(settings, engine, settings["CHECK_TIMEOUT"]))
    finally:
        release_memory()


def diagnose_job(queue_name: str, submission_id: int) -> str:
    """Per-target diagnostics of a scored dev-phase submission, computed from its stored
    file in a child under CHECK_TIMEOUT and JOB_MEMORY_MB, kept in Redis for web requests."""
    from rq import get_current_job
    from sqlmodel import Session

    from leaderboard.infra.redis_conn import connect_redis
    from leaderboard.services.intake.diagnostics import compute_outcome
    from leaderboard.services.intake.diagnostics_store import store_outcome

    settings, engine = ensure_context()
    job = get_current_job()
    connection = (job.connection if job is not None
                  else connect_redis(settings["REDIS_URL"], settings["INSTANCE_PATH"]))
    try:
        with Session(engine) as session:
            key, outcome = compute_outcome(
                session, submission_id, settings,
                isolate_with(settings, engine, settings["CHECK_TIMEOUT"]))
        store_outcome(connection, queue_name, key, outcome)
    finally:
        release_memory()
    return outcome[0]


def probing_job(queue_name: str) -> int:
    """The admin page's label-probing flags: stored files compared in a child under
    CHECK_TIMEOUT × 10 and JOB_MEMORY_MB (it reads many files), kept in Redis."""
    from rq import get_current_job
    from sqlmodel import Session

    from leaderboard.infra.redis_conn import connect_redis
    from leaderboard.services.intake.probing import near_duplicates, store_flags

    settings, engine = ensure_context()
    job = get_current_job()
    connection = (job.connection if job is not None
                  else connect_redis(settings["REDIS_URL"], settings["INSTANCE_PATH"]))

    def compare() -> list:
        with Session(engine) as session:
            return near_duplicates(session, cap=settings["MAX_DECOMPRESSED_BYTES"])

    try:
        flags = isolate_with(settings, engine, settings["CHECK_TIMEOUT"] * 10)(compare)
        store_flags(connection, queue_name, flags)
    finally:
        release_memory()
    return len(flags)


def account_mail_job(kind: str, email: str, link: str) -> bool:
    """Send an account e-mail (reset, confirmation, "already registered") for ``email``.

    Queued by the web request whether or not the address has an account, so that the
    request takes the same time either way; the lookup and the SMTP conversation happen
    here. Returns whether a server took a message (False for an unknown address).
    """
    from sqlmodel import Session

    from leaderboard.config import resolve_secret_key
    from leaderboard.services.access.account_mail import deliver

    settings, engine = ensure_context()
    with Session(engine) as session:
        return deliver(session=session, settings=settings, secret_key=resolve_secret_key(settings),
                       kind=kind, email=email, link=link)
