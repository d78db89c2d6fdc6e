"""leaderboard serve: run web + worker + embedded Redis for development."""

import click


@click.command("serve")
def serve_command():
    """(not implemented yet)"""
