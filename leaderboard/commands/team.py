"""leaderboard team: create and manage teams."""

import click


@click.group("team")
def team_group():
    """(not implemented yet)"""
