"""``leaderboard reported``: rows with a publication's numbers, shown with the citation and never
re-scored or ranked."""

from __future__ import annotations

from pathlib import Path

import click
from flask.cli import with_appcontext

from leaderboard.db import get_engine, session_scope
from leaderboard.scoring.reported import ReportedInvalid
from leaderboard.services.catalog import reported
from leaderboard.services.catalog.boards import BoardError, board_by_slug, board_or_default
from leaderboard.services.ranking.snapshots import refresh_snapshot


def _fail(origin: str, problems: list[str]) -> click.ClickException:
    lines = "\n".join(f"  - {p}" for p in problems)
    return click.ClickException(f"{origin}: nothing stored; {len(problems)} problem"
                                f"{'' if len(problems) == 1 else 's'}:\n{lines}")


def _echo(added: reported.Added) -> None:
    note = f", replacing {added.replaced}" if added.replaced else ""
    click.echo(f"{added.board.slug}: {len(added.names)} reported row"
               f"{'' if len(added.names) == 1 else 's'} from {added.origin}{note}")


@click.group("reported")
def reported_group() -> None:
    """Reported rows: a publication's numbers, pinned under the references, never ranked."""


@reported_group.command("add")
@click.argument("path", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--leaderboard", "slug", default=None,
              help="Leaderboard slug (default: the default leaderboard).")
@with_appcontext
def add_command(path: Path, slug: str | None) -> None:
    """Add the rows of PATH (JSON, format 1) to a leaderboard; adding the same file again
    replaces its rows there."""
    with session_scope(get_engine()) as session:
        try:
            board = board_or_default(session, slug)
        except BoardError as exc:
            raise click.ClickException(str(exc)) from exc
        if board is None:
            raise click.ClickException("no leaderboard yet: import a split first")
        try:
            added = reported.add_file(session, board, path)
        except (ReportedInvalid, reported.ReportedError) as exc:
            raise _fail(exc.origin, exc.problems) from exc
        refresh_snapshot(session=session, board_id=board.id)  # type: ignore[arg-type]
        _echo(added)


@reported_group.command("add-shipped")
@with_appcontext
def add_shipped_command() -> None:
    """Add the shipped rows (the SWORDS paper's Tables 4 and 6, Wada et al. 2022) to every
    leaderboard whose benchmark name, split and track are theirs."""
    with session_scope(get_engine()) as session:
        added = reported.add_shipped(session)
        for board_id in dict.fromkeys(item.board.id for item in added):
            refresh_snapshot(session=session, board_id=board_id)  # type: ignore[arg-type]
        for item in added:
            _echo(item)
        if not added:
            click.echo("no leaderboard matches the shipped rows (swords test, generative or "
                       "ranking track)")


@reported_group.command("list")
@click.option("--leaderboard", "slug", default=None, help="Only this leaderboard.")
@with_appcontext
def list_command(slug: str | None) -> None:
    """Every reported row: leaderboard, origin, name, what it was computed on, metrics."""
    with session_scope(get_engine()) as session:
        board = None
        if slug:
            board = board_by_slug(session, slug)
            if board is None:
                raise click.ClickException(f"no leaderboard {slug!r} (see `leaderboard board "
                                           "list`)")
        rows = reported.list_rows(session, board)
        if not rows:
            click.echo("No reported rows.")
        for row, on in rows:
            metrics = ", ".join(f"{k} {v:g}" for k, v in row.metrics.items())
            click.echo(f"{on.slug}\t{row.origin}\t{row.name}\t{row.benchmark_name} "
                       f"v{row.benchmark_version} {row.benchmark_split}\t{metrics}")


@reported_group.command("remove")
@click.option("--leaderboard", "slug", required=True, help="Leaderboard slug.")
@click.option("--origin", required=True, help="The file name the rows came from "
              "(`reported list` shows it).")
@with_appcontext
def remove_command(slug: str, origin: str) -> None:
    """Remove the rows one file put on a leaderboard."""
    with session_scope(get_engine()) as session:
        board = board_by_slug(session, slug)
        if board is None:
            raise click.ClickException(f"no leaderboard {slug!r} (see `leaderboard board list`)")
        removed = reported.remove_origin(session, board, origin)
        if not removed:
            raise click.ClickException(f"{slug} has no reported rows from {origin!r}")
        refresh_snapshot(session=session, board_id=board.id)  # type: ignore[arg-type]
        click.echo(f"{slug}: removed {removed} reported row{'' if removed == 1 else 's'} "
                   f"from {origin}")
