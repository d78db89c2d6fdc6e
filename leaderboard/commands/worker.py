"""leaderboard worker: run an RQ scoring worker."""

from __future__ import annotations

import sys

import click


def _settings() -> dict:
    """The app's settings when run through Flask's group, else straight from the environment.

    The console script dispatches ``worker`` without building the web app (no Flask, no
    blueprints, no pandas), so a worker starts scoring sooner and stays smaller.
    """
    if "flask" in sys.modules:
        from flask.cli import ScriptInfo

        info = click.get_current_context().find_object(ScriptInfo)
        if info is not None:
            return info.load_app().config["LEADERBOARD"]
    from leaderboard.config import load_settings

    return load_settings()


@click.command("worker")
@click.option("--burst", is_flag=True, help="Exit when the queue is empty.")
@click.option("--queue", "queue_name", default=None,
              help="Queue to work on (default: the QUEUE_NAME setting).")
def worker_command(burst: bool, queue_name: str | None) -> None:
    """Score submissions from the queue until stopped (SIGTERM finishes the current job).

    Loads WordNet and every prepared split before taking jobs, reconciles lost submissions
    at start and every RECONCILE_SECONDS.
    """
    from worker.main import run_worker

    run_worker(_settings(), burst=burst, queue_name=queue_name)
    sys.exit(0)
