"""``leaderboard board``: make, list and choose the default leaderboard."""

from __future__ import annotations

import click
from flask.cli import with_appcontext

from leaderboard.db import get_engine, session_scope
from leaderboard.models import Phase, Track
from leaderboard.scoring import WordNetMissing
from leaderboard.services.catalog.benchmarks import find_benchmark
from leaderboard.services.catalog.boards import (
    BoardError,
    board_by_slug,
    board_title,
    create_board,
    list_boards,
    set_default,
)
from leaderboard.services.catalog.references import ReferenceInvalid, ensure_random_reference
from leaderboard.services.ranking.snapshots import refresh_snapshot


@click.group("board")
def board_group() -> None:
    """Leaderboards: a benchmark split × track × phase, each with its own ranking and quotas."""


@board_group.command("create")
@click.option("--benchmark", "name", required=True, help="Benchmark name, e.g. swords.")
@click.option("--version", "version", required=True, help="Benchmark version, e.g. 1.1.")
@click.option("--split", required=True, help="An imported split, e.g. test or dev.")
@click.option("--track", type=click.Choice(Track.ALL), default=Track.GENERATIVE,
              show_default=True, help="generative: systems rank their own substitutes; "
              "ranking: systems score every candidate of the split.")
@click.option("--phase", type=click.Choice(Phase.ALL), default=None,
              help="test: hidden labels, strict quotas; dev: public labels, a generous quota "
              "and per-target diagnostics. Default: test for a hidden split, else dev.")
@click.option("--slug", default=None, help="URL name (default: e.g. swords-v1.1-dev-ranking).")
@click.option("--default", "make_default", is_flag=True,
              help="Make it the leaderboard / shows and uploads go to when they name none.")
@with_appcontext
def create_command(name: str, version: str, split: str, track: str, phase: str | None,
                   slug: str | None, make_default: bool) -> None:
    """Make a leaderboard for an imported split (no-op when it exists). A ranking board
    gets the split's Random reference row, scored here (once per split)."""
    with session_scope(get_engine()) as session:
        benchmark = find_benchmark(session, name, version, split)
        if benchmark is None:
            raise click.ClickException(
                f"{name} {version} {split} is not imported; run `leaderboard benchmark import` "
                "first")
        try:
            board = create_board(session, benchmark, track=track, phase=phase, slug=slug,
                                 make_default=make_default)
            random_row = (ensure_random_reference(session, benchmark)
                          if board.track == Track.RANKING else None)
        except (BoardError, ReferenceInvalid, WordNetMissing) as exc:
            raise click.ClickException(str(exc)) from exc
        refresh_snapshot(session=session, board_id=board.id)  # type: ignore[arg-type]
        session.commit()
        click.echo(f"{board.slug}: {board_title(board, benchmark)}"
                   + (" (default)" if board.is_default else ""))
        if random_row is not None:
            click.echo(f"  reference {random_row.name}: GAP {random_row.metrics['gap']:.2f}, "
                       f"GAP ratio {random_row.metrics['gap_rat']:.2f}")


@board_group.command("list")
@with_appcontext
def list_command() -> None:
    """Every leaderboard, the default first."""
    with session_scope(get_engine()) as session:
        rows = list_boards(session)
        if not rows:
            click.echo("No leaderboards yet: import a split with `leaderboard benchmark import`.")
        for board, benchmark in rows:
            labels = "public labels" if board.labels_public else "hidden labels"
            click.echo(f"{board.slug}\t{board_title(board, benchmark)}\t{labels}"
                       + ("\tdefault" if board.is_default else ""))


@board_group.command("set-default")
@click.argument("slug")
@with_appcontext
def set_default_command(slug: str) -> None:
    """Make SLUG the leaderboard / shows and uploads go to when they name none."""
    with session_scope(get_engine()) as session:
        board = board_by_slug(session, slug)
        if board is None:
            raise click.ClickException(f"no leaderboard {slug!r} (see `leaderboard board list`)")
        set_default(session, board)
        session.commit()
        click.echo(f"{slug} is the default leaderboard")
