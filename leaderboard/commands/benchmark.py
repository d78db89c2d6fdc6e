"""leaderboard benchmark: import, list and export benchmark splits, and load the demo."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import click
from flask.cli import with_appcontext
from sqlalchemy.orm import object_session

from leaderboard.commands.tsar import import_tsar_command
from leaderboard.db import get_engine, session_scope
from leaderboard.models import Split
from leaderboard.scoring import WordNetMissing
from leaderboard.services.catalog import benchmarks, demo
from leaderboard.services.catalog.boards import default_board


@click.group("benchmark")
def benchmark_group() -> None:
    """Benchmark splits: import (validated, prepared), list, export inputs, demo."""


benchmark_group.add_command(import_tsar_command)


@benchmark_group.command("import")
@click.argument("path", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--name", required=True, help="Benchmark name, e.g. swords.")
@click.option("--version", "version", required=True, help="Benchmark version, e.g. 1.1.")
@click.option("--split", required=True, help="Split name, e.g. test.")
@click.option("--hidden/--public", default=True, show_default=True,
              help="Hidden splits never serve labels (inputs are always downloadable).")
@click.option("--default", "make_default", is_flag=True,
              help="Make this split's generative leaderboard the one the site shows first "
                   "and uploads go to when they name none.")
@with_appcontext
def import_command(path: Path, name: str, version: str, split: str, hidden: bool,
                   make_default: bool) -> None:
    """Validate PATH (SWORDS JSON, plain or .gz), prepare its gold and store it.

    Importing the same content again is a no-op; different content under the same
    name/version/split is refused (import it as a new version).
    """
    from flask import current_app

    settings = current_app.config["LEADERBOARD"]
    try:
        with session_scope(get_engine()) as session:
            row = benchmarks.import_benchmark(
                session=session, raw=path.read_bytes(), name=name, version=version,
                split=split, hidden=hidden, make_default=make_default,
                bootstrap=settings["BOOTSTRAP_SAMPLES"], seed=settings["BOOTSTRAP_SEED"])
            click.echo(f"{_describe(row)}  checksum {row.checksum[:12]}")
    except benchmarks.BenchmarkInvalid as exc:
        raise click.ClickException(f"{path} is not a valid SWORDS split: {exc}") from exc
    except (benchmarks.BenchmarkConflict, WordNetMissing) as exc:
        raise click.ClickException(str(exc)) from exc


def _describe(row) -> str:
    session = object_session(row)
    board = default_board(session) if session is not None else None
    default = board is not None and board.split_id == row.id
    flags = ["hidden" if row.hidden else "public"] + (["default"] if default else [])
    return (f"#{row.id} {row.name} {row.version} {row.split}: {row.n_targets} targets "
            f"({', '.join(flags)})")


@benchmark_group.command("import-lexsub")
@click.argument("name", type=click.Choice(["semeval07", "coinco"]))
@click.option("--split", help="One split (semeval07: trial, test, all; coinco: all, dev, "
              "test) and --track; without it, the four standard boards.")
@click.option("--track", type=click.Choice(["ranking", "generative"]), default="ranking",
              show_default=True)
@click.option("--data-dir", type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="The LS07/CoInCo files [default: $LEADERBOARD_LEXSUB_DIR, else "
              "../shared/data/lexsub].")
@with_appcontext
def import_lexsub_command(name: str, split: str | None, track: str,
                          data_dir: Path | None) -> None:
    """Store an LS07 or CoInCo split from the field's files, with its board (public labels).

    Without --split: LS07 all/ranking and test/generative, or CoInCo all/ranking and
    test/generative (the protocols papers report).
    """
    from leaderboard.services.catalog import lexsub
    from leaderboard.services.catalog.boards import BoardError
    from leaderboard.services.ranking.snapshots import refresh_snapshot

    wanted = [(name, split, track)] if split else [
        b for b in lexsub.STANDARD_BOARDS if b[0] == name]
    try:
        with session_scope(get_engine()) as session:
            for family, split_name, board_track in wanted:
                board = lexsub.lexsub_board(session, family, split_name, board_track,
                                            data_dir=data_dir)
                session.commit()
                refresh_snapshot(session=session, board_id=board.id)
                session.commit()
                row = session.get(Split, board.split_id)
                click.echo(f"board {board.slug}: {_describe(row)}  checksum {row.checksum[:12]}")
    except (BoardError, FileNotFoundError) as exc:
        raise click.ClickException(str(exc)) from exc


@benchmark_group.command("list")
@with_appcontext
def list_command() -> None:
    """Every stored split with its id, size, visibility and checksum."""
    with session_scope(get_engine()) as session:
        rows = benchmarks.list_benchmarks(session)
        if not rows:
            click.echo("No benchmark imported yet (see `leaderboard benchmark import`).")
        for row in rows:
            click.echo(f"{_describe(row)}  checksum {row.checksum[:12]}  "
                       f"scorer {row.scorer_version}")


@benchmark_group.command("export-inputs")
@click.argument("name")
@click.option("--version", "version", default=None, help="Version (default: newest).")
@click.option("--split", default=None, help="Split (default: newest).")
@click.option("--output", "-o", type=click.Path(dir_okay=False, path_type=Path),
              help="Write here (gzipped when it ends in .gz); default: standard output.")
@with_appcontext
def export_inputs_command(name: str, version: str | None, split: str | None,
                          output: Path | None) -> None:
    """Contexts, targets, POS and candidate substitutes of a split, without any label."""
    with session_scope(get_engine()) as session:
        row = benchmarks.find_benchmark(session, name, version, split)
        if row is None:
            raise click.ClickException(f"no benchmark {name} {version or ''} {split or ''}".strip())
        if output is None:
            click.echo(json.dumps(benchmarks.split_inputs(row), ensure_ascii=False, indent=1))
            return
        if output.suffix == ".gz":
            output.write_bytes(benchmarks.split_inputs_gz(row))
        else:
            output.write_bytes(gzip.decompress(benchmarks.split_inputs_gz(row)))
        click.echo(f"Wrote the inputs of {_describe(row)} to {output}", err=True)


@benchmark_group.command("load-demo")
@click.option("--enqueue/--no-enqueue", default=True, show_default=True,
              help="Queue the demo submissions for scoring.")
@with_appcontext
def load_demo_command(enqueue: bool) -> None:
    """Import the invented demo split with three demo teams' public submissions."""
    try:
        with session_scope(get_engine()) as session:
            row = demo.load_demo(session=session, enqueue=enqueue)
            click.echo(f"Demo loaded: {_describe(row)}"
                       + ("; submissions queued" if enqueue else ""))
    except WordNetMissing as exc:
        raise click.ClickException(str(exc)) from exc
