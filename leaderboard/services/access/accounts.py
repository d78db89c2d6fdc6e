"""Teams, users and passwords."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from flask import has_request_context, request
from flask_login import UserMixin
from sqlalchemy import func
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select
from werkzeug.security import check_password_hash, generate_password_hash

from leaderboard.infra import txlock
from leaderboard.models import Team, User, team_name_key, utcnow
from leaderboard.services.access import team_names
from leaderboard.services.access.mailboxes import mailbox_key
from leaderboard.services.text_fields import text_problem


class AccountError(ValueError):
    """A request that cannot be carried out, with a message fit for the user."""


class TeamNameTaken(AccountError):
    """Another team has this name, whatever the case (:func:`team_name_key`)."""


class EmailTaken(AccountError):
    """An account with this e-mail address, or another address of its mailbox, exists."""


#: What a taken address and a taken mailbox (``me+2@`` beside ``me+1@``) both answer.
EMAIL_TAKEN = "An account with that e-mail already exists."


@dataclass
class CurrentUser(UserMixin):
    """What Flask-Login keeps for a signed-in user (not the database row)."""

    id: int
    email: str
    team_id: int | None
    team_name: str | None
    is_admin: bool
    session_stamp: str
    email_verified: bool = False
    notify_on_finish: bool = False

    def get_id(self) -> str:
        # The stamp changes with the password, so changing it logs out every other session.
        return f"{self.id}:{self.session_stamp}"


def hash_password(password: str) -> str:
    """Hash with werkzeug's scrypt (a memory-hard KDF)."""
    return generate_password_hash(password, method="scrypt")


def check_password(user: User, password: str) -> bool:
    return check_password_hash(user.password_hash, password)


def password_stamp(user: User) -> str:
    """Changes whenever the password changes: ties sessions and reset links to a password."""
    return user.password_changed_at.strftime("%Y%m%d%H%M%S%f")


_stamp = password_stamp


def to_current_user(session: Session, user: User) -> CurrentUser:
    team = session.get(Team, user.team_id) if user.team_id else None
    return CurrentUser(
        id=user.id, email=user.email, team_id=user.team_id,
        team_name=team.name if team else None, is_admin=user.is_admin,
        session_stamp=_stamp(user), email_verified=user.email_verified_at is not None,
        notify_on_finish=user.notify_on_finish,
    )


#: Key of the server-side login id in the (signed) Flask session cookie.
LOGIN_SESSION_KEY = "sid"


def load_user_for_session(user_id: str) -> CurrentUser | None:
    """Flask-Login's user loader: ``"<id>:<stamp>"`` -> user, or None when stale.

    Stale: the password changed since, or the cookie's login was ended on the server
    (logout, log out everywhere).
    """
    from flask import current_app
    from flask import session as cookie

    from leaderboard.db import get_session
    from leaderboard.services.access import login_sessions

    raw_id, _, stamp = user_id.partition(":")
    if not raw_id.isdigit():
        return None
    session = get_session()
    user = session.get(User, int(raw_id))
    if user is None or _stamp(user) != stamp:
        return None
    if not login_sessions.is_valid(
            session=session, user_id=user.id, token=cookie.get(LOGIN_SESSION_KEY),
            max_hours=current_app.config["LEADERBOARD"]["SESSION_HOURS"]):
        return None
    team = session.get(Team, user.team_id) if user.team_id else None
    if team is not None and team.disabled and not user.is_admin:
        return None
    return to_current_user(session, user)


def create_team(*, session: Session, name: str, email: str, password: str,
                verified: bool) -> tuple[Team, User]:
    """Create a team and its first member. Raises AccountError on taken names or e-mails,
    and on characters a name or address may not hold (:mod:`leaderboard.services.text_fields`).

    ``verified``: the host vouches for the address (``team create``); a sign-up passes
    False and confirms it by the mailed link.

    One account per mailbox (:func:`~leaderboard.services.access.mailboxes.mailbox_key`):
    ``me+2@x.org`` is taken when ``me+1@x.org`` has an account, with the same EmailTaken.

    The checks below give the usual message. Between parallel requests, the unique index on
    ``team.name_key`` decides for names, and the mailbox's lock (:func:`claim_mailbox`, held
    until the caller's commit) for addresses. The one that loses the race gets the same
    AccountError (and its session is rolled back), never an IntegrityError.
    """
    for problem in (text_problem("team name", name, name=True),
                    text_problem("e-mail address", email)):
        if problem:
            raise AccountError(problem[0].upper() + problem[1:] + ".")
    name, email = name.strip(), email.strip().lower()
    if not name or len(name) > 80 or len(team_name_key(name)) > 255:
        raise AccountError("Team name must be 1 to 80 characters.")
    if problem := team_names.name_problem(name):
        raise AccountError(problem)
    if "@" not in email:
        raise AccountError("Enter a valid e-mail address.")
    if len(password) < 8:
        raise AccountError("Password must be at least 8 characters.")
    # Hashed before the checks: a taken address costs the request as long as a new one.
    password_hash = hash_password(password)
    claim_mailbox(session, email)
    _refuse_taken(session, name, email)
    team = Team(name=name, signup_ip=request.remote_addr if has_request_context() else None)
    user = User(email=email, password_hash=password_hash,
                email_verified_at=utcnow() if verified else None)
    try:
        session.add(team)
        session.flush()
        user.team_id = team.id
        session.add(user)
        session.flush()
    except IntegrityError:
        session.rollback()
        _refuse_taken(session, name, email)
        raise  # some other constraint: a real error
    return team, user


def join_team(*, session: Session, team: Team, email: str, password: str) -> User:
    """A new member of ``team`` (from an invitation): unverified until the mailed link is
    followed, as after a sign-up. Raises EmailTaken or AccountError like :func:`create_team`."""
    problem = text_problem("e-mail address", email)
    if problem:
        raise AccountError(problem[0].upper() + problem[1:] + ".")
    email = email.strip().lower()
    if "@" not in email:
        raise AccountError("Enter a valid e-mail address.")
    if len(password) < 8:
        raise AccountError("Password must be at least 8 characters.")
    password_hash = hash_password(password)
    claim_mailbox(session, email)
    if _mailbox_taken(session, email):
        raise EmailTaken(EMAIL_TAKEN)
    user = User(email=email, password_hash=password_hash, team_id=team.id)
    try:
        session.add(user)
        session.flush()
    except IntegrityError:
        session.rollback()
        raise EmailTaken(EMAIL_TAKEN) from None
    return user


def claim_mailbox(session: Session, email: str) -> None:
    """Lock ``email``'s mailbox until the session's transaction ends, so that a check for an
    account on it and the insert of one cannot interleave with another request's (the
    accounts made before the rule may share a mailbox, so no unique index can decide)."""
    txlock.hold(session, f"mailbox:{mailbox_key(email)}")


def _mailbox_taken(session: Session, email: str) -> bool:
    return session.exec(select(User.id).where(
        User.mailbox == mailbox_key(email))).first() is not None


def _refuse_taken(session: Session, name: str, email: str) -> None:
    """Raise TeamNameTaken or EmailTaken when the name (any case) or the address's mailbox
    is in use."""
    if session.exec(select(Team.id).where(Team.name_key == team_name_key(name))).first():
        raise TeamNameTaken(f"The team name {name!r} is taken.")
    _refuse_look_alike(session, name)
    if _mailbox_taken(session, email):
        raise EmailTaken(EMAIL_TAKEN)


def _refuse_look_alike(session: Session, name: str) -> None:
    """Raise TeamNameTaken when another team's name looks the same as ``name`` (one
    :func:`~leaderboard.services.access.team_names.name_skeleton`: ``Team l`` beside
    ``Team 1``). The unique index on ``team.name_skeleton`` decides between parallel
    sign-ups, as ``team.name_key`` does for case variants."""
    skeleton = team_names.name_skeleton(name)
    match = session.exec(select(Team.name_key).where(Team.name_skeleton == skeleton)).first()
    if match == team_name_key(name):  # the same name, committed since the check above
        raise TeamNameTaken(f"The team name {name!r} is taken.")
    if match is not None:
        raise TeamNameTaken(f"The team name {name!r} looks the same as another team's name; "
                            "choose one that reads differently.")


def authenticate(*, session: Session, email: str, password: str) -> User | None:
    """The user with this e-mail and password, or None."""
    user = find_user(session=session, email=email)
    if user is None:
        # Spend the same hashing time, so response times do not tell which e-mails exist.
        check_password_hash(_dummy_hash(), password)
        return None
    return user if check_password(user, password) else None


@cache
def _dummy_hash() -> str:
    return hash_password("not a real password")


def set_password(*, session: Session, user: User, password: str) -> None:
    """Set a new password; every existing session of the user stops being valid."""
    if len(password) < 8:
        raise AccountError("Password must be at least 8 characters.")
    user.password_hash = hash_password(password)
    user.password_changed_at = utcnow()
    session.add(user)


def find_user(*, session: Session, email: str) -> User | None:
    """The user with this e-mail (case-insensitive), or None."""
    if text_problem("e-mail", email):
        return None  # no stored address has one; PostgreSQL would refuse a NUL in the query
    return session.exec(select(User).where(User.email == email.strip().lower())).first()


def find_by_mailbox(*, session: Session, email: str) -> User | None:
    """The oldest account on ``email``'s mailbox (``me+2@x.org`` finds ``me+1@x.org``'s),
    or None."""
    if text_problem("e-mail", email):
        return None
    return session.exec(select(User).where(User.mailbox == mailbox_key(email))
                        .order_by(User.id)).first()


def find_team(*, session: Session, name: str) -> Team | None:
    """The team with this name (case-insensitive), or None."""
    if text_problem("team name", name, name=True):
        return None
    return session.exec(select(Team).where(Team.name_key == team_name_key(name))).first()


def team_members(*, session: Session, team_id: int) -> list[User]:
    """Members of a team, oldest first."""
    return list(session.exec(select(User).where(User.team_id == team_id).order_by(User.id)).all())


def list_teams(*, session: Session) -> list[tuple[Team, list[User]]]:
    """Every team with its members, by name."""
    teams = session.exec(select(Team).order_by(func.lower(Team.name))).all()
    return [(team, team_members(session=session, team_id=team.id)) for team in teams]


def make_admin(*, session: Session, email: str, password: str | None) -> tuple[User, bool]:
    """Promote the user with ``email`` to admin, or create a team-less admin.

    Returns (user, created). A new admin needs ``password``; for an existing user the
    password is changed only when one is given.
    """
    email = email.strip().lower()
    if "@" not in email:
        raise AccountError("Enter a valid e-mail address.")
    user = find_user(session=session, email=email)
    created = user is None
    if user is None:
        if password is None:
            raise AccountError("A new admin needs a password.")
        user = User(email=email, password_hash="!")
    if password is not None:
        set_password(session=session, user=user, password=password)
    user.is_admin = True
    session.add(user)
    session.flush()
    return user, created


def get_user(*, session: Session, user_id: int) -> User | None:
    """The user row with this id, or None."""
    return session.get(User, user_id)
