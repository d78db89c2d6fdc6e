"""leaderboard wordnet: install and check the WordNet 3.0 data the scorer lemmatizes with."""

from __future__ import annotations

from pathlib import Path

import click

from leaderboard.scoring.lemmatize import WordNetMissing, wordnet_status
from leaderboard.scoring.wordnet_setup import default_nltk_data_dir, install_wordnet


@click.group("wordnet")
def wordnet_group() -> None:
    """WordNet 3.0 for NLTK (needed to score anything)."""


@wordnet_group.command("install")
@click.option("--data-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help=f"NLTK data directory [default: {default_nltk_data_dir()}].")
@click.option("--no-download", is_flag=True, help="Never try NLTK's downloader.")
@click.option("--force", is_flag=True, help="Rebuild even when NLTK already finds WordNet.")
def install_command(data_dir: Path | None, no_download: bool, force: bool) -> None:
    """Make WordNet 3.0 available to NLTK; safe to run again.

    Uses Debian's wordnet-base (/usr/share/wordnet) offline, adding the lexnames and
    index.sense files NLTK needs; otherwise NLTK's downloader.
    """
    try:
        result = install_wordnet(data_dir=data_dir, allow_download=not no_download, force=force)
    except WordNetMissing as exc:
        raise click.ClickException(str(exc)) from exc
    messages = {
        "present": "WordNet 3.0 already available at {path}",
        "debian": "WordNet 3.0 installed from Debian's wordnet-base into {path} ({detail})",
        "download": "WordNet 3.0 downloaded with NLTK into {path}",
    }
    click.echo(messages[result.method].format(path=result.path, detail=result.detail))


@wordnet_group.command("check")
def check_command() -> None:
    """Tell whether NLTK finds a working WordNet 3.0 (exit status 1 if not)."""
    ok, detail = wordnet_status()
    if not ok:
        raise click.ClickException(f"WordNet 3.0 not usable: {detail}. "
                                   "Run `leaderboard wordnet install`.")
    click.echo(f"WordNet 3.0 OK: {detail}")
