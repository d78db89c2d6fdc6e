"""leaderboard wordnet: compile and check the WordNet 3.0 table the scorer lemmatizes with."""

from __future__ import annotations

from pathlib import Path

import click

from leaderboard.scoring.swords.lemmatize import reset_wordnet, wordnet_status
from leaderboard.scoring.swords.wordnet_table import (
    TABLE_FORMAT,
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
@click.option("--force", is_flag=True, help="Compile even when the table is up to date.")
def install_command(source: Path | None, table: Path | None, force: bool) -> None:
    """Compile WordNet 3.0's index and exception files into the lemmatizer's table.

    Reads Debian's wordnet-base (/usr/share/wordnet) offline; safe to run again: a table
    compiled from files of the same checksum is kept (--force compiles it anyway).
    """
    from leaderboard.infra.setup_stamp import setup_checksum

    origin = source or source_dir()
    target = table or table_path()
    record = target.with_name(target.name + ".source-sha256")
    # The table's format too: a new format from an upgrade compiles again.
    checksum = setup_checksum([origin], f"format {TABLE_FORMAT}") if origin.is_dir() else ""
    if checksum and not force and target.is_file() and _read(record) == checksum:
        click.echo(f"WordNet 3.0 table {target} is up to date with {origin} "
                   f"(checksum {checksum[:12]}): kept")
        return
    try:
        path = compile_table(source, table)
    except WordNetMissing as exc:
        raise click.ClickException(str(exc)) from exc
    reset_wordnet()
    if checksum:
        record.write_text(checksum + "\n")
    click.echo(f"WordNet 3.0 table written to {path} (from {origin})")


def _read(path: Path) -> str:
    try:
        return path.read_text().strip()
    except OSError:
        return ""


@wordnet_group.command("check")
def check_command() -> None:
    """Tell whether the compiled WordNet 3.0 table is usable (exit status 1 if not)."""
    ok, detail = wordnet_status()
    if not ok:
        raise click.ClickException(f"WordNet 3.0 not usable: {detail}")
    click.echo(f"WordNet 3.0 OK: {detail}")
