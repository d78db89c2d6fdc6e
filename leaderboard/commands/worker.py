"""leaderboard worker: run an RQ scoring worker."""

from __future__ import annotations

import sys

import click
from flask import current_app
from flask.cli import with_appcontext


@click.command("worker")
@with_appcontext
@click.option("--burst", is_flag=True, help="Exit when the queue is empty.")
@click.option("--queue", "queue_name", default=None,
              help="Queue to work on (default: the QUEUE_NAME setting).")
def worker_command(burst: bool, queue_name: str | None) -> None:
    """Score submissions from the queue until stopped (SIGTERM finishes the current job).

    Loads WordNet and every prepared split before taking jobs, reconciles lost submissions
    at start and every RECONCILE_SECONDS.
    """
    from worker.main import run_worker

    settings = current_app.config["LEADERBOARD"]
    run_worker(settings, burst=burst, queue_name=queue_name)
    sys.exit(0)
