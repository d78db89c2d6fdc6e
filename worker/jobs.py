"""RQ job functions. They take ids, open their own sessions and are safe to run twice."""

from __future__ import annotations

import logging
import time
from typing import Any

from sqlalchemy.engine import Engine

log = logging.getLogger(__name__)
_context: dict[str, Any] = {}
#: Pause before a refresh that found another one running goes to the back of the queue.
DEFER_SECONDS = 1.0


def configure(*, settings: dict[str, Any], engine: Engine) -> None:
    """Set the settings and engine jobs use (the worker entry does this once at start)."""
    _context["settings"] = settings
    _context["engine"] = engine


def _ensure_context() -> tuple[dict[str, Any], Engine]:
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


def score_submission_job(submission_id: int) -> str:
    """Validate and score one submission; returns its status afterwards.

    Under RQ, a public result asks for a coalesced ranking refresh on the job's own queue
    instead of recomputing the ranking here. Writes one JSON log line per job.
    """
    from rq import get_current_job

    from leaderboard.logs import log_job
    from leaderboard.queue import request_snapshot_refresh
    from leaderboard.services.intake.results import score_submission_now

    settings, engine = _ensure_context()
    job = get_current_job()
    request_refresh = None
    if job is not None:
        def request_refresh(board_id: int) -> None:
            request_snapshot_refresh(board_id, connection=job.connection,
                                     queue_name=job.origin)
    started = time.perf_counter()
    try:
        status = score_submission_now(engine_or_session=engine, submission_id=submission_id,
                                      settings=settings, request_refresh=request_refresh)
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


def refresh_snapshot_job(board_id: int) -> str:
    """Recompute a board's ranking snapshot in its own session; safe to run twice.

    One refresh per board runs at a time (a Redis lock): two at once could commit the
    older ranking last. A job that finds the lock taken goes to the back of the queue (a new
    coalesced request) rather than holding a worker. Returns "refreshed" or "deferred".
    """
    from rq import get_current_job
    from sqlmodel import Session

    from leaderboard.queue import refresh_keys, release_refresh, request_snapshot_refresh
    from leaderboard.services.ranking.snapshots import refresh_snapshot

    _settings, engine = _ensure_context()
    job = get_current_job()
    lock = None
    if job is not None:
        connection, queue_name = job.connection, job.origin
        lock = connection.lock(refresh_keys(board_id, queue_name)["lock"],
                               timeout=job.timeout or 900)
        if not lock.acquire(blocking=False):
            time.sleep(DEFER_SECONDS)
            release_refresh(connection, board_id, queue_name, job.id)
            request_snapshot_refresh(board_id, connection=connection, queue_name=queue_name)
            return "deferred"
        # From here on a new request queues one more job: it will see what we cannot.
        release_refresh(connection, board_id, queue_name, job.id)
    try:
        with Session(engine) as session:
            refresh_snapshot(session=session, board_id=board_id)
            session.commit()
    finally:
        if lock is not None:
            try:
                lock.release()
            except Exception:  # expired while we ran: nothing left to release
                log.warning("refresh lock of leaderboard %s had expired", board_id)
        release_memory()
    return "refreshed"


def account_mail_job(kind: str, email: str, link: str) -> bool:
    """Send an account e-mail (reset, confirmation, "already registered") for ``email``.

    Queued by the web request whether or not the address has an account, so that the
    request takes the same time either way; the lookup and the SMTP conversation happen
    here. Returns whether a server took a message (False for an unknown address).
    """
    from sqlmodel import Session

    from leaderboard.config import resolve_secret_key
    from leaderboard.services.access.account_mail import deliver

    settings, engine = _ensure_context()
    with Session(engine) as session:
        return deliver(session=session, settings=settings, secret_key=resolve_secret_key(settings),
                       kind=kind, email=email, link=link)
