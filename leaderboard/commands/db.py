"""leaderboard db: schema migrations."""

import click
from flask import current_app
from flask.cli import with_appcontext

from leaderboard.infra import migrate


@click.group("db")
def db_group():
    """Database schema commands."""


@db_group.command("upgrade")
@click.option("--revision", default="head", show_default=True)
@with_appcontext
def upgrade_command(revision: str):
    """Apply migrations up to REVISION (creates the schema on an empty database).

    The first upgrade to the newest revision also stores the secret key's fingerprint, which
    ``leaderboard deploy check`` compares every machine's key with."""
    engine = current_app.extensions["db_engine"]
    migrate.upgrade(engine, revision)
    if revision == "head":
        from leaderboard.services.deployment import record_fingerprint

        if record_fingerprint(engine=engine, secret_key=current_app.config["SECRET_KEY"]):
            click.echo("Stored the secret key's fingerprint (leaderboard deploy check).")
    click.echo(f"Database at revision {migrate.current_revision(engine)}.")


@db_group.command("current")
@with_appcontext
def current_command():
    """Print the database's migration revision."""
    click.echo(migrate.current_revision(current_app.extensions["db_engine"]) or "(empty)")
