"""leaderboard rescore: re-queue scored submissions after a scorer change."""

import click


@click.command("rescore")
def rescore_command():
    """(not implemented yet)"""
