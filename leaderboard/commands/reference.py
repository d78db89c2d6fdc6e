"""leaderboard reference: add reference rows (Humans, oracles)."""

import click


@click.group("reference")
def reference_group():
    """(not implemented yet)"""
