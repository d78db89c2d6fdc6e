"""leaderboard db: schema migrations."""

import click
from flask import current_app
from flask.cli import with_appcontext

from leaderboard import migrate


@click.group("db")
def db_group():
    """Database schema commands."""


@db_group.command("upgrade")
@click.option("--revision", default="head", show_default=True)
@with_appcontext
def upgrade_command(revision: str):
    """Apply migrations up to REVISION (creates the schema on an empty database)."""
    engine = current_app.extensions["db_engine"]
    migrate.upgrade(engine, revision)
    click.echo(f"Database at revision {migrate.current_revision(engine)}.")


@db_group.command("current")
@with_appcontext
def current_command():
    """Print the database's migration revision."""
    click.echo(migrate.current_revision(current_app.extensions["db_engine"]) or "(empty)")
