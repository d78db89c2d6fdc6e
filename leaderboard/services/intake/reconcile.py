"""The reconciler: the database is the truth, RQ a cache; re-enqueue what the cache lost.

A ``queued`` row whose current run has no live RQ job (Redis emptied or restarted, a
retry whose backoff is over) is enqueued again. A ``running`` row is never touched while the
worker running its job lives (its RQ key, which the job's heartbeat keeps short-lived):
the worker enforces the job's limits itself. Once that worker is gone, a row whose heartbeat
is older than HEARTBEAT_STALE_SECONDS, or which has run longer than JOB_TIMEOUT, lost its
worker: it is re-queued, or marked ``failed`` with the reason once its attempts are spent.
A board whose latest snapshot does not list exactly its public results (a refresh asked for
and lost with Redis's data) gets its refresh asked for again.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from redis import Redis
from sqlmodel import Session, select

from leaderboard.infra.queue import (
    enqueue_scoring,
    job_id_for,
    job_is_live,
    job_worker_alive,
    request_snapshot_refresh,
)
from leaderboard.models import Submission, SubmissionStatus, utcnow
from leaderboard.services.ranking.snapshots import boards_behind

LOCK_SECONDS = 120


@dataclass
class ReconcileReport:
    """Submission ids per action taken."""

    requeued: list[int] = field(default_factory=list)
    failed: list[int] = field(default_factory=list)
    live: list[int] = field(default_factory=list)
    waiting: list[int] = field(default_factory=list)
    #: Boards whose refresh was asked for again.
    refreshed: list[int] = field(default_factory=list)
    skipped_locked: bool = False

    def summary(self) -> str:
        """One line for logs and the CLI."""
        if self.skipped_locked:
            return "another reconciler is running; nothing done"
        return (f"re-enqueued {len(self.requeued)}, failed {len(self.failed)}, "
                f"live {len(self.live)}, waiting {len(self.waiting)}")


def _stale(row: Submission, now: datetime, settings: dict[str, Any]) -> str | None:
    beat = row.heartbeat_at or row.started_at or row.queued_at or row.created_at
    silent = (now - beat).total_seconds()
    if silent > settings["HEARTBEAT_STALE_SECONDS"]:
        return f"its worker stopped responding (no heartbeat for {silent:.0f} s)"
    if row.started_at and (now - row.started_at).total_seconds() > settings["JOB_TIMEOUT"] + 30:
        return f"it ran longer than the job timeout of {settings['JOB_TIMEOUT']} s"
    return None


def reconcile(*, session: Session, connection: Redis, queue_name: str, settings: dict[str, Any],
              now: datetime | None = None, grace_seconds: float = 10.0) -> ReconcileReport:
    """Re-enqueue lost work; mark runs that exhausted their attempts ``failed``.

    ``grace_seconds`` leaves a just-committed row alone for its uploader to enqueue. Each
    row is committed before its job is enqueued. A Redis lock keeps concurrent reconcilers
    (one per worker) from doing the same work twice.
    """
    report = ReconcileReport()
    lock = connection.lock(f"leaderboard:reconcile:{queue_name}", timeout=LOCK_SECONDS)
    if not lock.acquire(blocking=False):
        report.skipped_locked = True
        return report
    try:
        _reconcile(session, connection, queue_name, settings, now or utcnow(), grace_seconds,
                   report)
        for board_id in boards_behind(session):
            # Coalesced with a refresh already waiting: asking twice costs nothing.
            request_snapshot_refresh(board_id, connection=connection, queue_name=queue_name)
            report.refreshed.append(board_id)
    finally:
        # Expired, or Redis emptied meanwhile: nothing left to release.
        with contextlib.suppress(Exception):
            lock.release()
    return report


def _reconcile(session: Session, connection: Redis, queue_name: str, settings: dict[str, Any],
               now: datetime, grace: float, report: ReconcileReport) -> None:
    max_runs = 1 + settings["MAX_JOB_RETRIES"]
    rows = session.exec(select(Submission).where(
        Submission.status.in_(SubmissionStatus.PENDING)).order_by(Submission.id)).all()
    for row in rows:
        if row.status == SubmissionStatus.QUEUED:
            due = row.queued_at or row.created_at
            if due > now - timedelta(seconds=grace):
                report.waiting.append(row.id)
                continue
            job_id = job_id_for(row.id, row.attempts + 1, queue_name)
            if job_is_live(connection, job_id, queue_name):
                report.live.append(row.id)
                continue
            reason = None
        else:
            alive = job_worker_alive(connection, job_id_for(row.id, row.attempts, queue_name))
            reason = None if alive else _stale(row, now, settings)
            if reason is None:
                report.live.append(row.id)
                continue
            if row.attempts >= max_runs:
                row.status, row.progress, row.finished_at = SubmissionStatus.FAILED, "", now
                row.failure_reason = (f"failed on our side: attempt {row.attempts} stopped "
                                      f"because {reason}; no attempts left")
                session.add(row)
                session.commit()
                report.failed.append(row.id)
                continue
            row.status, row.progress, row.queued_at = SubmissionStatus.QUEUED, "", now
            row.failure_reason = f"attempt {row.attempts} stopped because {reason}; re-queued"
            session.add(row)
        session.commit()
        enqueue_scoring(row.id, connection=connection, queue_name=queue_name,
                        run=row.attempts + 1, job_timeout=settings["JOB_TIMEOUT"])
        report.requeued.append(row.id)
