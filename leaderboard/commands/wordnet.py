"""leaderboard wordnet: compile and check the WordNet 3.0 table the scorer lemmatizes with."""

from __future__ import annotations

from pathlib import Path

import click

from leaderboard.scoring.lemmatize import reset_wordnet, wordnet_status
from leaderboard.scoring.wordnet_table import (
    WordNetMissing,
    compile_table,
    source_dir,
    table_path,
)


@click.group("wordnet")
def wordnet_group() -> None:
    """WordNet 3.0 for the lemmatizer (needed to score anything)."""


@wordnet_group.command("install")
@click.option("--source", type=click.Path(file_okay=False, path_type=Path), default=None,
              help=f"WordNet 3.0 directory with index.* and *.exc, or an NLTK data directory "
                   f"[default: $LEADERBOARD_WORDNET_DIR or {source_dir()}].")
@click.option("--table", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help=f"Where to write the compiled table [default: $LEADERBOARD_WORDNET_TABLE "
                   f"or {table_path()}].")
def install_command(source: Path | None, table: Path | None) -> None:
    """Compile WordNet 3.0's index and exception files into the lemmatizer's table.

    Reads Debian's wordnet-base (/usr/share/wordnet) offline; safe to run again.
    """
    try:
        path = compile_table(source, table)
    except WordNetMissing as exc:
        raise click.ClickException(str(exc)) from exc
    reset_wordnet()
    click.echo(f"WordNet 3.0 table written to {path} (from {source or source_dir()})")


@wordnet_group.command("check")
def check_command() -> None:
    """Tell whether the compiled WordNet 3.0 table is usable (exit status 1 if not)."""
    ok, detail = wordnet_status()
    if not ok:
        raise click.ClickException(f"WordNet 3.0 not usable: {detail}")
    click.echo(f"WordNet 3.0 OK: {detail}")
