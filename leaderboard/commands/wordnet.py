"""leaderboard wordnet: install and check WordNet data for NLTK."""

import click


@click.group("wordnet")
def wordnet_group():
    """(not implemented yet)"""
