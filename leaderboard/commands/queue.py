"""leaderboard queue: reconcile and inspect the scoring queue."""

from __future__ import annotations

import click
from flask import current_app
from flask.cli import with_appcontext


@click.group("queue")
def queue_group() -> None:
    """Inspect the scoring queue and recover lost submissions."""


@queue_group.command("reconcile")
@with_appcontext
@click.option("--grace", default=10.0, show_default=True,
              help="Leave rows queued less than this many seconds ago alone.")
def reconcile_command(grace: float) -> None:
    """Re-enqueue queued/running submissions that have no live job (Redis emptied, worker
    killed); mark those out of attempts failed."""
    from leaderboard.db import get_session
    from leaderboard.infra.queue import get_redis
    from leaderboard.services.intake.reconcile import reconcile

    settings = current_app.config["LEADERBOARD"]
    report = reconcile(session=get_session(), connection=get_redis(),
                       queue_name=settings["QUEUE_NAME"], settings=settings,
                       grace_seconds=grace)
    click.echo(report.summary())
    for label, ids in (("re-enqueued", report.requeued), ("failed", report.failed)):
        if ids:
            click.echo(f"{label}: {', '.join(map(str, ids))}")


@queue_group.command("status")
@with_appcontext
def status_command() -> None:
    """Submissions per status in the database, and jobs and workers in Redis."""
    from rq import Queue, Worker
    from rq.registry import FailedJobRegistry, StartedJobRegistry
    from sqlalchemy import func
    from sqlmodel import select

    from leaderboard.db import get_session
    from leaderboard.infra.queue import get_redis
    from leaderboard.models import Submission

    settings = current_app.config["LEADERBOARD"]
    rows = get_session().exec(select(Submission.status, func.count())
                              .group_by(Submission.status)).all()
    counts = dict(rows)
    click.echo("database: " + ", ".join(f"{s} {counts.get(s, 0)}" for s in
                                        ("queued", "running", "scored", "invalid", "failed")))
    connection = get_redis()
    queue = Queue(settings["QUEUE_NAME"], connection=connection)
    started = StartedJobRegistry(queue=queue)
    failed = FailedJobRegistry(queue=queue)
    workers = Worker.all(queue=queue)
    click.echo(f"queue {queue.name}: {queue.count} waiting, {started.count} started, "
               f"{failed.count} in RQ's failed registry, {len(workers)} worker(s)")
    for worker in workers:
        click.echo(f"  {worker.name}: {worker.get_state()}, last heartbeat "
                   f"{worker.last_heartbeat}")
