"""leaderboard rescore: re-queue scored submissions after a scorer change."""

from __future__ import annotations

import click
from flask import current_app
from flask.cli import with_appcontext

from leaderboard.db import get_engine, session_scope
from leaderboard.infra.queue import get_redis
from leaderboard.scoring import WordNetMissing


@click.command("rescore")
@click.option("--all", "all_", is_flag=True,
              help="Every scored submission whose result predates the current scorer.")
@click.option("--force", is_flag=True, help="Re-score every scored submission, even current ones.")
@with_appcontext
def rescore_command(all_: bool, force: bool) -> None:
    """Re-queue scored submissions (and re-score reference rows) for the current scorer.

    Old results are kept as history; pages show the newest. Workers do the scoring.
    """
    from leaderboard.services.intake.rescore import rescore_all

    if not all_:
        raise click.UsageError("pass --all (with --force to include current results)")
    settings = current_app.config["LEADERBOARD"]
    try:
        with session_scope(get_engine()) as session:
            report = rescore_all(session=session, connection=get_redis(),
                                 queue_name=settings["QUEUE_NAME"],
                                 job_timeout=settings["JOB_TIMEOUT"], force=force)
    except WordNetMissing as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(report.summary())
