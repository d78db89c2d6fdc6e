"""Helpers shared by the team, token and admin host commands."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from contextlib import contextmanager

import click
from flask import current_app, url_for
from sqlmodel import Session

from leaderboard import config
from leaderboard.db import session_scope
from leaderboard.models import Team, User
from leaderboard.services.access import accounts
from leaderboard.services.access import signed_links as tokens


@contextmanager
def command_session() -> Iterator[Session]:
    """A committed-on-success session; AccountError becomes a clean CLI error."""
    try:
        with session_scope(current_app.extensions["db_engine"]) as session:
            yield session
    except accounts.AccountError as exc:
        raise click.ClickException(str(exc)) from exc


def generate_password() -> str:
    """A random password (about 96 bits) for accounts made by a host."""
    return secrets.token_urlsafe(12)


def public_url() -> str:
    """Base URL for printed links (see :func:`leaderboard.config.public_url`)."""
    return config.public_url(current_app.config["LEADERBOARD"])


def set_password_link(user: User) -> str:
    """A signed link (valid a week, usable once) for ``user`` to choose a password."""
    with current_app.test_request_context("/", base_url=public_url()):
        token = tokens.make_password_token(user, tokens.set_password())
        return url_for("account.set_password", token=token, _external=True)


def require_team(session: Session, name: str) -> Team:
    """The team called ``name`` or a CLI error."""
    team = accounts.find_team(session=session, name=name)
    if team is None:
        raise click.ClickException(f"No team named {name!r} (see 'leaderboard team list').")
    return team
