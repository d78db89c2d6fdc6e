"""leaderboard worker and leaderboard ranker: the two kinds of background process."""

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


def _refuse_split(settings: dict) -> dict:
    """The settings, or a one-line error when they would split a shared deployment."""
    from leaderboard.config import SplitDeployment, require_shared_settings

    try:
        require_shared_settings(settings)
    except SplitDeployment as exc:
        raise click.ClickException(str(exc)) from exc
    return settings


@click.command("worker")
@click.option("--burst", is_flag=True, help="Exit when the queue is empty.")
@click.option("--queue", "queue_name", default=None,
              help="Queue to work on (default: the QUEUE_NAME setting).")
@click.option("--checks-only", is_flag=True,
              help="Take only dry runs (a pool whose checks never wait behind scoring).")
def worker_command(burst: bool, queue_name: str | None, checks_only: bool) -> None:
    """Check and score uploaded files until stopped (SIGTERM finishes the current job).

    Loads WordNet and every prepared split before taking jobs, runs each file's parsing and
    scoring in a child killed at its limits, reconciles lost submissions at start and every
    RECONCILE_SECONDS.
    """
    from leaderboard.worker.main import run_worker

    run_worker(_refuse_split(_settings()), burst=burst, queue_name=queue_name,
               checks_only=checks_only)
    sys.exit(0)


@click.command("ranker")
@click.option("--burst", is_flag=True, help="Exit when its queues are empty.")
@click.option("--name", default=None, help="Ranker name (default: host and process id).")
def ranker_command(burst: bool, name: str | None) -> None:
    """Compute rankings: take the refreshes of the boards routed to this ranker (and of the
    shared ranking queue), keeping each board's ranking state in memory between them."""
    from leaderboard.ranker.refresh import run_ranker

    run_ranker(_refuse_split(_settings()), burst=burst, name=name)
    sys.exit(0)
