"""leaderboard token: create and revoke API tokens."""

import click


@click.group("token")
def token_group():
    """(not implemented yet)"""
