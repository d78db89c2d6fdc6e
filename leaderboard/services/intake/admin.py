"""Admin queries and actions: submission moderation, team management, queue health.

Every action writes an AuditLog row; moderation is announced to the read path's filter and
the boards' rankers (a web request never computes a ranking).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from redis import Redis
from rq import Queue, Worker
from rq.registry import FailedJobRegistry, StartedJobRegistry
from sqlalchemy import func
from sqlmodel import Session, col, select

from leaderboard.models import AuditLog, Board, Submission, SubmissionStatus, Team, utcnow
from leaderboard.services.ranking import snapshots

MAX_ROWS = 500


class AdminError(ValueError):
    """An admin action that cannot be done, with a message for the admin."""


def list_submissions(session: Session, *, status: str | None = None, team_id: int | None = None,
                     board_id: int | None = None,
                     limit: int = MAX_ROWS) -> list[tuple[Submission, Team, Board]]:
    """Newest submissions first, optionally filtered; never the file bytes' content."""
    query = (select(Submission, Team, Board)
             .join(Team, col(Team.id) == col(Submission.team_id))
             .join(Board, col(Board.id) == col(Submission.board_id)))
    if status:
        query = query.where(Submission.status == status)
    if team_id:
        query = query.where(Submission.team_id == team_id)
    if board_id:
        query = query.where(Submission.board_id == board_id)
    return list(session.exec(query.order_by(col(Submission.id).desc()).limit(limit)).all())


def audit(session: Session, *, actor_id: int | None, action: str, object_type: str,
          object_id: int | None, reason: str = "") -> AuditLog:
    """Record one admin action (added to the session, committed by the caller)."""
    row = AuditLog(actor_id=actor_id, action=action, object_type=object_type,
                   object_id=object_id, reason=reason.strip()[:1000])
    session.add(row)
    return row


def set_hidden(session: Session, *, submission_id: int, hidden: bool, reason: str,
               actor_id: int | None, announce: Announce | None = None) -> Submission:
    """Hide (reason required) or unhide a submission and audit it; commits, then announces
    it (:func:`_announce`): the ranker refreshes the ranking."""
    submission = session.get(Submission, submission_id)
    if submission is None:
        raise AdminError(f"no submission {submission_id}")
    reason = reason.strip()
    if hidden and not reason:
        raise AdminError("Give a reason for hiding the submission.")
    submission.hidden = hidden
    submission.hidden_reason = reason[:1000] if hidden else ""
    session.add(submission)
    audit(session, actor_id=actor_id, action="hide" if hidden else "unhide",
          object_type="submission", object_id=submission.id, reason=reason)
    session.commit()
    ids = {submission.board_id: [submission.id]}
    team = session.get(Team, submission.team_id)
    visible = submission.is_public and not (team is not None and team.disabled)
    _announce(session, announce, hidden=ids if hidden else {},
              shown=ids if not hidden and visible else {})
    return submission


def set_team_disabled(session: Session, *, team_id: int, disabled: bool, reason: str,
                      actor_id: int | None, announce: Announce | None = None) -> Team:
    """Disable (reason required) or enable a team; its tokens and logins follow. Commits,
    then announces its public submissions' change (:func:`_announce`)."""
    team = session.get(Team, team_id)
    if team is None:
        raise AdminError(f"no team {team_id}")
    if disabled and not reason.strip():
        raise AdminError("Give a reason for disabling the team.")
    team.disabled = disabled
    session.add(team)
    audit(session, actor_id=actor_id, action="disable_team" if disabled else "enable_team",
          object_type="team", object_id=team.id, reason=reason)
    session.commit()
    ids: dict[int, list[int]] = {}
    for sid, board_id in session.exec(select(Submission.id, Submission.board_id).where(
            Submission.team_id == team.id, col(Submission.is_public).is_(True),
            col(Submission.hidden).is_(False))):
        ids.setdefault(board_id, []).append(sid)
    _announce(session, announce, hidden={} if not disabled else ids,
              shown=ids if not disabled else {})
    return team


#: ``announce(hidden=, shown=)`` (board id -> submission ids), after the commit: the web's
#: :func:`leaderboard.infra.queue.announce_visibility`; False when it could not (Redis away).
Announce = Callable[..., bool]


def _announce(session: Session, announce: Announce | None, *,
              hidden: dict[int, list[int]], shown: dict[int, list[int]]) -> None:
    """Ask the rankers for new snapshots; a web request computes nothing. Without
    ``announce`` (a host command), or when it fails (Redis unreachable: no ranker can be
    told), the boards are refreshed here instead."""
    if announce is not None and announce(hidden=hidden, shown=shown):
        return
    for board_id in sorted(set(hidden) | set(shown)):
        snapshots.refresh_snapshot(session=session, board_id=board_id)
        session.commit()


def reset_quota(session: Session, *, team_id: int, reason: str, actor_id: int | None) -> Team:
    """Start the team's quota windows now: earlier submissions stop counting. Commits."""
    team = session.get(Team, team_id)
    if team is None:
        raise AdminError(f"no team {team_id}")
    team.quota_reset_at = utcnow()
    session.add(team)
    audit(session, actor_id=actor_id, action="reset_quota", object_type="team",
          object_id=team.id, reason=reason)
    session.commit()
    return team


def team_rows(session: Session) -> list[dict[str, Any]]:
    """Every team with its member and submission counts."""
    from leaderboard.models import User

    members = dict(session.exec(select(User.team_id, func.count(User.id))
                                .group_by(User.team_id)).all())
    subs = dict(session.exec(select(Submission.team_id, func.count(Submission.id))
                             .group_by(Submission.team_id)).all())
    return [{"team": t, "members": members.get(t.id, 0), "submissions": subs.get(t.id, 0)}
            for t in session.exec(select(Team).order_by(Team.name)).all()]


def recent_audit(session: Session, limit: int = 50) -> list[AuditLog]:
    """The newest audit rows."""
    return list(session.exec(select(AuditLog).order_by(col(AuditLog.id).desc())
                             .limit(limit)).all())


@dataclass
class QueueHealth:
    """Counts from the database (the truth) and from RQ (what workers see)."""

    by_status: dict[str, int]
    queue_length: int | None = None
    started_jobs: int | None = None
    failed_jobs: int | None = None
    failed_job_ids: list[str] = field(default_factory=list)
    workers: list[dict[str, Any]] = field(default_factory=list)
    redis_error: str = ""


def queue_health(session: Session, connection: Redis, queue_name: str) -> QueueHealth:
    """Queued/running/failed counts, RQ queue length, live workers, failed job registry.

    A Redis outage is reported, not raised: the page must work when the queue does not.
    """
    counts = dict(session.exec(select(Submission.status, func.count(Submission.id))
                               .group_by(Submission.status)).all())
    health = QueueHealth(by_status={s: counts.get(s, 0) for s in SubmissionStatus.ALL})
    try:
        queue = Queue(queue_name, connection=connection)
        failed = FailedJobRegistry(queue=queue)
        health.queue_length = queue.count
        health.started_jobs = StartedJobRegistry(queue=queue).count
        health.failed_jobs = failed.count
        health.failed_job_ids = failed.get_job_ids(0, 19)
        for worker in Worker.all(connection=connection):
            if queue_name not in worker.queue_names():
                continue
            job_id = worker.get_current_job_id()
            health.workers.append({
                "name": worker.name, "state": str(worker.get_state()),
                "hostname": worker.hostname, "pid": worker.pid,
                "current_job": job_id.decode() if isinstance(job_id, bytes) else job_id,
                "last_heartbeat": worker.last_heartbeat,
                "successful": worker.successful_job_count, "failed": worker.failed_job_count})
    except Exception as exc:  # the page reports the outage instead of failing
        health.redis_error = f"{type(exc).__name__}: {exc}"
    return health
