"""leaderboard submit: the CI-friendly upload client."""

import click


@click.command("submit")
def submit_command():
    """(not implemented yet)"""
