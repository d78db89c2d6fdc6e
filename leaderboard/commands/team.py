"""leaderboard team: create and list teams."""

from __future__ import annotations

import click
from flask.cli import with_appcontext

from leaderboard.commands._accounts import (
    command_session,
    generate_password,
    set_password_link,
)
from leaderboard.services.access import accounts, api_tokens


@click.group("team")
def team_group():
    """Create and list teams."""


@team_group.command("create")
@click.argument("name")
@click.option("--email", required=True, help="E-mail of the team's first member (logs in with it).")
@click.option("--password", default=None,
              help="Their password; when omitted one is generated and printed.")
@with_appcontext
def create_command(name: str, email: str, password: str | None):
    """Create team NAME with one member; print their password and a set-password link."""
    generated = generate_password() if password is None else None
    with command_session() as session:
        team, user = accounts.create_team(session=session, name=name, email=email,
                                          password=password or generated, verified=True)
    click.echo(f"Created team {team.name!r} (id {team.id}) with member {user.email}.")
    if generated:
        click.echo(f"Generated password: {generated}")
    click.echo("Link to choose a password (valid 7 days, works once): "
               f"{set_password_link(user)}")


@team_group.command("list")
@with_appcontext
def list_command():
    """Print every team with its members and live token count."""
    with command_session() as session:
        rows = accounts.list_teams(session=session)
        if not rows:
            click.echo("No teams yet. Create one with 'leaderboard team create NAME --email E'.")
        for team, members in rows:
            live = sum(1 for t in api_tokens.list_tokens(session=session, team_id=team.id)
                       if t.revoked_at is None)
            state = " [disabled]" if team.disabled else ""
            emails = ", ".join(m.email for m in members) or "(no members)"
            click.echo(f"{team.id}\t{team.name}{state}\t{emails}\t{live} live token(s)")
