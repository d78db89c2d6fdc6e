"""leaderboard admin: create or promote site administrators."""

from __future__ import annotations

import click
from flask.cli import with_appcontext

from leaderboard.commands._accounts import command_session, generate_password
from leaderboard.services.access import accounts


@click.group("admin")
def admin_group():
    """Site administrators."""


@admin_group.command("create")
@click.argument("email")
@click.option("--password", default=None,
              help="Password; a new admin without one gets a generated password, printed.")
@with_appcontext
def create_command(email: str, password: str | None):
    """Make EMAIL an admin: promote the existing user, or create one without a team."""
    with command_session() as session:
        existing = accounts.find_user(session=session, email=email)
        generated = generate_password() if existing is None and password is None else None
        user, created = accounts.make_admin(session=session, email=email,
                                            password=password or generated)
    if created:
        click.echo(f"Created admin {user.email} (no team).")
    else:
        click.echo(f"{user.email} is now an admin.")
    if generated:
        click.echo(f"Generated password: {generated}")
