"""Per-team, per-leaderboard quotas: scored submissions per UTC day and in total, and a cap
on all attempts. A dev-phase board has its own, larger numbers (``DEV_*`` settings).

Invalid uploads and failures on our side never count toward the scored quotas; queued and
running submissions do (otherwise parallel uploads could overshoot the quota). Every
attempt, whatever its outcome, counts toward the daily attempt cap. Callers pass ``now`` so
day boundaries are testable without patching the clock.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, time, timedelta
from typing import Any

from sqlalchemy import func
from sqlmodel import Session, select

from leaderboard.models import Board, Phase, Submission, SubmissionStatus, Team, utcnow

COUNTED = (SubmissionStatus.QUEUED, SubmissionStatus.RUNNING, SubmissionStatus.SCORED)


@dataclass
class QuotaStatus:
    """What a team has used and has left; ``resets_at`` is the next UTC midnight."""

    scored_today: int
    scored_total: int
    attempts_today: int
    daily_quota: int
    total_quota: int
    attempt_cap: int
    resets_at: datetime

    @property
    def remaining_today(self) -> int:
        """Scored submissions still allowed today (the smaller of daily and total room)."""
        return max(0, min(self.daily_quota - self.scored_today,
                          self.total_quota - self.scored_total))

    @property
    def attempts_left(self) -> int:
        """Uploads of any outcome still allowed today."""
        return max(0, self.attempt_cap - self.attempts_today)

    def refusal(self) -> str | None:
        """Why an upload would be refused now, or None."""
        if self.attempts_today >= self.attempt_cap:
            return (f"daily attempt cap reached ({self.attempt_cap} uploads today, including "
                    "invalid ones)")
        if self.scored_total >= self.total_quota:
            return f"total quota reached ({self.total_quota} scored submissions)"
        if self.scored_today >= self.daily_quota:
            return f"daily quota reached ({self.daily_quota} scored submissions per day)"
        return None

    def refusal_resets_at(self) -> datetime | None:
        """When the current refusal lifts by itself (None: the total quota never resets)."""
        if self.attempts_today < self.attempt_cap and self.scored_total >= self.total_quota:
            return None
        return self.resets_at

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"scored_today": self.scored_today, "scored_total": self.scored_total,
                "attempts_today": self.attempts_today, "daily_quota": self.daily_quota,
                "total_quota": self.total_quota, "attempt_cap": self.attempt_cap,
                "remaining_today": self.remaining_today, "attempts_left": self.attempts_left,
                "resets_at": self.resets_at.isoformat()}


def day_start(now: datetime) -> datetime:
    """Midnight UTC of ``now``'s day."""
    return datetime.combine(now.date(), time(0), tzinfo=now.tzinfo)


def _count(session: Session, team_id: int, board_id: int, since: datetime | None,
           statuses: tuple[str, ...] | None) -> int:
    query = select(func.count()).select_from(Submission).where(
        Submission.team_id == team_id, Submission.board_id == board_id)
    if since is not None:
        query = query.where(Submission.created_at >= since)
    if statuses is not None:
        query = query.where(Submission.status.in_(statuses))
    return int(session.exec(query).one())


def quota_status(*, session: Session, team: Team, board: Board, settings: dict[str, Any],
                 now: datetime | None = None) -> QuotaStatus:
    """Usage of ``team`` on ``board`` at ``now`` (default: the current time).

    An admin's quota reset (``team.quota_reset_at``) starts every window afresh.
    """
    now = now or utcnow()
    start = day_start(now)
    reset = team.quota_reset_at
    today = max(start, reset) if reset else start
    prefix = "DEV_" if board.phase == Phase.DEV else ""
    return QuotaStatus(
        scored_today=_count(session, team.id, board.id, today, COUNTED),
        scored_total=_count(session, team.id, board.id, reset, COUNTED),
        attempts_today=_count(session, team.id, board.id, today, None),
        daily_quota=settings[f"{prefix}DAILY_SCORED_QUOTA"],
        total_quota=settings[f"{prefix}TOTAL_SCORED_QUOTA"],
        attempt_cap=settings[f"{prefix}DAILY_ATTEMPT_CAP"], resets_at=start + timedelta(days=1))
