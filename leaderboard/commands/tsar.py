"""``leaderboard benchmark import-tsar``: TSAR-2022's splits and boards from the task's files."""

from __future__ import annotations

from pathlib import Path

import click
from flask.cli import with_appcontext

from leaderboard.db import get_engine, session_scope
from leaderboard.models import Split
from leaderboard.scoring.tsar.data import SPLITS


@click.command("import-tsar")
@click.option("--split", type=click.Choice(SPLITS), help="One split's board; without it, the "
              "three test boards (en-test, es-test, pt-test).")
@click.option("--data-dir", type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="The TSAR-2022 repository's files [default: $LEADERBOARD_TSAR_DIR, else "
              "../shared/data/tsar2022].")
@with_appcontext
def import_tsar_command(split: str | None, data_dir: Path | None) -> None:
    """Store TSAR-2022 splits with their generative boards (public labels) and, on the test
    boards, every team's published run as a reported row (read from the task's CSV files)."""
    from leaderboard.services.catalog import tsar
    from leaderboard.services.catalog.boards import BoardError, board_title
    from leaderboard.services.ranking.snapshots import refresh_snapshot

    try:
        with session_scope(get_engine()) as session:
            for split_name in [split] if split else tsar.STANDARD_SPLITS:
                board = tsar.tsar_board(session, split_name, root=data_dir)
                session.commit()
                refresh_snapshot(session=session, board_id=board.id)
                session.commit()
                row = session.get(Split, board.split_id)
                click.echo(f"board {board.slug}: {board_title(board, row)}, {row.n_targets} "
                           f"instances, checksum {row.checksum[:12]}")
    except (BoardError, FileNotFoundError, ValueError) as exc:
        raise click.ClickException(str(exc)) from exc
