"""leaderboard score: score a submission file against a split (owned by the scoring engine)."""

import click


@click.command("score")
def score_command():
    """(not implemented yet)"""
