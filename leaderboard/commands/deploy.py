"""leaderboard deploy: check this machine against the shared deployment."""

from __future__ import annotations

import click
from flask import current_app
from flask.cli import with_appcontext

from leaderboard.services.deployment import DEFAULT_MAX_SKEW_SECONDS, Check, run_checks


@click.group("deploy")
def deploy_group() -> None:
    """Multi-machine deployment commands."""


@deploy_group.command("check")
@click.option("--role", type=click.Choice(["all", "web", "worker", "ranker"]), default="all",
              show_default=True,
              help="What this machine runs: WordNet is checked for worker (and all) only.")
@click.option("--max-skew", type=click.FloatRange(min=0), default=DEFAULT_MAX_SKEW_SECONDS,
              show_default=True,
              help="Largest difference, in seconds, between this clock and the database's.")
@with_appcontext
def check_command(role: str, max_skew: float) -> None:
    """Check this machine against the deployment: database at the newest migration, the same
    secret key (by a fingerprint kept in the database, stored by the first check), on a web
    machine the same certificate signing key (by its id, likewise), the Redis
    and queue the workers and rankers use, WordNet, and clock skew against the database.
    One line per check; exit status 1 if any fails."""
    from leaderboard.infra.queue import get_redis

    settings = current_app.config["LEADERBOARD"]
    checks = run_checks(settings=settings, engine=current_app.extensions["db_engine"],
                        secret_key=current_app.config["SECRET_KEY"],
                        connection=get_redis(), wordnet=role in {"all", "worker"},
                        signing=_signing_key_id(settings) if role in {"all", "web"} else None,
                        max_skew=max_skew)
    for check in checks:
        click.echo(check.line())
    failed = [check.name for check in checks if not check.ok]
    if failed:
        raise click.ClickException(f"{len(failed)} check(s) failed: {', '.join(failed)}")
    click.echo(f"All {len(checks)} checks passed.")


def _signing_key_id(settings: dict) -> Check | str:
    """The id of the key this machine signs certificates with, or the failed check."""
    from leaderboard.infra.signing_key import SigningKeyError, signing_key
    from leaderboard.scoring.certificates import key_id

    try:
        return key_id(signing_key(settings))
    except SigningKeyError as exc:
        return Check("signing key", False, str(exc))
