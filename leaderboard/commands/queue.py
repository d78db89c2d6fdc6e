"""leaderboard queue: reconcile and inspect the scoring queue."""

import click


@click.group("queue")
def queue_group():
    """(not implemented yet)"""
