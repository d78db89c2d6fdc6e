"""leaderboard worker: run an RQ scoring worker."""

import click


@click.command("worker")
def worker_command():
    """(not implemented yet)"""
