"""Signed, expiring links: one ``URLSafeTimedSerializer`` per purpose, each with its own salt.

A link for one purpose never validates for another (different salt). Password links carry
the user's password stamp, so they stop working as soon as the password changes: a reset
link works once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from flask import current_app
from itsdangerous import BadSignature, SignatureExpired, URLSafeTimedSerializer
from sqlmodel import Session

from leaderboard.models import Team, User
from leaderboard.services.access.accounts import password_stamp

SET_PASSWORD_MAX_AGE = 7 * 24 * 3600


class LinkError(ValueError):
    """A signed link that is expired, tampered with, or already used; message fit for users."""


@dataclass(frozen=True)
class Purpose:
    """What a link is for: its salt and how long it stays valid (seconds)."""

    salt: str
    max_age: int


def password_reset(settings: dict[str, Any] | None = None) -> Purpose:
    """Reset link asked for on the site; lifetime ``PASSWORD_RESET_MAX_AGE`` (of ``settings``,
    else of the current app: a mail job has no app)."""
    settings = settings or current_app.config["LEADERBOARD"]
    return Purpose("password-reset", int(settings["PASSWORD_RESET_MAX_AGE"]))


def set_password() -> Purpose:
    """First-password link printed by ``leaderboard team create``; valid a week."""
    return Purpose("set-password", SET_PASSWORD_MAX_AGE)


PURPOSES = {"reset": password_reset, "set": set_password}


def serializer(purpose: Purpose, secret_key: str | None = None) -> URLSafeTimedSerializer:
    """The serializer for ``purpose`` under the app's secret key."""
    return URLSafeTimedSerializer(secret_key or current_app.secret_key, salt=purpose.salt)


def make_password_token(user: User, purpose: Purpose, secret_key: str | None = None) -> str:
    """A signed token naming ``user`` and their current password stamp."""
    return serializer(purpose, secret_key).dumps({"uid": user.id, "stamp": password_stamp(user)})


def read_password_token(*, session: Session, token: str, purpose: Purpose) -> User:
    """The user a valid, unused token names; raises LinkError otherwise."""
    try:
        payload = serializer(purpose).loads(token, max_age=purpose.max_age)
    except SignatureExpired as exc:
        raise LinkError("This link has expired. Ask for a new password reset link.") from exc
    except BadSignature as exc:
        raise LinkError("This link is not valid. Check that it was copied completely.") from exc
    user = session.get(User, payload.get("uid")) if isinstance(payload, dict) else None
    if user is None or payload.get("stamp") != password_stamp(user):
        raise LinkError("This link has already been used or the password has changed since. "
                        "Ask for a new password reset link.")
    return user


def email_verification(settings: dict[str, Any] | None = None) -> Purpose:
    """Link sent to a new account's address; lifetime ``EMAIL_VERIFY_MAX_AGE``."""
    settings = settings or current_app.config["LEADERBOARD"]
    return Purpose("email-verification", int(settings["EMAIL_VERIFY_MAX_AGE"]))


def make_verification_token(user: User, settings: dict[str, Any] | None = None,
                            secret_key: str | None = None) -> str:
    """A signed token naming ``user`` and the address it confirms."""
    return serializer(email_verification(settings), secret_key).dumps(
        {"uid": user.id, "email": user.email})


def read_verification_token(*, session: Session, token: str) -> User:
    """The user whose current address a valid token confirms; raises LinkError otherwise."""
    purpose = email_verification()
    try:
        payload = serializer(purpose).loads(token, max_age=purpose.max_age)
    except SignatureExpired as exc:
        raise LinkError("This verification link has expired. Log in and ask for a new one "
                        "on your account page.") from exc
    except BadSignature as exc:
        raise LinkError("This link is not valid. Check that it was copied completely.") from exc
    user = session.get(User, payload.get("uid")) if isinstance(payload, dict) else None
    if user is None or payload.get("email") != user.email:
        raise LinkError("This link does not belong to an existing account.")
    return user


#: An invitation to join a team: a week, any number of members (each signs up once).
INVITATION = Purpose("team-invitation", 7 * 24 * 3600)


def make_invitation_token(team: Team, inviter: User) -> str:
    """A signed link token naming the team (and who invited, for the record)."""
    return serializer(INVITATION).dumps({"team": team.id, "by": inviter.id})


def read_invitation_token(*, session: Session, token: str) -> Team:
    """The team a valid invitation names; raises LinkError otherwise (expired, tampered
    with, or the team is gone or disabled)."""
    try:
        payload = serializer(INVITATION).loads(token, max_age=INVITATION.max_age)
    except SignatureExpired as exc:
        raise LinkError("This invitation has expired (they last a week). Ask a member of the "
                        "team for a new one.") from exc
    except BadSignature as exc:
        raise LinkError("This invitation link is not valid. Check that it was copied "
                        "completely.") from exc
    team = session.get(Team, payload.get("team")) if isinstance(payload, dict) else None
    if team is None or team.disabled:
        raise LinkError("This invitation is for a team that no longer takes members.")
    return team
