"""leaderboard benchmark: import, list and export benchmark splits."""

import click


@click.group("benchmark")
def benchmark_group():
    """(not implemented yet)"""
