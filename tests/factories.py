"""Factories for test rows and a browser-like login helper."""

from __future__ import annotations

import re

from sqlmodel import Session

from leaderboard.models import Team, User
from leaderboard.services.access import accounts, api_tokens

DEFAULT_PASSWORD = "correct horse battery"


def make_team(session: Session, name: str = "Team A", email: str | None = None,
              password: str = DEFAULT_PASSWORD, is_admin: bool = False,
              verified: bool = True) -> tuple[Team, User]:
    """A committed team with one member (verified unless asked otherwise)."""
    email = email or f"{name.lower().replace(' ', '-')}@example.org"
    team, user = accounts.create_team(session=session, name=name, email=email, password=password,
                                      verified=verified)
    user.is_admin = is_admin
    session.add(user)
    session.commit()
    return team, user


def make_token(session: Session, team: Team, name: str = "ci") -> str:
    """A committed API token for ``team``; returns the plaintext."""
    _row, plaintext = api_tokens.issue_token(session=session, team=team, name=name)
    session.commit()
    return plaintext


CSRF_RE = re.compile(r'name="csrf_token"[^>]*value="([^"]+)"')


def csrf_token_from(html: str) -> str:
    """The CSRF token of the first form in ``html``."""
    match = CSRF_RE.search(html)
    assert match, "page has no CSRF token"
    return match.group(1)


def login(client, email: str, password: str = DEFAULT_PASSWORD):
    """Log in through the real form (with its CSRF token); returns the response."""
    page = client.get("/account/login")
    token = csrf_token_from(page.get_data(as_text=True))
    return client.post("/account/login", data={"email": email, "password": password,
                                               "csrf_token": token})


def leaves(value, path=()):
    """Every (path, value) of the non-container values of a JSON value."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from leaves(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from leaves(item, (*path, index))
    else:
        yield path, value
