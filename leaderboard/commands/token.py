"""leaderboard token: create and revoke API tokens for a team."""

from __future__ import annotations

import click
from flask.cli import with_appcontext

from leaderboard.commands._accounts import command_session, require_team
from leaderboard.services.access import api_tokens


@click.group("token")
def token_group():
    """Create and revoke API tokens."""


@token_group.command("create")
@click.option("--team", "team_name", required=True, help="Team name.")
@click.option("--name", required=True, help="What the token is for, e.g. ci.")
@click.option("--read-only", is_flag=True,
              help="Scope 'read' only: status and lists, no uploads or dry runs.")
@with_appcontext
def create_command(team_name: str, name: str, read_only: bool):
    """Create a token; the secret is printed once, alone on the last line."""
    with command_session() as session:
        team = require_team(session, team_name)
        row, plaintext = api_tokens.issue_token(
            session=session, team=team, name=name,
            scopes="read" if read_only else api_tokens.ALL_SCOPES)
    click.echo(f"Created API token {row.name!r} for team {team.name!r} (starts with {row.prefix}, "
               f"scopes: {row.scopes}).")
    click.echo("It is shown only now; store it (scripts: take the last line):")
    click.echo(plaintext)


@token_group.command("revoke")
@click.option("--team", "team_name", required=True, help="Team name.")
@click.option("--name", required=True, help="Name of the token(s) to revoke.")
@with_appcontext
def revoke_command(team_name: str, name: str):
    """Revoke the team's live tokens called NAME."""
    with command_session() as session:
        team = require_team(session, team_name)
        live = api_tokens.live_tokens_named(session=session, team_id=team.id, name=name)
        if not live:
            raise click.ClickException(f"Team {team.name!r} has no live token named {name!r}.")
        for token in live:
            api_tokens.revoke_token(session=session, token=token)
    click.echo(f"Revoked {len(live)} token(s) named {name!r} of team {team.name!r}.")
