"""``leaderboard board``: make, list and choose the default leaderboard."""

from __future__ import annotations

import click
from flask.cli import with_appcontext
from sqlmodel import col, select

from leaderboard.db import get_engine, session_scope
from leaderboard.models import Board, Phase, Release, Submission, Track
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
from leaderboard.services.ranking import ladder
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
@click.option("--release", type=click.Choice(Release.ALL), default=None,
              help="ladder: a team's new score is shown only when significantly better than "
              "its best (probes read one bit per submission); full: every score is shown. "
              "Default: ladder on a test board with hidden labels, else full.")
@with_appcontext
def create_command(name: str, version: str, split: str, track: str, phase: str | None,
                   slug: str | None, make_default: bool, release: str | None) -> None:
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
                                 make_default=make_default, release=release)
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
                       f"\trelease {board.release}"
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


@board_group.command("set-release")
@click.argument("slug")
@click.argument("policy", type=click.Choice(Release.ALL))
@with_appcontext
def set_release_command(slug: str, policy: str) -> None:
    """Set SLUG's release POLICY; ``full`` releases every submission the ladder held."""
    with session_scope(get_engine()) as session:
        board = _board(session, slug)
        released = ladder.set_release(session, board, policy)
        refresh_snapshot(session=session, board_id=board.id)  # type: ignore[arg-type]
        session.commit()
        click.echo(f"{slug}: release {policy}"
                   + (f"; {released} held submission(s) released" if released else ""))


@board_group.command("rebuild")
@click.argument("slugs", nargs=-1)
@click.option("--all", "every", is_flag=True, help="Every leaderboard.")
@with_appcontext
def rebuild_command(slugs: tuple[str, ...], every: bool) -> None:
    """Recompute the ranking of SLUGS from nothing (not from the last snapshot's state).

    Refreshes are incremental: a new result is compared only with the systems it can
    overlap. This full rebuild gives the same snapshot; use it after restoring a backup or
    when a state is in doubt."""
    import time

    with session_scope(get_engine()) as session:
        boards = (session.exec(select(Board).order_by(col(Board.id))).all() if every
                  else [_board(session, slug) for slug in slugs])
        if not boards:
            raise click.UsageError("name at least one leaderboard, or --all")
        for board in boards:
            start = time.perf_counter()
            snapshot = refresh_snapshot(session=session, board_id=board.id,  # type: ignore[arg-type]
                                        full=True)
            session.commit()
            click.echo(f"{board.slug}: {len(snapshot.data['systems'])} system(s) ranked "
                       f"from nothing in {time.perf_counter() - start:.1f} s")


@board_group.command("release")
@click.argument("submission_id", type=int)
@with_appcontext
def release_command(submission_id: int) -> None:
    """Release one submission the ladder held: its numbers appear as if it had been better."""
    with session_scope(get_engine()) as session:
        submission = session.get(Submission, submission_id)
        if submission is None:
            raise click.ClickException(f"no submission {submission_id}")
        if not ladder.release_submission(session, submission):
            raise click.ClickException(f"submission {submission_id} is not held")
        refresh_snapshot(session=session, board_id=submission.board_id)
        session.commit()
        click.echo(f"submission {submission_id} released")


def _board(session, slug: str):
    board = board_by_slug(session, slug)
    if board is None:
        raise click.ClickException(f"no leaderboard {slug!r} (see `leaderboard board list`)")
    return board
