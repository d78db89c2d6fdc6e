"""leaderboard admin: create site administrators."""

import click


@click.group("admin")
def admin_group():
    """(not implemented yet)"""
