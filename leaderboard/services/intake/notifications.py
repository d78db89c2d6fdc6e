"""'Your submission finished' e-mails, sent once per submission to members who opted in."""

from __future__ import annotations

import logging
from typing import Any

from sqlalchemy import update
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from leaderboard.infra import mail
from leaderboard.models import Result, Submission, SubmissionStatus, User, utcnow
from leaderboard.scoring.printing import shown
from leaderboard.services.ranking.ladder import held_message, visible_result

log = logging.getLogger(__name__)
FINAL = (SubmissionStatus.SCORED, SubmissionStatus.INVALID, SubmissionStatus.FAILED)
HEADLINE = ("strict_a_f@10", "strict_a_p@10", "lenient_a_f@10", "gap")


def base_url(settings: dict[str, Any]) -> str:
    """Base of links in e-mails: ``PUBLIC_URL``, else where ``make run`` listens."""
    return (settings["PUBLIC_URL"] or f"http://{settings['HOST']}:{settings['PORT']}").rstrip("/")


def notify_finished(engine: Engine, submission_id: int, settings: dict[str, Any]) -> int:
    """Mail every opted-in member of the submission's team once it is final; returns count.

    The row's ``notified_at`` is claimed atomically first, so a job that runs twice (or a
    retry after Redis lost it) never sends the message twice.
    """
    with Session(engine) as session:
        claimed = session.execute(update(Submission).where(
            Submission.id == submission_id, Submission.status.in_(FINAL),
            Submission.notified_at.is_(None)).values(notified_at=utcnow())).rowcount
        session.commit()
        if claimed != 1:
            return 0
        row = session.get(Submission, submission_id)
        recipients = [u.email for u in session.exec(select(User).where(
            User.team_id == row.team_id, User.notify_on_finish)).all()]
        if not recipients:
            return 0
        result = visible_result(session, row)
        subject, body = _message(row, result, settings)
    return sum(mail.send(settings, to, subject, body) for to in recipients)


def _message(row: Submission, result: Result | None,
             settings: dict[str, Any]) -> tuple[str, str]:
    link = f"{base_url(settings)}/account/submissions/{row.id}"
    subject = f"Submission {row.id} ({row.system_name}) is {row.status}"
    lines = [f"Hello,\n\nyour team's submission {row.id}, \"{row.system_name}\", finished "
             f"with status: {row.status}.\n"]
    if row.held:
        lines.append(held_message(row.release_detail or {}) + "\n")
    elif row.status == SubmissionStatus.SCORED and result is not None:
        lines += [f"  {key}: {shown(result.metrics[key])}" for key in HEADLINE
                  if key in result.metrics]
        lines.append("")
    elif row.status == SubmissionStatus.INVALID:
        lines.append(f"The file has {len(row.errors)} problem(s); the page lists each.\n")
    elif row.failure_reason:
        lines.append(f"{row.failure_reason}\n")
    lines.append(f"Details: {link}\n\nYou get this e-mail because you turned on submission "
                 "e-mails on your account page; turn them off there.\n")
    return subject, "\n".join(lines)
