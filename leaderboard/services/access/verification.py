"""E-mail verification: who is verified, the gate before hidden splits, the mail it sends.

A team may submit to a hidden split once one of its members has confirmed their address
(opened the signed link). Teams the host creates (``leaderboard team create``) and accounts
that existed before verification was introduced count as verified.
"""

from __future__ import annotations

from typing import Any

from sqlmodel import Session, select

from leaderboard.models import Split, Team, User, utcnow
from leaderboard.services.intake.submissions import SubmissionError

UNVERIFIED_MESSAGE = (
    "Your team cannot submit to the hidden split yet: no member has confirmed their e-mail "
    "address. Open the link we sent at sign-up, or ask for a new one with 'Resend "
    "verification e-mail' on your account page, /account/")


def team_is_verified(session: Session, team_id: int) -> bool:
    """Whether any member of the team has a confirmed address."""
    return session.exec(select(User.id).where(
        User.team_id == team_id, User.email_verified_at.is_not(None))).first() is not None


def require_verified(session: Session, team: Team, benchmark: Split) -> None:
    """Raise a 403 SubmissionError when ``team`` may not submit to ``benchmark`` yet."""
    if benchmark.hidden and not team_is_verified(session, team.id):
        raise SubmissionError(403, "email_unverified", UNVERIFIED_MESSAGE)


def mark_verified(session: Session, user: User) -> bool:
    """Record the confirmation; returns False when it was confirmed already."""
    if user.email_verified_at is not None:
        return False
    user.email_verified_at = utcnow()
    session.add(user)
    return True


def send_verification(settings: dict[str, Any], user: User, link: str) -> bool:
    """Mail the verification link (or log it without SMTP); True when a server took it."""
    from leaderboard.infra.mail import send

    body = (f"Hello,\n\nplease confirm that {user.email} is your address for the SWORDS "
            f"leaderboard by opening this link:\n\n{link}\n\nThe link is valid for "
            f"{settings['EMAIL_VERIFY_MAX_AGE'] // 3600} hours. Until an address of your team "
            "is confirmed, the team cannot submit to the hidden test split.\n\nIf you did not "
            "sign up, ignore this message.\n")
    return send(settings, user.email, "Confirm your e-mail for the SWORDS leaderboard", body)
