"""Server-side login sessions: the signed cookie names a row; logout deletes it.

A Flask session cookie is only signed, not stored: without a server-side record, a cookie
copied before logout would keep working until it expired. Each login creates a row holding
the sha256 of a random id that the cookie carries; the user loader accepts a cookie only
while its row exists and is younger than SESSION_HOURS.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta

from sqlalchemy import delete
from sqlmodel import Session, select

from leaderboard.models import LoginSession, utcnow


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def start(*, session: Session, user_id: int, max_hours: float) -> str:
    """Record a new login of ``user_id``; returns the id to keep in the cookie.

    The user's expired rows are deleted on the way (the table stays small).
    """
    session.execute(delete(LoginSession).where(
        LoginSession.user_id == user_id,
        LoginSession.created_at < utcnow() - timedelta(hours=max_hours)))
    token = secrets.token_urlsafe(32)
    session.add(LoginSession(user_id=user_id, token_hash=_hash(token)))
    session.flush()
    return token


def is_valid(*, session: Session, user_id: int, token: str | None, max_hours: float) -> bool:
    """Whether ``token`` names a live login of ``user_id``."""
    if not token:
        return False
    row = session.exec(select(LoginSession).where(
        LoginSession.token_hash == _hash(token))).first()
    return (row is not None and row.user_id == user_id
            and row.created_at > utcnow() - timedelta(hours=max_hours))


def end(*, session: Session, token: str | None) -> None:
    """Forget one login (logout)."""
    if token:
        session.execute(delete(LoginSession).where(LoginSession.token_hash == _hash(token)))


def end_all(*, session: Session, user_id: int) -> int:
    """Forget every login of ``user_id`` (log out everywhere); returns how many."""
    return session.execute(delete(LoginSession).where(LoginSession.user_id == user_id)).rowcount
